# What `cmake --install` puts where (GNUInstallDirs): the binary (src/CMakeLists.txt), a
# man page generated from `repro --help` by help2man when the system has it, a bash
# completion generated from the option table (`repro --bash-completion`), and README,
# LICENSE and docs/ under the documentation folder.
set(REPRO_GENERATED_SHARE ${CMAKE_BINARY_DIR}/share)

# The bash completion, regenerated whenever the binary is (its option table is in it).
add_custom_command(
  OUTPUT ${REPRO_GENERATED_SHARE}/bash-completion/repro
  COMMAND ${CMAKE_COMMAND} -E make_directory ${REPRO_GENERATED_SHARE}/bash-completion
  COMMAND $<TARGET_FILE:repro> --bash-completion > ${REPRO_GENERATED_SHARE}/bash-completion/repro
  DEPENDS repro
  COMMENT "bash completion from repro's option table")
set(REPRO_INSTALL_DOC_OUTPUTS ${REPRO_GENERATED_SHARE}/bash-completion/repro)

# The man page: help2man (from the distribution) runs `repro --help` and `repro --version`.
find_program(HELP2MAN help2man)
if(HELP2MAN)
  add_custom_command(
    OUTPUT ${REPRO_GENERATED_SHARE}/man/repro.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${REPRO_GENERATED_SHARE}/man
    COMMAND ${HELP2MAN} --no-info --no-discard-stderr --name "reproduce a Vulkan compute-chain synchronization bug"
            --output ${REPRO_GENERATED_SHARE}/man/repro.1 $<TARGET_FILE:repro>
    DEPENDS repro
    COMMENT "man page from repro --help (help2man)")
  list(APPEND REPRO_INSTALL_DOC_OUTPUTS ${REPRO_GENERATED_SHARE}/man/repro.1)
  install(FILES ${REPRO_GENERATED_SHARE}/man/repro.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (install help2man for one)")
endif()
add_custom_target(repro_install_files ALL DEPENDS ${REPRO_INSTALL_DOC_OUTPUTS})

install(FILES ${REPRO_GENERATED_SHARE}/bash-completion/repro
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
