# ctest install.Files: `cmake --install` into a fresh prefix, then checks that every file
# cmake/Install.cmake promises is there, and that the bash completion offers every long
# option that `repro --help` lists.
#   cmake -DBUILD_DIR=... -DPREFIX=... -DEXPECT_MAN=ON|OFF -P install_check.cmake
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc}): ${out}${err}")
endif()
include(GNUInstallDirs)
set(doc ${PREFIX}/${CMAKE_INSTALL_DATADIR}/doc/repro)
set(expected
  ${PREFIX}/${CMAKE_INSTALL_BINDIR}/repro
  ${PREFIX}/${CMAKE_INSTALL_DATADIR}/bash-completion/completions/repro
  ${doc}/README.md ${doc}/LICENSE ${doc}/docs/options.md ${doc}/docs/bisect.md ${doc}/docs/report.schema.json)
if(EXPECT_MAN)
  list(APPEND expected ${PREFIX}/${CMAKE_INSTALL_MANDIR}/man1/repro.1)
endif()
foreach(f IN LISTS expected)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(EXPECT_MAN)
  file(READ ${PREFIX}/${CMAKE_INSTALL_MANDIR}/man1/repro.1 man)
  if(NOT man MATCHES "\\.TH REPRO" OR NOT man MATCHES "expect\\\\-driver")
    message(FATAL_ERROR "the man page is not help2man's rendering of --help")
  endif()
endif()

# Every long option --help lists (its option headings: "  -n, --chain N", "      --mode MODE").
execute_process(COMMAND ${PREFIX}/${CMAKE_INSTALL_BINDIR}/repro --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed repro --help failed (${rc})")
endif()
file(READ ${PREFIX}/${CMAKE_INSTALL_DATADIR}/bash-completion/completions/repro completion)
string(REGEX MATCHALL "\n  (-[a-zA-Z], |    )--[a-z][a-z0-9-]*" headings "${help}")
list(LENGTH headings count)
if(count LESS 30)
  message(FATAL_ERROR "found only ${count} options in --help")
endif()
foreach(h IN LISTS headings)
  string(REGEX REPLACE ".*(--[a-z0-9-]+)$" "\\1" option "${h}")
  if(NOT completion MATCHES "[ '|]${option}[ '|)]")
    message(FATAL_ERROR "the installed bash completion does not offer ${option}")
  endif()
endforeach()
message(STATUS "installed and complete: ${count} options in the completion")
