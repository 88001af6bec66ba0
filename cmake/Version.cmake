# Generates repro_version.h with the project version and the git commit, refreshed on
# every build (so a bisected or rebuilt binary names the commit it came from).
set(REPRO_VERSION_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_target(repro_version_header
  COMMAND ${CMAKE_COMMAND} -DOUT=${REPRO_VERSION_DIR}/repro_version.h
          -DVERSION=${PROJECT_VERSION} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${REPRO_VERSION_DIR}/repro_version.h
  COMMENT "repro_version.h"
  VERBATIM)
