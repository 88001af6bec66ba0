// What repro prints about itself: --help rendered from the option table (option_table.hpp)
// and wrapped to a width, the exit-status table, and a bash completion script generated
// from the same table.
#pragma once

#include <string>

namespace repro {

// The narrowest and widest --help is wrapped to, in columns.
inline constexpr int kMinHelpColumns = 60;
inline constexpr int kMaxHelpColumns = 200;

// The width for --help: stdout's terminal width (ioctl TIOCGWINSZ) when stdout is a
// terminal that reports one, else 80; clamped to [kMinHelpColumns, kMaxHelpColumns].
int helpColumns();

// The full --help text: usage, every option that is not hidden with its placeholder and
// its default in words, grouped as the table is, then the exit statuses and examples.
// Every line is at most `columns` characters (clamped as above), ASCII, and ends in '\n'.
std::string renderHelp(int columns);

// A bash script that defines completion for `repro`: every option that is not hidden, long
// and short, the choices of options that have them, and file or directory names after the
// options that take a FILE or a DIR. Source it, or install it as
// share/bash-completion/completions/repro.
std::string renderBashCompletion();

}  // namespace repro
