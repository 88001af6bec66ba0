// --help and the bash completion script, both rendered from the option table.
#include "cli/help.hpp"

#include <gnu/libc-version.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "cli/option_table.hpp"
#include "core/text.hpp"
#include "core/exit_status.hpp"
#include "core/output.hpp"
#include "repro_version.h"

namespace repro {
namespace {

constexpr std::string_view kSummary =
    "Reproduces a GPU-driver synchronization bug (blade issue #356): a chain of N conv-T + "
    "slice compute dispatches, recorded in three ways that the Vulkan spec calls equivalent, "
    "then checked, with a verdict in words and in the exit status.";

// The notes --help and docs/options.md add after the exit-status table's own
// (core/exit_status.hpp exitStatusNotes).
constexpr std::string_view kHelpExitNotes[] = {
    "--matrix: the same statuses over its valid variants only (the two --barrier controls and "
    "--profile blade-exact are reported, never counted). --driver-env-sweep: the status of the "
    "run without a driver setting. --profile blade-exact: 125 when split is wrong too (its "
    "params descriptor mismatch is undefined behaviour).",
    "Where blade's stream is invalid Vulkan, the default takes the nearest valid form: params is "
    "a read-only storage block (blade binds a Uniform block through a STORAGE_BUFFER "
    "descriptor), and the last command buffer of each mode ends with a barrier to HOST_READ "
    "before the host reads small[N] (blade has none).",
};

struct Example {
    std::string_view command, comment;
};

constexpr Example kExamples[] = {
    {"repro --mode multipass -n 7", "the original report's failing case"},
    {"N=6 repro --mode single", "the hang case; split runs after it as the reference"},
    {"repro --preset small -n 3 --validation", "quick, and validation-clean on any conformant driver"},
    {"repro --triage -n 7", "tests each hypothesis in child processes and concludes"},
    {"repro --print-stream --mode single -n 2", "the calls single records, one per line, without running them"},
    {"git bisect run ~/src/repro/scripts/mesa-bisect-step -- --mode multipass -n 7 --expect-driver radv",
     "in a Mesa checkout: builds each revision (a failed build is 125) and runs repro on that "
     "build's driver only (docs/bisect.md)"},
    {"repro --list-devices", "every device, and whether it can run the repro"},
    {"repro --merge-reports --format markdown a.json b.json",
     "one table of the reports of many machines, for an issue"},
};

// wrapWords (core/text.hpp) appended to `out`, the blanks at its end dropped, and a '\n'.
void appendWrapped(std::string& out, std::string first, std::string_view text, size_t indent, size_t width) {
    std::string lines = wrapWords(std::move(first), text, indent, width);
    out += lines.erase(lines.find_last_not_of(' ') + 1) + "\n";
}

// "  -n, --chain N" or "      --mode MODE" (long options line up after the short ones).
std::string heading(const OptionSpec& spec) {
    std::string h = spec.shortName != 0 ? std::string("  -") + spec.shortName + ", " : "      ";
    h += spec.longName;
    if (!spec.placeholder.empty()) h += " " + std::string(spec.placeholder);
    return h;
}

// The column descriptions start at: after the longest heading, at most 30.
size_t descriptionColumn() {
    size_t longest = 0;
    for (const OptionSpec* spec : allOptions()) {
        if (!spec->hidden) longest = std::max(longest, heading(*spec).size());
    }
    return std::min<size_t>(longest + 2, 30);
}

void appendSection(std::string& out, const OptionSection& section, size_t column, size_t width) {
    out += "\n" + std::string(section.title) + ":\n";
    if (!section.note.empty()) appendWrapped(out, "  ", section.note, 2, width);
    for (const OptionSpec& spec : section.options) {
        if (spec.hidden) continue;
        std::string text(spec.help);
        if (!spec.defaultText.empty()) text += " (default: " + std::string(spec.defaultText) + ")";
        std::string first = heading(spec);
        if (first.size() + 2 > column) {  // too long to share a line with its description
            out += first + "\n";
            first.clear();
        }
        first.resize(column, ' ');
        appendWrapped(out, std::move(first), text, column, width);
    }
}

void appendExitStatus(std::string& out, size_t width) {
    out += "\n";
    appendWrapped(out, "", "Exit status:", 0, width);
    constexpr size_t column = 12;  // "  130, 143  "
    for (const ExitStatusRow& row : exitStatusTable()) {
        std::string first = "  " + std::string(row.status);
        first.resize(column, ' ');
        appendWrapped(out, std::move(first), row.meaning, column, width);
    }
    // Every note after the exit-status table, the table's own first.
    std::vector<std::string_view> notes(exitStatusNotes().begin(), exitStatusNotes().end());
    notes.insert(notes.end(), std::begin(kHelpExitNotes), std::end(kHelpExitNotes));
    for (size_t i = 0; i < notes.size(); ++i) {
        if (i > 0) out += "\n";  // the first, the precedence, stays with the table
        appendWrapped(out, "", notes[i], 0, width);
    }
}

// A command too long for a line is continued on the next with a backslash, as a shell
// reads it (inside single quotes too, since sh -c reads the backslash-newline again).
void appendCommand(std::string& out, std::string_view command, size_t width) {
    constexpr size_t indent = 2, continued = 6;
    if (indent + command.size() <= width) {
        out += std::string(indent, ' ') + std::string(command) + "\n";
        return;
    }
    std::string wrapped;
    appendWrapped(wrapped, std::string(indent, ' '), command, continued, width - 2);
    wrapped.pop_back();  // the last '\n'
    for (size_t at = wrapped.find('\n'); at != std::string::npos; at = wrapped.find('\n', at + 3)) {
        wrapped.insert(at, " \\");
    }
    out += wrapped + "\n";
}

void appendExamples(std::string& out, size_t width) {
    out += "\nExamples:\n";
    for (const Example& e : kExamples) {
        appendCommand(out, e.command, width);
        appendWrapped(out, std::string(6, ' '), e.comment, 6, width);
    }
}

// -h: the options most runs use, each with a one-line text (the full one is --help's).
struct CommonOption {
    std::string_view longName, text;
};

constexpr CommonOption kCommonOptions[] = {
    {"--chain", "steps of conv-T + slice (default 6, or N=...)"},
    {"--mode", "split, multipass, single or all (default all)"},
    {"--preset", "spectrostream (default); small, tiny: quick"},
    {"--expect-driver", "exit 125 unless the loader gave this driver"},
    {"--format", "text, markdown (for a Mesa issue) or json"},
    {"--triage", "test each hypothesis in a child process, conclude"},
    {"--print-stream", "print the calls a mode records, run nothing"},
    {"--merge-reports", "one table from the JSON reports of many machines"},
    {"--verbose", "the full header (-q: results and verdict only)"},
};

constexpr std::string_view kShortExits =
    "Exit status: 0 not reproduced, 2 reproduced, 3 GPU hang or driver crash, 125 cannot test "
    "here, 1 usage error, 4 validation messages, 130/143 interrupted.";

// The names an option is written as: "-n" (if it has a short form) and "--chain".
std::vector<std::string> spellings(const OptionSpec& spec) {
    std::vector<std::string> names;
    if (spec.shortName != 0) names.push_back(std::string{'-', spec.shortName});
    names.emplace_back(spec.longName);
    return names;
}

// One `case` arm of the completion function for an option that takes a value.
std::string completionCase(const OptionSpec& spec) {
    std::string action;
    switch (spec.completion) {
        case ValueCompletion::Choices: {
            std::vector<std::string> words(spec.choices.begin(), spec.choices.end());
            action = "mapfile -t COMPREPLY < <(compgen -W '" + join(words, " ") + "' -- \"$cur\")";
            break;
        }
        case ValueCompletion::File:
            action = "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")";
            break;
        case ValueCompletion::Directory:
            action = "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- \"$cur\")";
            break;
        case ValueCompletion::None:
            action = "COMPREPLY=()";  // a number or a name: nothing to offer
            break;
    }
    return "        " + join(spellings(spec), "|") + ")\n            " + action + "\n            return ;;\n";
}

std::string cell(std::string_view text) {
    std::string out;
    for (const char c : text) out += c == '|' ? "\\|" : std::string(1, c);
    return out;
}

void appendMarkdownSection(std::string& out, const OptionSection& section) {
    out += "\n## " + std::string(section.title) + "\n\n";
    if (!section.note.empty()) out += std::string(section.note) + "\n\n";
    out += "| option | default | meaning |\n|---|---|---|\n";
    for (const OptionSpec& spec : section.options) {
        if (spec.hidden) continue;
        std::string name = spec.shortName != 0 ? std::string("`-") + spec.shortName + "`, " : "";
        name += "`" + std::string(spec.longName) + (spec.placeholder.empty() ? "" : " ") +
                std::string(spec.placeholder) + "`";
        std::string meaning(spec.help);
        if (!spec.choices.empty()) {
            std::vector<std::string> words;
            for (const std::string_view c : spec.choices) words.push_back("`" + std::string(c) + "`");
            meaning += (spec.onlyChoices ? "; one of " : "; or one of ") + join(words, ", ");
        }
        out += "| " + cell(name) + " | " + cell(spec.defaultText) + " | " + cell(meaning) + " |\n";
    }
}

// `text` with each option in it ("--invert", "-o", after an opening parenthesis or before
// punctuation) passed through `option`, and every other character through `other`.
template <typename Option, typename Other>
std::string markOptions(std::string_view text, Option option, Other other) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const bool wordStart = i == 0 || text[i - 1] == ' ' || text[i - 1] == '(';
        const bool dash = text[i] == '-' && i + 1 < text.size();
        const bool letter = dash && (std::islower(static_cast<unsigned char>(text[i + 1])) != 0 || text[i + 1] == '-');
        if (wordStart && letter) {
            size_t end = i + 1;
            while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) != 0 || text[end] == '-'))
                ++end;
            out += option(text.substr(i, end - i));
            i = end;
        } else {
            out += other(text[i++]);
        }
    }
    return out;
}

std::string markdownCell(std::string_view text) {
    return markOptions(
        text, [](std::string_view o) { return "`" + std::string(o) + "`"; },
        [](char c) { return c == '|' ? std::string("\\|") : std::string(1, c); });
}

// roff text: '-' and '\\' escaped, options in bold; a line never starts with '.' or '\''.
std::string roffText(std::string_view text) {
    const auto escapeChar = [](char c) {
        return c == '-' ? std::string("\\-") : c == '\\' ? std::string("\\e") : std::string(1, c);
    };
    const std::string out = markOptions(
        text,
        [&](std::string_view o) {
            std::string bold = "\\fB";
            for (const char c : o) bold += escapeChar(c);
            return bold + "\\fR";
        },
        escapeChar);
    return out.starts_with('.') || out.starts_with('\'') ? "\\&" + out : out;
}

// The compiler, from its predefined macros (GCC: __VERSION__ "12.2.0"; Clang's __VERSION__
// starts with "Clang", so it is checked first).
std::string compilerText() {
#if defined(__clang__)
    return fmt::format("Clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
    return fmt::format("GCC {}", __VERSION__);
#else
    return "unknown compiler";
#endif
}

}  // namespace

std::string renderShortHelp() {
    constexpr size_t width = 80, column = 30;
    std::string out = "Usage: repro [OPTION]...   (--help: every option, the exit statuses in full)\n";
    appendWrapped(out, "",
                  "Runs blade issue #356's conv-T + slice chain recorded three equivalent ways and says whether the "
                  "driver got it wrong.",
                  0, width);
    out += "\nMost used options:\n";
    for (const CommonOption& common : kCommonOptions) {
        const OptionSpec* spec = findLongOption(common.longName);
        std::string first = spec != nullptr ? heading(*spec) : "  " + std::string(common.longName);
        first.resize(std::max(column, first.size() + 1), ' ');
        out += first + std::string(common.text) + "\n";
    }
    out += "\n";
    appendWrapped(out, "", kShortExits, 0, width);
    out += "\nExamples:\n";
    appendCommand(out, fmt::format("{}   # {}", kExamples[0].command, kExamples[0].comment), width);
    appendCommand(out, kExamples[5].command, width);  // the bisect
    return out;
}

int terminalColumns(int fd) {
    winsize size{};
    return ::isatty(fd) == 1 && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0 ? size.ws_col : 80;
}

int helpColumns() { return std::clamp(terminalColumns(STDOUT_FILENO), kMinHelpColumns, kMaxHelpColumns); }

std::string renderHelp(int columns) {
    const auto width = static_cast<size_t>(std::clamp(columns, kMinHelpColumns, kMaxHelpColumns));
    std::string out = "Usage: repro [OPTION]...\n\n";
    appendWrapped(out, "", kSummary, 0, width);
    const size_t column = descriptionColumn();
    for (const OptionSection& section : optionTable()) appendSection(out, section, column, width);
    appendExitStatus(out, width);
    appendExamples(out, width);
    return out;
}

std::string renderBashCompletion() {
    std::string cases;
    std::vector<std::string> options;
    for (const OptionSpec* spec : allOptions()) {
        if (spec->hidden) continue;
        for (std::string& name : spellings(*spec)) options.push_back(std::move(name));
        // A value, or the files that follow --merge-reports.
        if (spec->value != nullptr || spec->completion != ValueCompletion::None) cases += completionCase(*spec);
    }
    return "# bash completion for repro, generated by `repro --bash-completion` from its option "
           "table.\n"
           "_repro() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=\n"
           "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
           "    # --option=value: bash splits the word at '=' (it is in COMP_WORDBREAKS).\n"
           "    if [[ $cur == = ]]; then\n"
           "        cur=\n"
           "    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then\n"
           "        prev=${COMP_WORDS[COMP_CWORD-2]}\n"
           "    fi\n"
           "    case $prev in\n" +
           cases +
           "    esac\n"
           "    mapfile -t COMPREPLY < <(compgen -W '" +
           join(options, " ") +
           "' -- \"$cur\")\n"
           "}\n"
           "complete -F _repro repro\n";
}

std::string renderExitStatusMarkdown() {
    std::string out = "| status | meaning |\n|---|---|\n";
    for (const ExitStatusRow& row : exitStatusTable())
        out += "| " + std::string(row.status) + " | " + markdownCell(row.meaning) + " |\n";
    out += "\n";
    for (size_t i = 0; i < exitStatusNotes().size(); ++i)
        out += (i > 0 ? "\n" : "") + markdownCell(exitStatusNotes()[i]) + "\n";
    return out;
}

std::string renderExitStatusRoff() {
    std::string out;
    for (const ExitStatusRow& row : exitStatusTable())
        out += ".TP\n.B " + roffText(row.status) + "\n" + roffText(row.meaning) + "\n";
    for (const std::string_view note : exitStatusNotes()) out += ".PP\n" + roffText(note) + "\n";
    return out;
}

std::string renderOptionsMarkdown() {
    std::string out;
    for (const OptionSection& section : optionTable()) appendMarkdownSection(out, section);
    out += "\n## Exit status\n\n" + renderExitStatusMarkdown() + "\n";
    for (const std::string_view note : kHelpExitNotes) out += cell(note) + "\n\n";
    out += "## Examples\n\n```sh\n";
    for (const Example& e : kExamples) out += "# " + std::string(e.comment) + "\n" + std::string(e.command) + "\n";
    out += "```\n";
    return out;
}

std::string versionText(const std::optional<std::string>& loaderVersion) {
    std::string out = fmt::format("repro {} (git {})\n", kReproVersion, kReproGitHash);
    if (loaderVersion) out += fmt::format("Vulkan loader: {}\n", *loaderVersion);
    out += fmt::format("built with: {}, C++ {}\n", compilerText(), __cplusplus);
    out +=
        fmt::format("glibc: {} at run time, built against {}.{}\n", gnu_get_libc_version(), __GLIBC__, __GLIBC_MINOR__);
    return out;
}

}  // namespace repro
