# What `cmake --install` puts where (GNUInstallDirs): the binary, a man page generated from
# `repro --help` by help2man when the system has it (with the sections of cmake/repro.h2m),
# a bash completion generated from the option table (`repro --bash-completion`), and README,
# LICENSE and docs/ under the documentation folder.
#
# Included by src/CMakeLists.txt right after the repro target: the completion and the man
# page are made by repro's own POST_BUILD step, so that they exist whenever repro does
# (`cmake --build build --target repro`, then `cmake --install build`, installs all of it).
set(REPRO_GENERATED_SHARE ${CMAKE_BINARY_DIR}/share)
set(REPRO_COMPLETION ${REPRO_GENERATED_SHARE}/bash-completion/repro)
set(REPRO_MAN_PAGE ${REPRO_GENERATED_SHARE}/man/repro.1)

# The bash completion, regenerated whenever the binary is (its option table is in it).
add_custom_command(TARGET repro POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E make_directory ${REPRO_GENERATED_SHARE}/bash-completion
  COMMAND $<TARGET_FILE:repro> --bash-completion > ${REPRO_COMPLETION}
  BYPRODUCTS ${REPRO_COMPLETION}
  COMMENT "bash completion from repro's option table")
install(FILES ${REPRO_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# The man page: help2man (from the distribution) renders `repro --help` (80 columns when not
# on a terminal) and the sections of cmake/repro.h2m. --version-string keeps `repro
# --version` out of it: its compiler, glibc and loader lines are the build machine's.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(TARGET repro POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${REPRO_GENERATED_SHARE}/man
    COMMAND ${HELP2MAN} --no-info --no-discard-stderr
            --name "reproduce a Vulkan compute-chain synchronization bug"
            --version-string "repro ${PROJECT_VERSION}"
            --include ${PROJECT_SOURCE_DIR}/cmake/repro.h2m
            --output ${REPRO_MAN_PAGE} $<TARGET_FILE:repro>
    BYPRODUCTS ${REPRO_MAN_PAGE}
    COMMENT "man page from repro --help (help2man)"
    VERBATIM)
  set_property(TARGET repro APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/repro.h2m)
  install(FILES ${REPRO_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (install help2man for one)")
endif()

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/repro/scenarios
        FILES_MATCHING PATTERN "*.toml")  # repro --list-scenarios (src/engine/list_scenarios.hpp)
