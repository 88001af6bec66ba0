// The command line in the documents (see command_line.hpp).
#include "report/command_line.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>
#include <system_error>

#include "cli/option_table.hpp"

namespace repro {
namespace {

// `folder` without trailing slashes; "" when it cannot shorten anything ("", "/", relative).
std::string_view usableFolder(std::string_view folder) {
    while (folder.size() > 1 && folder.back() == '/') folder.remove_suffix(1);
    return folder.size() > 1 && folder.front() == '/' ? folder : std::string_view();
}

// The part of `path` after `folder` when `path` is `folder` or below it ("" for the folder
// itself); nullopt otherwise.
std::optional<std::string_view> below(std::string_view path, std::string_view folder) {
    if (folder.empty() || !path.starts_with(folder)) return std::nullopt;
    if (path.size() == folder.size()) return std::string_view();
    if (path[folder.size()] != '/') return std::nullopt;
    std::string_view rest = path.substr(folder.size());
    while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    return rest;
}

// One absolute path as portableCommandLine writes it.
std::string portable(std::string_view path, const CommandLineContext& c) {
    if (const auto rest = below(path, usableFolder(c.cwd))) return rest->empty() ? "." : std::string(*rest);
    if (const auto rest = below(path, usableFolder(c.home))) return rest->empty() ? "~" : "~/" + std::string(*rest);
    return std::string(path);
}

// One word of the command line: a path, "--name=/path" or "-x/path" shortened.
std::string portableWord(const std::string& word, const CommandLineContext& c) {
    if (word.starts_with("/")) return portable(word, c);
    if (word.starts_with("--")) {
        const size_t eq = word.find('=');
        if (eq != std::string::npos && eq + 1 < word.size() && word[eq + 1] == '/')
            return word.substr(0, eq + 1) + portable(std::string_view(word).substr(eq + 1), c);
        return word;
    }
    if (word.size() > 2 && word[0] == '-' && word[2] == '/') return word.substr(0, 2) + portable(word.substr(2), c);
    return word;
}

// The options that only say where a run's output went: rerunArguments leaves them out.
// The capture options are matched by name whether or not this build's option table has
// them.
constexpr std::array<std::string_view, 8> kOutputOptions = {
    "--format", "--output", "--json", "--trace", "--dump-dir", "--keep-logs", "--capture-gfxr", "--capture-rgp"};

// The options scenarioRerunArguments leaves out besides kOutputOptions.
constexpr std::array<std::string_view, 9> kScenarioLeftOut = {"--scenario", "--device",        "--queue",
                                                              "--invert",   "--expect-driver", "--quiet",
                                                              "--verbose",  "--timings",       "--print-stream"};

template <size_t N>
bool among(const std::array<std::string_view, N>& names, std::string_view longName) {
    return std::find(names.begin(), names.end(), longName) != names.end();
}

}  // namespace

CommandLineContext currentCommandLineContext() {
    const char* home = std::getenv("HOME");
    std::error_code ec;
    const std::filesystem::path cwd = std::filesystem::current_path(ec);
    return {.home = home ? home : "", .cwd = ec ? std::string() : cwd.string()};
}

const OptionSpec* optionOf(const std::string& word, bool& inlineValue) {
    inlineValue = false;
    if (word.starts_with("--")) {
        const size_t eq = word.find('=');
        inlineValue = eq != std::string::npos;
        return findLongOption(std::string_view(word).substr(0, eq));
    }
    if (word.size() >= 2 && word[0] == '-') {
        const OptionSpec* spec = findShortOption(word[1]);
        inlineValue = spec && spec->value && word.size() > 2;
        // "-qv": a cluster of flags, kept as one word.
        return spec && (spec->value || word.size() == 2) ? spec : nullptr;
    }
    return nullptr;
}

std::vector<std::string> portableCommandLine(const std::vector<std::string>& argv, const CommandLineContext& c) {
    std::vector<std::string> out;
    out.reserve(argv.size());
    for (size_t i = 0; i < argv.size(); ++i) {
        if (i == 0) {
            std::string_view program = argv[0];
            while (program.size() > 1 && program.back() == '/') program.remove_suffix(1);
            const size_t slash = program.rfind('/');
            out.emplace_back(slash == std::string_view::npos ? program : program.substr(slash + 1));
        } else {
            out.push_back(portableWord(argv[i], c));
        }
    }
    return out;
}

namespace {

// The words of commandLine[1...] appended to `out`, without the options `drop` names (each
// with its value). A word "--name" or "--name=v" that the option table lacks is dropped when
// `drop` names it: such a run never wrote a report, unless a newer table has it.
template <typename Drop>
void keptWords(const std::vector<std::string>& commandLine, Drop drop, std::vector<std::string>& out) {
    for (size_t i = 1; i < commandLine.size(); ++i) {
        const std::string& word = commandLine[i];
        if (word == "--") {  // the rest are no options
            out.insert(out.end(), commandLine.begin() + static_cast<std::ptrdiff_t>(i), commandLine.end());
            break;
        }
        bool inlineValue = false;
        const OptionSpec* spec = optionOf(word, inlineValue);
        const bool separateValue = spec && spec->value && !inlineValue && i + 1 < commandLine.size();
        const std::string_view unknownName =
            !spec && word.starts_with("--") ? std::string_view(word).substr(0, word.find('=')) : std::string_view();
        if ((spec && drop(spec->longName)) || (!unknownName.empty() && drop(unknownName))) {
            if (separateValue) ++i;
            continue;
        }
        out.push_back(word);
        if (separateValue) out.push_back(commandLine[++i]);
    }
}

}  // namespace

std::vector<std::string> rerunArguments(const std::vector<std::string>& commandLine) {
    std::vector<std::string> out;
    if (commandLine.empty()) return out;
    out.push_back(commandLine.front());
    keptWords(
        commandLine, [](std::string_view name) { return among(kOutputOptions, name); }, out);
    return out;
}

std::vector<std::string> argsWithout(const std::vector<std::string>& commandLine,
                                     const std::function<bool(const OptionSpec&)>& drop) {
    std::vector<std::string> out;
    const auto dropName = [&](std::string_view name) {
        const OptionSpec* spec = findLongOption(name);
        return spec && drop(*spec);
    };
    keptWords(commandLine, dropName, out);
    return out;
}

std::string scenarioFileName(const std::string& file, const std::string& name) {
    const std::string base = std::filesystem::path(file).filename().string();
    return base.empty() ? (name.empty() ? std::string("scenario") : name) + ".toml" : base;
}

std::vector<std::string> scenarioRerunArguments(const std::vector<std::string>& commandLine, const std::string& file,
                                                const std::string& name) {
    std::vector<std::string> out = {"repro", "--scenario", scenarioFileName(file, name)};
    keptWords(
        commandLine,
        [](std::string_view option) { return among(kOutputOptions, option) || among(kScenarioLeftOut, option); }, out);
    return out;
}

}  // namespace repro
