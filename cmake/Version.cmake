# Generates repro_version.h with the project version and the git commit, refreshed on
# every build (so a bisected or rebuilt binary names the commit it came from).
set(REPRO_VERSION_DIR ${CMAKE_BINARY_DIR}/generated)
# Where a reader of a Markdown report gets repro's source (its "Steps to reproduce"): set it
# to the repository this tree was cloned from. Empty: the git remote "origin" when it is a
# network URL (https://, ssh://, git://, git@host:path), else the report says none was
# recorded. A local path is never used: it names the building machine.
set(REPRO_SOURCE_URL "" CACHE STRING "URL of repro's source repository, named in Markdown reports")
add_custom_target(repro_version_header
  COMMAND ${CMAKE_COMMAND} -DOUT=${REPRO_VERSION_DIR}/repro_version.h
          -DVERSION=${PROJECT_VERSION} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
          -DSOURCE_URL=${REPRO_SOURCE_URL}
          -P ${PROJECT_SOURCE_DIR}/cmake/WriteVersion.cmake
  BYPRODUCTS ${REPRO_VERSION_DIR}/repro_version.h
  COMMENT "repro_version.h"
  VERBATIM)
