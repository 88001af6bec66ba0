// The supervision protocol, parent side (see child_protocol.hpp and src/vk/watch.cpp).
#include "children/child_protocol.hpp"

#include <charconv>
#include <vector>

#include "core/text.hpp"

namespace repro {
namespace {

// `escaped` with \\, \n, \t and \r turned back into the characters, appended to `out`.
void appendUnescaped(std::string_view escaped, std::string& out) {
    for (size_t i = 0; i < escaped.size(); ++i) {
        if (escaped[i] != '\\' || i + 1 == escaped.size()) {
            out += escaped[i];
            continue;
        }
        const char c = escaped[++i];
        out += c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c;
    }
}

// A whole field as a number; false when it is not one.
template <typename T>
bool number(std::string_view text, T& out) {
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc{} && ptr == text.data() + text.size();
}

// "P\t<mode>\t<seconds>": a mode's predicted seconds; "W\t<index>\t<total>\t<label>": a row of
// --sweep, --repeat, --matrix, --triage begins (vk/watch.hpp). Malformed lines change nothing.
void progressFields(const std::vector<std::string_view>& f, double now, ChildState& state) {
    if (f[0] == "P") {
        double seconds = 0;
        if (f.size() != 3 || !number(f[2], seconds)) return;
        state.prediction = ChildState::Prediction{.mode = std::string(f[1]), .seconds = seconds};
        return;
    }
    unsigned index = 0, total = 0;
    if (f.size() != 4 || !number(f[1], index) || !number(f[2], total) || index == 0) return;
    const double first = index == 1 || !state.row ? now : state.row->firstSince;
    state.row =
        ChildState::Row{.index = index, .total = total, .label = std::string(f[3]), .since = now, .firstSince = first};
}

// "C\t<signal>\t<site>\t<address>\t<file>" (forensics/crash_site.hpp); malformed lines change nothing.
void crashFields(const std::vector<std::string_view>& f, ChildState& state) {
    if (f.size() != 5) return;
    int signal = 0;
    const auto site = parseCrashSite(f[2]);
    if (!site || !number(f[1], signal)) return;
    state.crash = CrashReport{.signal = signal, .site = *site, .address = std::string(f[3]), .file = std::string(f[4])};
}

}  // namespace

std::optional<double> ChildState::overdue(double now) const {
    if (!inCall) return std::nullopt;
    const double late = now - inCall->since - inCall->limitSeconds;
    return late > 0 ? std::optional<double>(late) : std::nullopt;
}

void ChildProtocol::feed(std::string_view bytes, double now) {
    partial_.append(bytes);
    size_t start = 0;
    for (size_t end = partial_.find('\n'); end != std::string::npos; end = partial_.find('\n', start)) {
        line(std::string_view(partial_).substr(start, end - start), now);
        start = end + 1;
    }
    partial_.erase(0, start);
}

void ChildProtocol::line(std::string_view text, double now) {
    const std::vector<std::string_view> f = split(text, '\t');
    if (f.empty() || f[0].size() != 1) return;
    switch (f[0][0]) {
        case 'E':
            if (double limit = 0; f.size() == 3 && number(f[1], limit))
                state_.inCall = ChildState::Call{.name = std::string(f[2]), .limitSeconds = limit, .since = now};
            return;
        case 'L':
            state_.inCall.reset();
            return;
        case 'S':
            if (f.size() != 4) return;
            state_.stage = std::string(f[1]);
            state_.mode = f[2] == "-" ? "" : std::string(f[2]);
            state_.what = std::string(f[3]);
            if (state_.stage == "modes") state_.modesBegan = true;
            state_.modeSince = state_.mode.empty() ? std::nullopt : std::optional<double>(now);
            return;
        case 'P':
        case 'W':
            progressFields(f, now, state_);
            return;
        case 'D':
            if (f.size() == 2) state_.what = std::string(f[1]);
            return;
        case 'R':
            if (f.size() == 2) state_.report = std::string(f[1]);
            return;
        case 'T':  // one line of --trace (report/trace_events.hpp), kept as sent
            if (f.size() == 2) state_.traceLines.emplace_back(f[1]);
            return;
        case 'X':  // text, escaped as vk/watch.hpp sendText says
            if (f.size() == 2) appendUnescaped(f[1], state_.text);
            return;
        case 'C':
            crashFields(f, state_);
            return;
        case 'G':
            if (f.size() == 2) (void)number(f[1], state_.rowProcess);
            return;
        default:
            return;
    }
}

}  // namespace repro
