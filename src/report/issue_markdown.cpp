// RADV's issue template for repro's Markdown documents (see issue_markdown.hpp).
#include "report/issue_markdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "forensics/environment.hpp"
#include "report/command_line.hpp"
#include "report/markdown.hpp"
#include "repro_version.h"

namespace repro {
namespace {

using markdown::codeBlock;
using markdown::codeSpan;
using markdown::details;
using markdown::escapeProse;
using markdown::escapeText;

// A word the shell reads back unchanged ('~' stays unquoted at the start: the reader's
// shell expands it to their home).
std::string shellQuote(const std::string& arg) {
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               std::string_view("_./=:,+-@%~").find(c) != std::string_view::npos;
    });
    if (plain) return arg;
    if (arg.starts_with("~/")) return "~/" + shellQuote(arg.substr(2));
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

bool usableHome(std::string_view home) { return home.size() > 1 && home.front() == '/'; }

std::string_view trimmedHome(std::string_view home) {
    while (home.size() > 1 && home.back() == '/') home.remove_suffix(1);
    return home;
}

// Whether `c` may continue a path word (so "/home/me2" is not "/home/me" followed by "2").
bool pathChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_.-+@%~").find(c) != std::string_view::npos;
}

// The option `arg` names when it takes a path (a File or Directory completion), and whether
// the path is inline ("--json=F", "-oF"); nullptr otherwise.
const OptionSpec* pathOption(const std::string& arg, bool& inlineValue) {
    const OptionSpec* spec = optionOf(arg, inlineValue);
    if (!spec || !spec->value) return nullptr;
    const bool path = spec->completion == ValueCompletion::File || spec->completion == ValueCompletion::Directory;
    return path ? spec : nullptr;
}

// One path value of the command line as the reader sees it.
std::string readerPath(const OptionSpec& spec, std::string_view value, std::string_view home) {
    if (spec.longName == "--dump-dir") return withoutHome(std::string(value), home);  // the user asked for it
    return portablePath(value, home);
}

// Step 1: where the source is and the commit to check out. A build with uncommitted changes
// ("-dirty") gets no checkout line: no commit reproduces that binary.
std::string sourceStep(const IssueFacts& f, const IssueContext& c) {
    const bool dirty = f.gitHash.ends_with("-dirty");
    const std::string commit = dirty ? f.gitHash.substr(0, f.gitHash.size() - 6) : f.gitHash;
    const bool knownCommit = !commit.empty() && commit != "unknown";
    const std::string at = !knownCommit ? std::string(" (commit not recorded)")
                           : dirty      ? " built from commit " + codeSpan(commit) + " with uncommitted changes"
                                        : " at commit " + codeSpan(commit);
    std::string out;
    if (c.sourceUrl.empty()) {
        out += fmt::format(
            "1. Get repro {}{}; this build recorded no source URL (configure it with `-DREPRO_SOURCE_URL=URL`, or "
            "set `REPRO_SOURCE_URL` when running).\n\n",
            escapeText(f.version), at);
    } else {
        out += fmt::format("1. Get repro {} from {}{}:\n\n", escapeText(f.version), codeSpan(c.sourceUrl), at);
        std::string clone = "git clone " + shellQuote(c.sourceUrl) + " repro && cd repro";
        if (knownCommit && !dirty) clone += " && git checkout " + commit;
        out += codeBlock(clone + "\n", "sh") + "\n";
    }
    if (dirty && knownCommit) {
        out +=
            "   No checkout reproduces this binary: its changes were never committed. Ask the reporter for "
            "them (`git diff " +
            commit + "`), or rerun with a build of a clean commit.\n\n";
    }
    return out;
}

std::string buildSteps(const IssueFacts& f, const IssueContext& c) {
    std::string out = sourceStep(f, c);
    out += "2. Build it (README.md, \"Build\"; the binary is `build/release/src/repro`):\n\n";
    out += codeBlock("cmake --preset release && cmake --build --preset release\n", "sh") + "\n";
    int step = 3;
    if (f.file) {
        const IssueFile& file = *f.file;
        out += fmt::format("{}. Save {} below as {} ({} bytes, SHA-256 {}):\n\n", step++, escapeText(file.what),
                           codeSpan(file.saveAs), file.bytes, codeSpan(file.sha256));
        std::string summary = fmt::format("{}: {}", file.what, file.saveAs);
        if (!summary.empty()) summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
        out += details(summary, codeBlock(file.text, file.language));
    }
    out += fmt::format("{}. Run, with `build/release/src/repro` as `repro`:\n\n", step);
    const std::vector<std::string> command = f.runArguments.empty() ? rerunArguments(f.commandLine) : f.runArguments;
    out += codeBlock(readerCommand(command, f.environment, c.home) + "\n", "sh") + "\n";
    return out;
}

std::string logFiles(const IssueFacts& f) {
    std::string out = "#### Log files\n\n";
    if (!f.kernelLog.empty()) {
        out += "The GPU driver's kernel log lines repro read during the run:\n\n";
        out += codeBlock(fmt::format("{}\n", fmt::join(f.kernelLog, "\n")), "text") + "\n";
    } else if (f.kernelLogRead) {
        out += "repro read the kernel log during the run: the GPU driver wrote no job timeout, reset or fault.\n\n";
    } else {
        out += escapeProse(f.kernelLogProblem.empty() ? "No GPU driver kernel log line came with this run's results"
                                                      : f.kernelLogProblem);
        // Without a hang's notes below (they say how to get them), how to get the lines.
        out += !f.hangNotes.empty() ? ".\n\n"
                                    : ". Get the lines of the run's time with `sudo dmesg -T` or `journalctl -k -b` "
                                      "(after a reboot: `journalctl -k -b -1`) and attach the GPU driver's.\n\n";
    }
    for (const auto& [title, items] :
         {std::pair{"Captures of this run", &f.captures}, std::pair{"Where this hang leaves evidence", &f.hangNotes}}) {
        if (items->empty()) continue;
        out += std::string(title) + ":\n\n" + markdown::bulletList(*items, /*prose=*/true) + "\n";
    }
    return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hostSystemInformation(const EnvironmentReport& e,
                                                                       std::string_view home) {
    const auto fact = [&](std::string_view key) {
        const std::string* value = factValue(e.host, key);
        return value ? *value : std::string("not captured");
    };
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("Distro", fact("os"));
    out.emplace_back("Kernel",
                     fmt::format("{} {} {}", fact("kernel.release"), fact("kernel.version"), fact("kernel.machine")));
    out.emplace_back("CPU", fact("cpu"));
    std::string vars;
    for (const auto& [k, v] : e.variables) vars += (vars.empty() ? "" : " ") + k + "=" + portablePathList(v, home);
    out.emplace_back("Driver environment variables", vars.empty() ? std::string("none set") : vars);
    return out;
}

std::string mesaVersion(std::string_view driverInfo) {
    const size_t at = driverInfo.find("Mesa ");
    if (at != std::string_view::npos) return std::string(driverInfo.substr(at));
    return fmt::format("not a Mesa driver (\"{}\")", driverInfo);
}

IssueContext currentIssueContext() {
    const CommandLineContext here = currentCommandLineContext();
    const char* url = std::getenv("REPRO_SOURCE_URL");
    return {.sourceUrl = url && *url ? url : kReproSourceUrl, .home = here.home, .cwd = here.cwd};
}

std::string portablePath(std::string_view path, std::string_view home) {
    if (path.empty() || path.front() != '/') return std::string(path);
    if (usableHome(home)) {
        const std::string_view h = trimmedHome(home);
        if (path == h) return "~";
        if (path.starts_with(h) && path.size() > h.size() && path[h.size()] == '/')
            return "~" + std::string(path.substr(h.size()));
    }
    static constexpr std::array kSystem{"/usr/",  "/etc/", "/lib",  "/opt/", "/sys/",
                                        "/proc/", "/dev/", "/run/", "/var/"};
    for (const char* prefix : kSystem) {
        if (path.starts_with(prefix)) return std::string(path);
    }
    std::string_view name = path;
    while (name.size() > 1 && name.back() == '/') name.remove_suffix(1);
    const size_t slash = name.rfind('/');
    name = name.substr(slash + 1);
    return name.empty() ? std::string("/") : std::string(name);
}

std::string portablePathList(std::string_view value, std::string_view home) {
    // Each absolute path that starts the value or follows '=', ',', ';' or ':' (a list, or
    // a setting's "key=/path"), up to the next such separator, through portablePath.
    std::string out;
    size_t i = 0;
    while (i < value.size()) {
        const bool starts =
            value[i] == '/' && (i == 0 || std::string_view("=,;:").find(value[i - 1]) != std::string_view::npos);
        if (!starts) {
            out += value[i++];
            continue;
        }
        const size_t end = std::min(value.find_first_of(",;:", i), value.size());
        out += portablePath(value.substr(i, end - i), home);
        i = end;
    }
    return out;
}

namespace {

// `text` with each `folder` that ends a path word there, or goes on with '/', replaced:
// by `bare` where it ends the word, by `withSlash` together with its '/' otherwise. With
// `startsPath`, only where `folder` starts a path (not "/srv/work" for "/work").
std::string replaceFolder(std::string text, std::string_view folder, std::string_view bare, std::string_view withSlash,
                          bool startsPath) {
    if (!usableHome(folder)) return text;
    const std::string h(trimmedHome(folder));
    for (size_t at = text.find(h); at != std::string::npos; at = text.find(h, at)) {
        const size_t end = at + h.size();
        // A '.' ending a sentence ends the path too.
        const bool sentenceEnd = end < text.size() && text[end] == '.' &&
                                 (end + 1 == text.size() || std::isspace(static_cast<unsigned char>(text[end + 1])));
        if (end < text.size() && pathChar(text[end]) && !sentenceEnd) {
            at = end;
            continue;
        }
        if (startsPath && at > 0 && (pathChar(text[at - 1]) || text[at - 1] == '/')) {
            at = end;
            continue;
        }
        const bool slash = end < text.size() && text[end] == '/';
        const std::string_view with = slash ? withSlash : bare;
        text.replace(at, h.size() + (slash ? 1 : 0), with);
        at += with.size();
    }
    return text;
}

}  // namespace

std::string withoutHome(std::string text, std::string_view home) {
    return replaceFolder(std::move(text), home, "~", "~/", /*startsPath=*/false);
}

std::string withoutFolder(std::string text, std::string_view folder) {
    return replaceFolder(std::move(text), folder, ".", "", /*startsPath=*/true);
}

std::string readerCommand(const std::vector<std::string>& commandLine,
                          const std::vector<std::pair<std::string, std::string>>& environment, std::string_view home) {
    std::string out;
    for (const auto& [k, v] : environment) {
        if (k != "REPRO_SOURCE_URL") out += k + "=" + shellQuote(portablePathList(v, home)) + " ";
    }
    out += "repro";
    for (size_t i = 1; i < commandLine.size(); ++i) {
        const std::string& arg = commandLine[i];
        bool inlineValue = false;
        const OptionSpec* spec = pathOption(arg, inlineValue);
        if (spec && inlineValue) {
            const size_t split = arg.starts_with("--") ? arg.find('=') + 1 : 2;
            out += " " + shellQuote(arg.substr(0, split) + readerPath(*spec, arg.substr(split), home));
        } else if (spec && i + 1 < commandLine.size()) {
            out += " " + shellQuote(arg) + " " + shellQuote(readerPath(*spec, commandLine[++i], home));
        } else {
            out += " " + shellQuote(withoutHome(arg, home));
        }
    }
    return out;
}

std::string issueHead(const IssueFacts& f, const IssueContext& c) {
    std::string out = "### " + escapeText(f.title) + "\n\n";
    out += "#### Description\n\n" + escapeProse(f.description) + "\n\n";
    for (const auto& [label, value] : f.descriptionFacts)
        out += "- " + escapeText(label) + ": " + escapeText(value) + "\n";
    if (!f.descriptionFacts.empty()) out += "\n";
    out += "#### System information\n\n";
    for (const auto& [k, v] : f.system) out += "- " + escapeText(k) + ": " + codeSpan(v) + "\n";
    out += "- repro: " + codeSpan(fmt::format("{} (git {})", f.version, f.gitHash)) + "\n\n";
    out += "#### Steps to reproduce\n\n" + buildSteps(f, c);
    return out;
}

std::string issueTail(const IssueFacts& f, const IssueContext&) {
    std::string out = "#### Does RADV_DEBUG=llvm fix it?\n\n";
    if (f.llvmAnswer) {
        out += escapeProse(*f.llvmAnswer) + "\n\n";
    } else {
        out +=
            "Not tested by this run. `repro --triage` with the same options answers it on RADV (it reruns the "
            "failing mode with `RADV_DEBUG=llvm`); by hand: put `RADV_DEBUG=llvm` before the command above.\n\n";
    }
    out += "#### Regression\n\n";
    out +=
        "Last known good Mesa version or commit: (fill in, or \"unknown\"). `scripts/mesa-bisect-step` bisects "
        "Mesa with repro (docs/bisect.md).\n\n";
    out += logFiles(f);
    return out;
}

}  // namespace repro
