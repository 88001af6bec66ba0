// Unit tests for src/core/help.{hpp,cpp} and the option table it renders: --help fits the
// width it is given, names every option with a real placeholder and its default in words,
// carries no CLI11 artefacts, and the bash completion offers every option and choice.
#include "cli/help.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/option_table.hpp"
#include "cli/options.hpp"
#include "core/exit_status.hpp"
#include "core/shape.hpp"
#include "core/variant.hpp"

namespace repro {
namespace {

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

size_t longestLine(const std::string& text) {
    size_t longest = 0;
    for (const std::string& line : lines(text)) longest = std::max(longest, line.size());
    return longest;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// `text` with every run of spaces and newlines made one space: sentences as they read,
// wherever the wrapping broke them.
std::string flowed(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const bool space = c == ' ' || c == '\n';
        if (!(space && !out.empty() && out.back() == ' ')) out += space ? ' ' : c;
    }
    return out;
}

std::vector<const OptionSpec*> allOptions() {
    std::vector<const OptionSpec*> out;
    for (const OptionSection& section : optionTable()) {
        for (const OptionSpec& spec : section.options) out.push_back(&spec);
    }
    return out;
}

// ---- the table ---------------------------------------------------------------------------

TEST(OptionTable, EveryOptionIsAFlagOrTakesAValueWithAPlaceholder) {
    std::set<std::string_view> names;
    for (const OptionSpec* spec : allOptions()) {
        SCOPED_TRACE(spec->longName);
        EXPECT_TRUE(spec->longName.starts_with("--"));
        EXPECT_TRUE(names.insert(spec->longName).second) << "twice in the table";
        EXPECT_NE(spec->value == nullptr, spec->flag == nullptr);
        EXPECT_EQ(spec->placeholder.empty(), spec->value == nullptr);
        EXPECT_FALSE(spec->help.empty());
        EXPECT_EQ(findLongOption(spec->longName), spec);
        if (spec->shortName != 0) {
            EXPECT_EQ(findShortOption(spec->shortName), spec);
        }
        EXPECT_EQ(spec->completion == ValueCompletion::Choices, !spec->choices.empty());
        if (spec->placeholder == "FILE") {
            EXPECT_EQ(spec->completion, ValueCompletion::File);
        }
        if (spec->placeholder == "DIR") {
            EXPECT_EQ(spec->completion, ValueCompletion::Directory);
        }
    }
    EXPECT_EQ(findLongOption("--frobnicate"), nullptr);
    EXPECT_EQ(findShortOption('x'), nullptr);
    EXPECT_EQ(findShortOption(0), nullptr);
}

TEST(OptionTable, EveryChoiceIsNamedInItsHelpAndParsesToItsValue) {
    for (const OptionSpec* spec : allOptions()) {
        for (const std::string_view choice : spec->choices) {
            SCOPED_TRACE(std::string(spec->longName) + " " + std::string(choice));
            EXPECT_TRUE(contains(std::string(spec->help), choice));
        }
    }
    // The table's words are the parsers' words.
    for (const std::string_view c : findLongOption("--barrier")->choices) EXPECT_TRUE(parseBarrier(c)) << c;
    for (const std::string_view c : findLongOption("--memory")->choices) EXPECT_TRUE(parseBufferMemory(c)) << c;
    for (const std::string_view c : findLongOption("--profile")->choices) EXPECT_TRUE(parseProfile(c)) << c;
    for (const std::string_view c : findLongOption("--mode")->choices) EXPECT_TRUE(parseModes(c)) << c;
    EXPECT_EQ(findLongOption("--preset")->choices, presetNames());
}

TEST(OptionTable, LabelsNameShortFormsOfValueOptions) {
    EXPECT_EQ(optionLabel(*findLongOption("--chain")), "-n/--chain");
    EXPECT_EQ(optionLabel(*findLongOption("--output")), "-o/--output");
    EXPECT_EQ(optionLabel(*findLongOption("--timeout")), "--timeout");
    EXPECT_EQ(optionLabel(*findLongOption("--verbose")), "--verbose");
}

// ---- --help ------------------------------------------------------------------------------

TEST(Help, EveryLineFitsTheWidth) {
    for (const int width : {60, 72, 80, 100, 132, 200}) {
        SCOPED_TRACE(width);
        const std::string help = renderHelp(width);
        for (const std::string& line : lines(help)) {
            EXPECT_LE(line.size(), static_cast<size_t>(width)) << line;
            EXPECT_FALSE(line.ends_with(" ")) << "trailing space: " << line;
        }
        EXPECT_TRUE(help.ends_with("\n"));
    }
}

TEST(Help, TheWidthIsUsed) {
    // Wider terminals get longer lines; the same words either way.
    EXPECT_GT(longestLine(renderHelp(120)), 80u);
    EXPECT_GT(longestLine(renderHelp(200)), 120u);
    EXPECT_LT(lines(renderHelp(200)).size(), lines(renderHelp(80)).size());
    EXPECT_LT(lines(renderHelp(80)).size(), lines(renderHelp(60)).size());
    const auto words = [](const std::string& text) {
        std::istringstream in(text);
        std::vector<std::string> out;
        for (std::string w; in >> w;) out.push_back(w == "\\" ? "" : w);  // command continuations
        out.erase(std::remove(out.begin(), out.end(), ""), out.end());
        return out;
    };
    EXPECT_EQ(words(renderHelp(60)), words(renderHelp(200)));
}

TEST(Help, WidthIsClampedToSixtyAndTwoHundred) {
    EXPECT_EQ(renderHelp(10), renderHelp(60));
    EXPECT_EQ(renderHelp(-1), renderHelp(60));
    EXPECT_EQ(renderHelp(1000), renderHelp(200));
    const int columns = helpColumns();  // the test's stdout: a terminal or not
    EXPECT_GE(columns, kMinHelpColumns);
    EXPECT_LE(columns, kMaxHelpColumns);
}

TEST(Help, NoCli11ArtefactsAndOnlyAscii) {
    const std::string help = renderHelp(80);
    for (const char* artefact :
         {R"(\bTEXT\b)", R"(\bINT\b)", R"(\bUINT\b)", R"(\bFLOAT\b)", R"(\bENUM\b)", R"(\{false\})", R"(\{true\})",
          R"(Excludes:)", R"(Needs:)", R"(\[[0-9]+\])", R"(REQUIRED)", R"(OPTIONS:)", R"(,--)"}) {
        EXPECT_FALSE(std::regex_search(help, std::regex(artefact))) << artefact;
    }
    for (const char c : help) {
        const auto byte = static_cast<unsigned char>(c);
        EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7f)) << int{byte};
    }
}

TEST(Help, EveryOptionOfTheTableWithItsPlaceholder) {
    const std::string help = renderHelp(80);
    for (const OptionSpec* spec : allOptions()) {
        SCOPED_TRACE(spec->longName);
        std::string heading(spec->longName);
        if (!spec->placeholder.empty()) heading += " " + std::string(spec->placeholder);
        const std::string shortForm = spec->shortName != 0 ? std::string{'-', spec->shortName} + ", " : "";
        EXPECT_EQ(contains(help, "  " + shortForm + heading), !spec->hidden) << help;
        if (!spec->defaultText.empty()) {
            EXPECT_TRUE(contains(flowed(help), "(default: " + std::string(spec->defaultText) + ")"));
        }
    }
    EXPECT_FALSE(contains(help, "--bash-completion"));
    for (const char* placeholder : {"FILE", "DIR", " N", " K", " R", "A..B", "SECONDS", "MS", "MIB", "KIND", "NAME",
                                    "INDEX|NAME", "PLACE", "PROFILE", "MODE", "PRESET", "FORMAT", "REF"}) {
        EXPECT_TRUE(contains(help, placeholder)) << placeholder;
    }
}

TEST(Help, SectionsInTheirOrder) {
    const std::string help = renderHelp(80);
    size_t at = 0;
    for (const char* title :
         {"Usage: repro [OPTION]...", "\nChain and shape:\n", "\nDevice:\n", "\nRun and reference:\n", "\nReport:\n",
          "\nExperiments:\n", "\nMulti-run:\n", "\nScenarios:\n", "\nGeneral:\n", "\nExit status", "\nExamples:\n"}) {
        const size_t found = help.find(title, at);
        ASSERT_NE(found, std::string::npos) << title;
        at = found;
    }
}

TEST(Help, ExitStatusTable) {
    const std::string help = renderHelp(200);
    const std::string text = flowed(help);
    for (const char* row : {"\n  0         ran; no mode was wrong", "\n  1         usage error",
                            "\n  2         reproduced", "\n  3         GPU hang", "\n  4         with --validation",
                            "\n  125       cannot test here", "\n  130, 143  interrupted"}) {
        EXPECT_TRUE(contains(help, row)) << row;
    }
    // Every row and note of the one table (core/exit_status.hpp), in its order.
    size_t at = text.find("Exit status:");
    ASSERT_NE(at, std::string::npos) << text;
    for (const ExitStatusRow& row : exitStatusTable()) {
        const size_t found = text.find(std::string(row.meaning), at);
        EXPECT_NE(found, std::string::npos) << row.status;
        at = found == std::string::npos ? at : found;
    }
    for (const std::string_view note : exitStatusNotes()) EXPECT_TRUE(contains(text, note)) << note;
    EXPECT_TRUE(
        contains(text, "a driver that crashed, aborted or stalled before the first submit of the modes under test"));
    EXPECT_TRUE(contains(text, "the driver crashed or stalled during the modes' submits, waits or readback"));
    EXPECT_TRUE(contains(text,
                         "--invert bisects a fix: a reproduction (2) exits 0, no reproduction (0) exits 1, a usage "
                         "error exits 125 (never 1), and every other status is unchanged"));
    EXPECT_TRUE(contains(text, "git bisect start --term-old broken --term-new fixed FIXED BROKEN"));
    EXPECT_TRUE(contains(text, "Precedence when several apply: 3, 2, 125, 4, 0."));
}

// The exit-status table's copies outside the binary, each between its markers, equal what
// core/exit_status.hpp renders to. Regenerate them with
// REPRO_UPDATE_EXIT_STATUS=1 build/dev/tests/repro_unit_tests --gtest_filter=ExitStatusDoc.*
void expectGenerated(const std::string& relative, std::string_view begin, std::string_view end,
                     const std::string& expected) {
    const std::string path = std::string(REPRO_SOURCE_DIR) + "/" + relative;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const size_t from = doc.find(begin), to = doc.find(end);
    ASSERT_NE(from, std::string::npos) << relative << " has no begin marker";
    ASSERT_NE(to, std::string::npos) << relative << " has no end marker";
    ASSERT_LT(from, to);
    const size_t inside = from + begin.size();
    if (std::getenv("REPRO_UPDATE_EXIT_STATUS") != nullptr) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << doc.substr(0, inside) << expected << doc.substr(to);
        return;
    }
    EXPECT_EQ(doc.substr(inside, to - inside), expected) << relative << " is out of date; regenerate it (see above)";
}

TEST(ExitStatusDoc, ReadmeAndContractHoldTheTable) {
    constexpr std::string_view kBegin = "<!-- generated from src/core/exit_status.cpp: begin -->\n";
    constexpr std::string_view kEnd = "<!-- generated from src/core/exit_status.cpp: end -->\n";
    const std::string table = renderExitStatusMarkdown();
    EXPECT_TRUE(contains(table, "| 125 | cannot test here: ")) << table;
    EXPECT_TRUE(contains(table, "with `--invert` a usage error")) << table;
    expectGenerated("README.md", kBegin, kEnd, table);
    expectGenerated("docs/contract.md", kBegin, kEnd, table);
}

// README.md is the first page a driver developer reads: at most 1,500 words, counted as
// `wc -w` counts them (runs of characters between whitespace); detail goes to docs/.
TEST(ReadmeDoc, HasAtMost1500Words) {
    std::ifstream in(std::string(REPRO_SOURCE_DIR) + "/README.md", std::ios::binary);
    ASSERT_TRUE(in);
    size_t words = 0;
    for (std::string word; in >> word;) ++words;
    EXPECT_GT(words, 200u);  // the file was read
    EXPECT_LE(words, 1500u) << "README.md has " << words << " words; move detail to docs/";
}

TEST(ExitStatusDoc, TheManPageHoldsTheTable) {
    const std::string roff = renderExitStatusRoff();
    EXPECT_TRUE(contains(roff, ".TP\n.B 130, 143\ninterrupted by SIGINT")) << roff;
    EXPECT_TRUE(contains(roff, "\\fB\\-\\-invert\\fR bisects a fix")) << roff;
    expectGenerated("cmake/repro.h2m", ".\\\" generated from src/core/exit_status.cpp: begin\n",
                    ".\\\" generated from src/core/exit_status.cpp: end\n", roff);
}

TEST(Help, ExamplesComeLast) {
    const std::string help = renderHelp(80);
    const size_t examples = help.find("\nExamples:\n");
    ASSERT_NE(examples, std::string::npos);
    for (const char* command : {"\n  repro --mode multipass -n 7\n", "\n  N=6 repro --mode single\n",
                                "\n  repro --preset small -n 3 --validation\n", "\n  repro --triage -n 7\n",
                                "\n  repro --print-stream --mode single -n 2\n",
                                "\n  git bisect run ~/src/repro/scripts/mesa-bisect-step -- --mode multipass -n 7 \\\n"
                                "      --expect-driver radv\n",
                                "\n  repro --list-devices\n"}) {
        EXPECT_GT(help.find(command), examples) << command;
    }
}

TEST(Help, ACommandTooLongForTheLineIsContinuedWithABackslash) {
    const std::string help = renderHelp(60);
    EXPECT_TRUE(contains(help,
                         "\n  git bisect run ~/src/repro/scripts/mesa-bisect-step -- \\\n"
                         "      --mode multipass -n 7 --expect-driver radv\n"))
        << help;
}

// ---- bash completion ---------------------------------------------------------------------

TEST(BashCompletion, OffersEveryOptionAndChoice) {
    const std::string script = renderBashCompletion();
    const size_t list = script.rfind("compgen -W '");
    ASSERT_NE(list, std::string::npos);
    const std::string optionList = " " + script.substr(list + 12, script.find('\'', list + 12) - list - 12) + " ";
    for (const OptionSpec* spec : allOptions()) {
        SCOPED_TRACE(spec->longName);
        EXPECT_EQ(contains(optionList, " " + std::string(spec->longName) + " "), !spec->hidden);
        if (spec->shortName != 0) {
            EXPECT_TRUE(contains(optionList, std::string(" -") + spec->shortName + " "));
        }
        if (spec->value == nullptr) continue;
        // A `case` arm for every spelling that takes a value.
        std::string arm = spec->shortName != 0 ? std::string{'-', spec->shortName} + "|" : "";
        arm += std::string(spec->longName) + ")\n";
        const size_t at = script.find("        " + arm);
        ASSERT_NE(at, std::string::npos) << arm;
        const std::string action = script.substr(at, script.find(";;", at) - at);
        if (!spec->choices.empty()) {
            std::string words;
            for (const std::string_view choice : spec->choices)
                words += (words.empty() ? "" : " ") + std::string(choice);
            EXPECT_TRUE(contains(action, "compgen -W '" + words + "' -- \"$cur\"")) << action;
        }
        if (spec->completion == ValueCompletion::File) {
            EXPECT_TRUE(contains(action, "compgen -f")) << action;
        }
        if (spec->completion == ValueCompletion::Directory) {
            EXPECT_TRUE(contains(action, "compgen -d")) << action;
        }
        if (spec->completion == ValueCompletion::None) {
            EXPECT_TRUE(contains(action, "COMPREPLY=()")) << action;
        }
    }
    EXPECT_FALSE(contains(script, "--bash-completion "));
    EXPECT_TRUE(script.ends_with("complete -F _repro repro\n"));
}

// docs/options.md: the part between its markers is renderOptionsMarkdown(), so the options
// reference cannot drift from the table that the parser, --help and the completion use.
// Regenerate with REPRO_UPDATE_OPTIONS_DOC=1 build/dev/tests/repro_unit_tests --gtest_filter=OptionsDoc.*
TEST(OptionsDoc, MatchesTheOptionTable) {
    const std::string path = std::string(REPRO_SOURCE_DIR) + "/docs/options.md";
    constexpr std::string_view kBegin = "<!-- generated from src/cli/option_table.cpp: begin -->\n";
    constexpr std::string_view kEnd = "<!-- generated from src/cli/option_table.cpp: end -->\n";
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const size_t begin = doc.find(kBegin), end = doc.find(kEnd);
    ASSERT_NE(begin, std::string::npos) << path << " has no begin marker";
    ASSERT_NE(end, std::string::npos) << path << " has no end marker";
    ASSERT_LT(begin, end);
    const size_t from = begin + kBegin.size();
    const std::string expected = renderOptionsMarkdown();
    if (std::getenv("REPRO_UPDATE_OPTIONS_DOC") != nullptr) {
        std::ofstream(path, std::ios::binary | std::ios::trunc) << doc.substr(0, from) << expected << doc.substr(end);
        return;
    }
    EXPECT_EQ(doc.substr(from, end - from), expected) << path << " is out of date; regenerate it (see its header)";
    for (const OptionSection& section : optionTable()) {
        for (const OptionSpec& spec : section.options) {
            if (!spec.hidden) {
                EXPECT_TRUE(contains(doc, "`" + std::string(spec.longName))) << spec.longName;
            }
        }
    }
}

}  // namespace
}  // namespace repro
