// The supervising parent (see children/supervisor.hpp) and the forked child's start.
#include "children/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "children/child_clock.hpp"
#include "cli/help.hpp"
#include "core/atomic_file.hpp"
#include "children/child_protocol.hpp"
#include "children/experiments.hpp"
#include "forensics/crash_site.hpp"
#include "core/clock.hpp"
#include "core/interrupt.hpp"
#include "core/output.hpp"
#include "children/progress.hpp"
#include "report/report_render.hpp"
#include "core/text.hpp"
#include "report/trace_events.hpp"
#include "report/verdict.hpp"
#include "repro_version.h"
#include "vk/device.hpp"
#include "vk/watch.hpp"

namespace repro {
namespace {

// After an interrupt the child drains the queue (kInterruptDrainSeconds) and reports.
constexpr double kInterruptGraceSeconds = kInterruptDrainSeconds + 5.0;
// After a second interrupt outside a driver call: how long the child has to end its row and
// write what it has.
constexpr double kSecondInterruptSeconds = 3.0;

// How the child ended, as the parent saw it.
struct ChildEnd {
    enum class Kind { Exited, Crashed, Stalled, Interrupted };
    Kind kind = Kind::Exited;
    int status = 0;  // Exited: the child's exit status
    int signal = 0;  // Crashed: the signal that ended it
    std::optional<ChildState::Call> stalledIn;
};

// The supervised child, for onAbortSent; 0 when none runs.
volatile std::sig_atomic_t gSupervisedChild = 0;

// SIGABRT in the supervisor: one this process raised (abort(3): a defect of repro) ends it
// as it would have; one another process sent (kill -ABRT, `timeout -s ABRT` to repro or its
// process group, a service manager's watchdog) is passed on to the child, whose crash
// reporter tells it from the driver's own abort (forensics/crash_site.hpp), so the run ends
// as "CRASHED ... no verdict on the driver", 125, and repro itself never ends by it.
void onAbortSent(int signal, siginfo_t* info, void*) {
    if (info->si_code <= 0 && info->si_pid != ::getpid()) {
        if (gSupervisedChild > 0) ::kill(static_cast<pid_t>(gSupervisedChild), SIGABRT);
        return;
    }
    std::signal(signal, SIG_DFL);
    ::raise(signal);
}

// onAbortSent as the SIGABRT handler while `child` runs; the previous one back when it goes.
class AbortForwarding {
  public:
    explicit AbortForwarding(pid_t child) {
        gSupervisedChild = child;
        struct sigaction action {};
        action.sa_sigaction = onAbortSent;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        sigaction(SIGABRT, &action, &previous_);
    }
    ~AbortForwarding() {
        sigaction(SIGABRT, &previous_, nullptr);
        gSupervisedChild = 0;
    }
    AbortForwarding(const AbortForwarding&) = delete;
    AbortForwarding& operator=(const AbortForwarding&) = delete;

  private:
    struct sigaction previous_ {};
};

[[noreturn]] void runChild(int writeFd, pid_t parent, bool trace, const std::function<int()>& work) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the supervisor
    if (getppid() != parent) _exit(kExitCannotTest);
    // In the parent's process group: the terminal's job control (Ctrl-Z, `stty tostop`, fg)
    // acts on both; a SIGTSTP sent to the parent alone is passed on (forwardStopsTo).
    installInterruptHandlers(Stops::ByParent);
    installCrashReporter(writeFd);  // before any Vulkan library is loaded
    watch::attach(writeFd);
    if (trace) trace_events::attach([](const std::string& line) { watch::publishTrace(line); });
    setTextTap(watch::sendText);  // the parent keeps the text for -o FILE (--format text)
    const int status = work();
    if (vk::deviceAbandoned()) {  // its objects leak on purpose: no exit handlers (vk/device.hpp)
        std::fflush(nullptr);
        ::_exit(status);
    }
    std::exit(status);
}

// The progress line on stderr (children/progress.hpp), redrawn from the child's state by this
// loop's thread: no thread of its own, nothing in a signal handler. Written with write(2)
// straight to fd 2, each redraw whole in one call.
class ProgressLine {
  public:
    explicit ProgressLine(bool on) : on_(on) {}
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;
    ~ProgressLine() { clear(); }

    void update(const ChildState& state, double now) {
        if (!on_ || now < kProgressAfterSeconds || now < next_) return;
        next_ = now + kProgressEverySeconds;
        // Only in the terminal's foreground: a background job's line would land on the
        // shell's prompt (or stop the job with SIGTTOU under `stty tostop`).
        if (::tcgetpgrp(STDERR_FILENO) != ::getpgrp()) return;
        put("\r" + progressLine(state, now, static_cast<size_t>(terminalColumns(STDERR_FILENO))) + "\x1b[K");
        drawn_ = true;
    }

    // Erases the line, so that what is printed next starts on a clean one.
    void clear() {
        if (drawn_) put("\r\x1b[K");
        drawn_ = false;
    }

  private:
    static void put(const std::string& text) {
        for (ssize_t n = -1; n < 0;) {
            n = ::write(STDERR_FILENO, text.data(), text.size());
            if (n < 0 && errno != EINTR) return;
        }
    }
    bool on_;
    bool drawn_ = false;
    double next_ = 0;
};

std::string signalName(int signal) {
    const char* abbrev = sigabbrev_np(signal);
    return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", signal);
}

// Reads what the child wrote, passes interrupts on, enforces the call deadlines (on the
// watched clock: time the child was stopped, or this process was, does not count).
ChildEnd watchChild(pid_t child, int readFd, ChildProtocol& protocol, ProgressLine& progress) {
    const auto start = Clock::now();
    WatchedClock watchedClock;
    int forwarded = 0;  // interrupts passed on
    std::optional<double> killAt;
    ChildEnd end;
    // One read of what the child wrote into the protocol; its byte count.
    const auto readOnce = [&](double watched) {
        char buffer[65536];
        const ssize_t n = ::read(readFd, buffer, sizeof buffer);
        if (n > 0) protocol.feed(std::string_view(buffer, static_cast<size_t>(n)), watched);
        return n;
    };
    for (;;) {
        pollfd pfd{.fd = readFd, .events = POLLIN};
        const int ready = ::poll(&pfd, 1, 50);
        const double now = secondsSince(start);
        const double watched = watchedClock.sample(now, processStopped(child));
        if (ready > 0) readOnce(watched);
        progress.update(protocol.state(), watched);
        forwardStopsToGrandchild(static_cast<pid_t>(protocol.state().rowProcess));  // a Ctrl-Z stops a row too
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) {
            progress.clear();
            for (ssize_t n = 1; n > 0;) n = readOnce(watched);  // what the child wrote before it ended
            if (end.kind == ChildEnd::Kind::Stalled || end.kind == ChildEnd::Kind::Interrupted) return end;
            if (WIFEXITED(status)) return {.kind = ChildEnd::Kind::Exited, .status = WEXITSTATUS(status)};
            return {.kind = ChildEnd::Kind::Crashed, .signal = WTERMSIG(status)};
        }
        if (interruptCount() > forwarded) {
            if (forwarded == 0) {
                ::kill(child, interruptSignal());
                killAt = now + kInterruptGraceSeconds;
            } else if (protocol.state().inCall) {
                ::kill(child, SIGKILL);  // a second interrupt in a driver call: at once
                end.kind = ChildEnd::Kind::Interrupted;
            } else {
                // A second interrupt outside any driver call (a --triage, --matrix or probe
                // child waiting for its row, a host loop): passed on. The child ends its row at
                // once (core/subprocess.hpp runChild) and writes what it has; past
                // kSecondInterruptSeconds it is killed as before.
                ::kill(child, interruptSignal());
                killAt = std::min(killAt.value_or(now + kSecondInterruptSeconds), now + kSecondInterruptSeconds);
            }
            forwarded = interruptCount();
        }
        if (killAt && now > *killAt && end.kind == ChildEnd::Kind::Exited) {
            ::kill(child, SIGKILL);
            end.kind = ChildEnd::Kind::Interrupted;
        }
        if (protocol.state().overdue(watched) && end.kind == ChildEnd::Kind::Exited) {
            ::kill(child, SIGKILL);
            end.kind = ChildEnd::Kind::Stalled;
            end.stalledIn = protocol.state().inCall;
        }
    }
}

// Where the child was, in words: "in vkQueueSubmit during mode multipass (submit 1 of 1)".
std::string whereText(const ChildState& s, const std::optional<ChildState::Call>& call) {
    const std::string in = call ? fmt::format("in {} ", call->name) : "outside any Vulkan call, ";
    return fmt::format("{}during {}", in, doingText(s));
}

// The verdict for a child that did not end by itself: its status, its line (what happened,
// where) and the line after it (what that means for the results).
CrashVerdict verdictFor(const ChildEnd& end, const ChildState& s) {
    const bool modes = s.stage != "setup";
    if (end.kind == ChildEnd::Kind::Interrupted) {
        return {128 + interruptSignal(),
                fmt::format("--- INTERRUPTED by {}: the child was stopped {}", interruptName(), whereText(s, s.inCall)),
                "--- the results above are complete for the modes that finished; no verdict"};
    }
    if (end.kind == ChildEnd::Kind::Stalled) {
        return {modes ? kExitHang : kExitCannotTest,
                fmt::format("{}: the driver stalled: {} did not return within {:.0f} s, during {}",
                            modes ? "--- GPU HANG" : "--- CANNOT TEST HERE", end.stalledIn->name,
                            end.stalledIn->limitSeconds, doingText(s)),
                modes ? "--- the results above are complete for the modes that finished"
                      : "--- before the first submit of the modes under test: this revision cannot be tested"};
    }
    return crashVerdict(end.signal, s.crash, s.inCall.has_value(), modes, whereText(s, s.inCall),
                        signalName(end.signal));
}

// --trace: the document from what the child sent, with a marker where the parent ended
// the child (`ending`: its verdict line; empty when the child ended by itself), written
// whole or not at all. The status, or 1 when the file could not be written and nothing
// stronger (a hang, a reproduction, an interrupt, cannot test) is to be said.
int writeTrace(const Options& o, const ChildState& s, trace_events::Nanos origin, const std::string& ending,
               int status) {
    if (!o.trace) return status;
    trace_events::TraceDocument doc(origin, static_cast<int>(::getpid()), fmt::format("repro {}", kReproVersion));
    // The command line as given, with "repro" for the binary: no path of this machine.
    std::vector<std::string> args(o.commandLine.begin() + (o.commandLine.empty() ? 0 : 1), o.commandLine.end());
    args.insert(args.begin(), "repro");
    doc.setFact("command_line", fmt::format("{}", fmt::join(args, " ")));
    doc.setFact("time_origin", "ts 0 is when repro started; every ts and dur is in microseconds");
    for (const std::string& line : s.traceLines) doc.addLine(line);
    if (!ending.empty()) {
        doc.add({.name = ending,
                 .category = "marker",
                 .phase = 'i',
                 .start = trace_events::now(),
                 .args = {{"during", doingText(s)}, {"exit_status", status}}});
    }
    const std::optional<std::string> why = writeFileAtomically(*o.trace, doc.renderText());
    if (!why) return status;
    sayError("repro: --trace: cannot write the trace to {} ({})", quote(*o.trace), *why);
    return documentStatus(status);
}

// The report the child streamed, with the mode that was running and the parent's verdict
// (`lines`: its line, then the line after it).
// The role of the run a crash ended, as the child's report would have named it (engine/
// outcome_stages.cpp toModeReport): "under test, run 2/3" under --repeat, "under test, n=2"
// under --sweep (from the row the child announced: vk/watch.hpp row), the reference split.
std::string endedRole(const ChildState& s, Mode mode, const Options& o) {
    if (mode == Mode::Split && std::find(o.modes.begin(), o.modes.end(), Mode::Split) == o.modes.end())
        return "reference (run after the modes under test)";
    if (!s.row) return "under test";
    if (s.row->label.starts_with("sweep ")) return "under test, " + s.row->label.substr(6);
    if (o.repeat > 1 && s.row->label.starts_with("repeat: ") && s.row->index > 0)
        return fmt::format("under test, run {}/{}", (s.row->index - 1) % o.repeat + 1, o.repeat);
    return "under test";
}

RunReport rebuildReport(const ChildState& s, int status, const std::vector<std::string>& lines, const Options& o) {
    const std::string& line = lines.front();
    RunReport r;
    if (!s.report.empty()) {
        const nlohmann::json j = nlohmann::json::parse(s.report, nullptr, /*allow_exceptions=*/false);
        // The child publishes run reports (engine/run.cpp runSession); anything else is not read.
        if (!j.is_discarded() && j.is_object() && j.value("schema", "") == "repro-report") r = parseReport(j);
    }
    if (r.commandLine.empty()) r.commandLine = o.commandLine;
    if (s.modesBegan && !s.mode.empty() && status == kExitHang) {
        ModeReport m{.role = "under test"};
        m.result.kind = Classification::Hang;
        if (const auto mode = parseModes(s.mode); mode && mode->size() == 1) {
            m.result.mode = mode->front();
            m.role = endedRole(s, m.result.mode, o);
        }
        m.result.reason = line.substr(line.find(": ") + 2);
        r.modes.push_back(std::move(m));
    }
    r.verdict = Verdict{.exitStatus = status, .lines = lines};
    return r;
}

}  // namespace

int superviseRun(const Options& options, const std::function<int()>& work,
                 const std::function<int(RunReport&, int)>& writeReports) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        sayError("repro: cannot create the pipe to the supervised child ({})", std::strerror(errno));
        return kExitCannotTest;
    }
    const trace_events::Nanos origin = trace_events::now();  // --trace's ts 0
    // The progress line: stderr a terminal, not -q, not in CI (children/progress.hpp). The child
    // inherits the clearing of that line before each of its writes to the terminal.
    const bool progress =
        progressWanted(::isatty(STDERR_FILENO) == 1, options.quiet, std::getenv("CI"), std::getenv("TERM"));
    clearProgressBeforeWrites(progress);
    std::fflush(nullptr);  // nothing buffered is written twice
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        runChild(fds[1], parent, options.trace.has_value(), work);
    }
    ::close(fds[1]);
    if (child < 0) {
        sayError("repro: cannot fork the supervised child ({})", std::strerror(errno));
        ::close(fds[0]);
        return kExitCannotTest;
    }
    forwardStopsTo(child, Stops::ByParent);  // `kill -TSTP <repro>` stops the GPU work too
    ChildProtocol protocol;
    ProgressLine drawer(progress);
    const ChildEnd end = [&] {
        const AbortForwarding abortForwarding(child);  // a SIGABRT from outside ends the child, not repro
        return watchChild(child, fds[0], protocol, drawer);
    }();
    drawer.clear();
    ::close(fds[0]);
    // The child's text report first, then what this process said while it ran (-o FILE).
    capturedText().insert(0, protocol.state().text);
    const ChildState& s = protocol.state();
    if (end.kind == ChildEnd::Kind::Exited) return writeTrace(options, s, origin, "", end.status);
    const CrashVerdict verdict = verdictFor(end, s);
    say("{}", verdict.line);
    say("{}", verdict.detail);
    RunReport r = rebuildReport(s, verdict.status, {verdict.line, verdict.detail}, options);
    return writeTrace(options, s, origin, verdict.line, writeReports(r, verdict.status));
}

}  // namespace repro
