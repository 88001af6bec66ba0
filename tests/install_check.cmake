# ctest install.Files and install.FreshBuild: `cmake --install` into a fresh prefix, then
# checks that every file cmake/Install.cmake promises is there, that the bash completion
# offers every long option that `repro --help` lists, and that the man page has the sections
# of cmake/repro.h2m, every environment variable the sources read, and none of the build
# machine's versions (`repro --version`'s compiler, glibc and loader lines).
#   cmake -DBUILD_DIR=... -DPREFIX=... -DEXPECT_MAN=ON|OFF -DSOURCE_DIR=... -P install_check.cmake
# With -DFRESH=ON (and -DGENERATOR, -DBUILD_TYPE, -DCXX, -DCC, -DLAUNCHER, -DWERROR), BUILD_DIR
# is first removed, configured from SOURCE_DIR without tests or benchmarks, and only the
# repro target is built: what a user who runs `cmake --build build --target repro` installs.
if(FRESH)
  file(REMOVE_RECURSE ${BUILD_DIR})
  set(launcher)
  if(LAUNCHER)
    set(launcher -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BUILD_DIR} -G ${GENERATOR}
                          -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_C_COMPILER=${CC}
                          -DREPRO_WERROR=${WERROR} -DREPRO_BUILD_TESTS=OFF -DREPRO_BUILD_BENCH=OFF ${launcher}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring a fresh build failed (${rc}): ${out}${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target repro --parallel 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building only the repro target failed (${rc}): ${out}${err}")
  endif()
endif()

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
  ${doc}/README.md ${doc}/LICENSE ${doc}/docs/options.md ${doc}/docs/bisect.md ${doc}/docs/report.schema.json
  ${doc}/docs/scenarios.md ${PREFIX}/${CMAKE_INSTALL_DATADIR}/repro/scenarios/kompute-196-increment-chain.toml)
if(EXPECT_MAN)
  list(APPEND expected ${PREFIX}/${CMAKE_INSTALL_MANDIR}/man1/repro.1)
endif()
foreach(f IN LISTS expected)
  if(NOT EXISTS ${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
set(repro ${PREFIX}/${CMAKE_INSTALL_BINDIR}/repro)

if(EXPECT_MAN)
  file(READ ${PREFIX}/${CMAKE_INSTALL_MANDIR}/man1/repro.1 man)
  if(NOT man MATCHES "\\.TH REPRO" OR NOT man MATCHES "expect\\\\-driver")
    message(FATAL_ERROR "the man page is not help2man's rendering of --help")
  endif()
  foreach(section "EXIT STATUS" "ENVIRONMENT" "FILES" "SEE ALSO" "BUGS")
    if(NOT man MATCHES "\n\\.SH \"?${section}\"?\n")
      message(FATAL_ERROR "the man page has no ${section} section")
    endif()
  endforeach()
  # Every variable the sources read with getenv("NAME") is in ENVIRONMENT.
  string(REGEX REPLACE ".*\n\\.SH ENVIRONMENT\n" "" environment "${man}")
  string(REGEX REPLACE "\n\\.SH .*" "" environment "${environment}")
  file(GLOB_RECURSE sources ${SOURCE_DIR}/src/*.cpp)
  foreach(source IN LISTS sources)
    file(STRINGS ${source} reads REGEX "getenv\\(\"[A-Z_]+\"\\)")
    foreach(line IN LISTS reads)
      string(REGEX MATCHALL "getenv\\(\"[A-Z_]+\"\\)" calls "${line}")
      foreach(call IN LISTS calls)
        string(REGEX REPLACE "getenv\\(\"([A-Z_]+)\"\\)" "\\1" variable "${call}")
        if(NOT environment MATCHES "(^|[^A-Z_]|\\\\fB)${variable}([^A-Z_]|$)")  # "\\fB": roff's bold
          message(FATAL_ERROR "the man page's ENVIRONMENT does not name ${variable} (read in ${source})")
        endif()
      endforeach()
    endforeach()
  endforeach()
  # The build machine's versions: repro --version's lines after the first, and its commit.
  execute_process(COMMAND ${repro} --version OUTPUT_VARIABLE version RESULT_VARIABLE rc)
  string(REGEX MATCH "built with: [^,\n]+" compiler "${version}")
  string(REGEX REPLACE "^built with: " "" compiler "${compiler}")
  string(REGEX MATCH "glibc: [^\n]+" glibc "${version}")
  foreach(text "built with:" "glibc:" "Vulkan loader:" "${compiler}" "${glibc}")
    string(REPLACE "-" "\\-" roff_text "${text}")
    string(FIND "${man}" "${text}" at)
    string(FIND "${man}" "${roff_text}" roff_at)
    if(text AND (at GREATER -1 OR roff_at GREATER -1))
      message(FATAL_ERROR "the man page names the build machine's '${text}' (repro --version: ${version})")
    endif()
  endforeach()
  string(REGEX MATCH "\\(git [^)]+\\)" commit "${version}")
  string(REGEX REPLACE "^\\(git (.+)\\)$" "\\1" commit "${commit}")
  string(REPLACE "-" "\\-" roff_commit "${commit}")
  string(FIND "${man}" "${roff_commit}" at)
  string(FIND "${man}" "${commit}" at_plain)
  if(commit AND (at GREATER -1 OR at_plain GREATER -1))
    message(FATAL_ERROR "the man page names the commit it was built from (${commit})")
  endif()
endif()

# Every long option --help lists (its option headings: "  -n, --chain N", "      --mode MODE").
execute_process(COMMAND ${repro} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed repro --help failed (${rc})")
endif()
file(READ ${PREFIX}/${CMAKE_INSTALL_DATADIR}/bash-completion/completions/repro completion)
string(REGEX MATCHALL "\n  (-[a-zA-Z], |    )--[a-z][a-z0-9_-]*" headings "${help}")
list(LENGTH headings count)
if(count LESS 30)
  message(FATAL_ERROR "found only ${count} options in --help")
endif()
foreach(h IN LISTS headings)
  string(REGEX REPLACE ".*(--[a-z0-9_-]+)$" "\\1" option "${h}")
  if(NOT completion MATCHES "[ '|]${option}[ '|)]")
    message(FATAL_ERROR "the installed bash completion does not offer ${option}")
  endif()
endforeach()
message(STATUS "installed and complete: ${count} options in the completion")
