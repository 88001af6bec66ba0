// The GoogleTest protocol (see gtest.hpp). The lines follow what GoogleTest prints and what
// its consumers parse: deqp-runner's gtest-runner (a test starts at "[ RUN      ] NAME" and
// ends at the next bracketed status line; OK, FAILED and SKIPPED are the statuses it knows)
// and CMake's GoogleTestAddTests.cmake (the list format).
#include "engine/gtest.hpp"

#include <fmt/format.h>
#include <pugixml.hpp>

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "children/child_run.hpp"
#include "children/experiments.hpp"
#include "cli/output_paths.hpp"
#include "core/atomic_file.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/exit_status.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "core/text.hpp"
#include "engine/list_scenarios.hpp"
#include "scenario/plan.hpp"
#include "scenario/scenario_parse.hpp"

namespace repro {
namespace {

constexpr std::string_view kBuiltInSuite = "builtin_chain";

// GoogleTest's wildcard match of one pattern: '*' any string, '?' any one character. fnmatch(3)
// without flags matches so, byte by byte, once '[' and the backslash (literal to GoogleTest) are
// escaped.
bool wildcardMatches(std::string_view pattern, std::string_view name) {
    std::string glob;
    for (const char c : pattern) {
        if (c == '[' || c == '\\') glob += '\\';
        glob += c;
    }
    return ::fnmatch(glob.c_str(), std::string(name).c_str(), 0) == 0;
}

bool anyPatternMatches(std::string_view patterns, std::string_view name) {
    while (true) {
        const size_t colon = patterns.find(':');
        if (wildcardMatches(patterns.substr(0, colon), name)) return true;
        if (colon == std::string_view::npos) return false;
        patterns.remove_prefix(colon + 1);
    }
}

// How a test ended.
enum class Result { Ok, Failed, Skipped };

struct Ran {
    GtestCase test;
    Result result = Result::Ok;
    std::string message;  // why it failed or was skipped (the child's verdict line)
    double seconds = 0;
};

// The child's command line: the user's, without the protocol's options (childArgv drops
// them) and the options this test's form refuses, then --scenario FILE for a file.
std::vector<std::string> childCommandLine(const Options& o, const GtestCase& c) {
    std::vector<std::string> line{o.commandLine.empty() ? std::string("repro") : o.commandLine[0]};
    const auto kept = argsWithout(o.commandLine, [&](const OptionSpec& spec) {
        return c.file ? !spec.notForFile.empty() : !spec.notForChain.empty();
    });
    line.insert(line.end(), kept.begin(), kept.end());
    if (c.file) line.insert(line.end(), {"--scenario", *c.file});
    return line;
}

// The child's time limit: as --matrix's (experiments.hpp childTimeLimit), counted as on a CPU
// device, whose budgets are the larger; the child's own submit timeouts come first.
double limitFor(Options o, const GtestCase& c) {
    o.scenario = c.file;
    try {
        return childTimeLimit(o, makePlan(o), true);
    } catch (const std::exception&) {
        return 1200.0;  // the child will say what is wrong with its file
    }
}

Ran runOne(const Options& o, const GtestCase& c, const std::filesystem::path& dir, size_t index) {
    Options childOptions = o;
    childOptions.commandLine = childCommandLine(o, c);
    const ChildOutcome out = runChild({.options = childOptions,
                                       .factors = RunFactors{.mode = c.mode},
                                       .dir = dir,
                                       .tag = fmt::format("{:03}-{}", index + 1, gtestName(c)),
                                       .limitSeconds = limitFor(o, c)});
    Ran r{.test = c, .seconds = out.process.seconds};
    const int pass = c.expectReproduced ? kExitReproduced : kExitNotReproduced;
    const std::string verdict = out.verdictLine.empty() ? "no verdict line in its report" : out.verdictLine;
    if (out.status == pass) return r;
    r.result = out.status == kExitCannotTest ? Result::Skipped : Result::Failed;
    if (out.process.timedOut) {
        r.message = fmt::format("the child ran past its limit of {:.0f} s and was killed", limitFor(o, c));
    } else if (out.status < 0) {
        r.message = fmt::format("the child ended by signal {} ({})", out.process.signal, verdict);
    } else {
        r.message = fmt::format("exit {}: {}", out.status, verdict);
    }
    r.message += fmt::format("; log {}", out.log);
    return r;
}

// How many of `ran` ended with `result`.
size_t countOf(const std::vector<Ran>& ran, Result result) {
    return static_cast<size_t>(std::count_if(ran.begin(), ran.end(), [&](const Ran& x) { return x.result == result; }));
}

std::string millis(double seconds) { return fmt::format("{} ms", std::llround(seconds * 1000.0)); }

// GoogleTest's JUnit XML (the attributes its consumers read), to a string.
std::string junitXml(const std::vector<Ran>& ran, double seconds) {
    pugi::xml_document doc;
    pugi::xml_node all = doc.append_child("testsuites");
    all.append_attribute("tests") = static_cast<long long>(ran.size());
    all.append_attribute("failures") = static_cast<long long>(countOf(ran, Result::Failed));
    all.append_attribute("disabled") = 0;
    all.append_attribute("errors") = 0;
    all.append_attribute("time") = fmt::format("{:.3f}", seconds).c_str();
    all.append_attribute("name") = "AllTests";
    std::map<std::string, pugi::xml_node> suites;
    for (const Ran& r : ran) {
        pugi::xml_node& suite = suites[r.test.suite];
        if (!suite) {
            suite = all.append_child("testsuite");
            suite.append_attribute("name") = r.test.suite.c_str();
        }
        pugi::xml_node test = suite.append_child("testcase");
        test.append_attribute("name") = std::string(name(r.test.mode)).c_str();
        test.append_attribute("status") = "run";
        test.append_attribute("result") = r.result == Result::Skipped ? "skipped" : "completed";
        test.append_attribute("time") = fmt::format("{:.3f}", r.seconds).c_str();
        test.append_attribute("classname") = r.test.suite.c_str();
        if (r.result == Result::Failed) {
            pugi::xml_node failure = test.append_child("failure");
            failure.append_attribute("message") = r.message.c_str();
            failure.append_attribute("type") = "";
            failure.append_child(pugi::node_cdata).set_value(r.message.c_str());
        } else if (r.result == Result::Skipped) {
            test.append_child("skipped").append_attribute("message") = r.message.c_str();
        }
    }
    for (auto& [name, suite] : suites) {
        const auto in = [&](Result res) {
            return std::count_if(ran.begin(), ran.end(),
                                 [&](const Ran& x) { return x.test.suite == name && x.result == res; });
        };
        const auto tests = std::count_if(ran.begin(), ran.end(), [&](const Ran& x) { return x.test.suite == name; });
        suite.append_attribute("tests") = static_cast<long long>(tests);
        suite.append_attribute("failures") = static_cast<long long>(in(Result::Failed));
        suite.append_attribute("skipped") = static_cast<long long>(in(Result::Skipped));
        suite.append_attribute("disabled") = 0;
        suite.append_attribute("errors") = 0;
    }
    std::ostringstream text;
    doc.save(text, "  ", pugi::format_default, pugi::encoding_utf8);
    return text.str();
}

// The summary lines GoogleTest ends with; the tests of `result` listed under their count.
void sayListed(const std::vector<Ran>& ran, Result result, std::string_view tag) {
    std::vector<std::string> names;
    for (const Ran& r : ran) {
        if (r.result == result) names.push_back(gtestName(r.test));
    }
    if (names.empty()) return;
    say("[{}] {} test{}, listed below:", tag, names.size(), names.size() == 1 ? "" : "s");
    for (const std::string& n : names) say("[{}] {}", tag, n);
}

void saySummary(const std::vector<Ran>& ran, size_t suites, double seconds) {
    say("[----------] Global test environment tear-down");
    say("[==========] {} test{} from {} test suite{} ran. ({} total)", ran.size(), ran.size() == 1 ? "" : "s", suites,
        suites == 1 ? "" : "s", millis(seconds));
    const size_t passed = countOf(ran, Result::Ok);
    say("[  PASSED  ] {} test{}.", passed, passed == 1 ? "" : "s");
    sayListed(ran, Result::Skipped, "  SKIPPED ");
    sayListed(ran, Result::Failed, "  FAILED  ");
    const size_t failed = countOf(ran, Result::Failed);
    if (failed > 0) say("\n{:2} FAILED TEST{}", failed, failed == 1 ? "" : "S");
}

std::vector<GtestCase> keptCases(const Options& o) {
    std::vector<GtestCase> kept;
    for (GtestCase& c : gtestCases(o.gtest->scenarioDir)) {
        if (gtestFilterMatches(o.gtest->filter, gtestName(c))) kept.push_back(std::move(c));
    }
    return kept;
}

// Runs the suites' tests in order, printing each; stops at an interrupt.
std::vector<Ran> runAll(const Options& o, const std::vector<GtestCase>& cases, const std::filesystem::path& dir) {
    std::vector<Ran> ran;
    for (size_t i = 0; i < cases.size(); ++i) {
        const GtestCase& c = cases[i];
        const bool first = i == 0 || cases[i - 1].suite != c.suite;
        if (first) {
            const auto inSuite =
                std::count_if(cases.begin(), cases.end(), [&](const GtestCase& x) { return x.suite == c.suite; });
            say("[----------] {} test{} from {}", inSuite, inSuite == 1 ? "" : "s", c.suite);
        }
        say("[ RUN      ] {}", gtestName(c));
        Ran r = runOne(o, c, dir, i);
        if (interruptSignal() != 0) break;  // the interrupted test has no result
        if (!r.message.empty()) say("  {}", r.message);
        const char* tag = r.result == Result::Ok       ? "       OK "
                          : r.result == Result::Failed ? "  FAILED  "
                                                       : "  SKIPPED ";
        say("[{}] {} ({})", tag, gtestName(c), millis(r.seconds));
        ran.push_back(std::move(r));
        if (i + 1 == cases.size() || cases[i + 1].suite != c.suite) {
            double suiteSeconds = 0;
            size_t n = 0;
            for (const Ran& x : ran) {
                if (x.test.suite == c.suite) suiteSeconds += x.seconds, ++n;
            }
            say("[----------] {} test{} from {} ({} total)\n", n, n == 1 ? "" : "s", c.suite, millis(suiteSeconds));
        }
    }
    return ran;
}

}  // namespace

std::string gtestName(const GtestCase& c) { return fmt::format("{}.{}", c.suite, name(c.mode)); }

std::string gtestSuiteName(std::string_view stem) {
    std::string out(stem);
    for (char& ch : out) {
        const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!keep) ch = '_';
    }
    return out;
}

std::vector<GtestCase> gtestCases(const std::optional<std::string>& dir) {
    std::vector<std::string> files;
    const std::vector<std::string> shipped = dir ? std::vector<std::string>{} : scenarioFolders();
    const std::optional<std::string> folder = dir ? dir : shipped.empty() ? std::nullopt : std::optional(shipped[0]);
    if (folder) {
        std::error_code ec;
        files = scenarioFiles(*folder, ec);
        if (ec) throw UsageError(fmt::format("--scenario-dir: cannot read {} ({})", quote(*folder), ec.message()));
    }
    std::vector<GtestCase> cases;
    std::map<std::string, std::string> suiteFile{{std::string(kBuiltInSuite), "the built-in chain"}};
    const auto add = [&](const std::string& suite, const std::optional<std::string>& file, bool reproduced) {
        for (const Mode m : {Mode::Split, Mode::Multipass, Mode::Single})
            cases.push_back({.suite = suite, .mode = m, .file = file, .expectReproduced = reproduced});
    };
    for (const std::string& file : files) {
        const scenario::Scenario s = scenario::loadScenario(file);  // a bad file: its one line
        const std::string suite = gtestSuiteName(std::filesystem::path(file).stem().string());
        const auto [it, fresh] = suiteFile.emplace(suite, file);
        if (!fresh)
            throw UsageError(fmt::format("{} and {} make one GoogleTest suite name, {}; rename one", quote(it->second),
                                         quote(file), suite));
        add(suite, file, s.expected == "reproduced");
    }
    add(std::string(kBuiltInSuite), std::nullopt, false);
    return cases;
}

bool gtestFilterMatches(std::string_view filter, std::string_view name) {
    const size_t dash = filter.find('-');
    const std::string_view positive = filter.substr(0, dash);
    const std::string_view negative = dash == std::string_view::npos ? std::string_view() : filter.substr(dash + 1);
    if (!positive.empty() && !anyPatternMatches(positive, name)) return false;
    return negative.empty() || !anyPatternMatches(negative, name);
}

int listGtests(const Options& o) {
    try {
        std::string last;
        for (const GtestCase& c : keptCases(o)) {
            if (c.suite != last) say("{}.", c.suite);
            say("  {}", name(c.mode));
            last = c.suite;
        }
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    }
    return kExitNotReproduced;
}

int runGtests(const Options& o) {
    std::vector<GtestCase> cases;
    std::filesystem::path dir;
    try {
        cases = keptCases(o);
        dir = makeLogDir("gtest");
    } catch (const UsageError& e) {
        sayError("repro: {}", e.what());
        return kExitUsage;
    }
    const ChildLogFolder logs(o, dir);  // removed (or kept and named) when interrupted
    std::vector<std::string> suites;
    for (const GtestCase& c : cases) {
        if (suites.empty() || suites.back() != c.suite) suites.push_back(c.suite);
    }
    say("[==========] Running {} test{} from {} test suite{}.", cases.size(), cases.size() == 1 ? "" : "s",
        suites.size(), suites.size() == 1 ? "" : "s");
    say("[----------] Global test environment set-up.");
    const auto start = Clock::now();
    const std::vector<Ran> ran = runAll(o, cases, dir);
    const double seconds = secondsSince(start);
    saySummary(ran, suites.size(), seconds);
    const bool failed = countOf(ran, Result::Failed) > 0;
    int status = interruptSignal() != 0 ? interruptedExit() : failed ? 1 : 0;
    if (o.gtest->xmlFile) {
        if (const auto problem = writeFileAtomically(*o.gtest->xmlFile, junitXml(ran, seconds))) {
            sayError("repro: --gtest_output: cannot write {} ({})", quote(*o.gtest->xmlFile), *problem);
            if (status == 0) status = kExitUsage;
        }
    }
    finishLogDir(o, dir, failed ? "the failed tests' logs" : "");
    return status;
}

}  // namespace repro
