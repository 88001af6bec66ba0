// What repro prints about itself: --help rendered from the option table (option_table.hpp)
// and wrapped to a width, the exit-status table, and a bash completion script generated
// from the same table.
#pragma once

#include <optional>
#include <string>

namespace repro {

// The narrowest and widest --help is wrapped to, in columns.
inline constexpr int kMinHelpColumns = 60;
inline constexpr int kMaxHelpColumns = 200;

// The width of the terminal on file descriptor `fd` (ioctl TIOCGWINSZ), or 80 when `fd` is
// no terminal or the terminal reports none.
int terminalColumns(int fd);

// The width for --help: stdout's terminalColumns, clamped to [kMinHelpColumns, kMaxHelpColumns].
int helpColumns();

// The full --help text: usage, every option that is not hidden with its placeholder and
// its default in words, grouped as the table is, then the exit statuses and examples.
// Every line is at most `columns` characters (clamped as above), ASCII, and ends in '\n'.
std::string renderHelp(int columns);

// -h: one screen (at most 24 lines of at most 80 columns): usage, the most used options
// (each must be in the option table), the exit statuses in one sentence, two examples
// (a run and the safe bisect form). --help is the complete text.
std::string renderShortHelp();

// A bash script that defines completion for `repro`: every option that is not hidden, long
// and short, the choices of options that have them, and file or directory names after the
// options that take a FILE or a DIR. Source it, or install it as
// share/bash-completion/completions/repro.
std::string renderBashCompletion();

// docs/options.md's generated part: one Markdown table per section of the option table
// (option with its short form and placeholder, default, meaning, the choices), then the exit
// statuses, the notes and the examples of --help. '|' in a text is escaped as "\|".
std::string renderOptionsMarkdown();

// The exit-status table (core/exit_status.hpp) and its notes as Markdown, options as code
// spans and '|' escaped: the block README.md, docs/contract.md and docs/options.md hold.
std::string renderExitStatusMarkdown();

// The same as man-page roff for help2man's [EXIT STATUS] section (cmake/repro.h2m): a
// ".TP" paragraph per status, a ".PP" per note, options in bold, '-' as "\-".
std::string renderExitStatusRoff();

// --version: repro's version and the git commit it was built from (generated at build time by
// cmake/WriteVersion.cmake: "unknown" without git, "-dirty" with uncommitted changes), the
// Vulkan loader's version (`loaderVersion`, e.g. "1.3.239" or "no loader (...)"; nullopt:
// the line is left out), the compiler that built it, and glibc's version at run time
// (gnu_get_libc_version) and at build time (__GLIBC__.__GLIBC_MINOR__), so that a binary
// carried to another machine says what it was built with and needs. Lines end in '\n'.
std::string versionText(const std::optional<std::string>& loaderVersion);

}  // namespace repro
