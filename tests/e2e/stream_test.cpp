// The command stream pinned: every vkBeginCommandBuffer, vkCmd*, vkEndCommandBuffer,
// vkQueueSubmit and wait of a real run on lavapipe, logged by the tracer through
// repro_faulty's REPRO_TRACE seam, must equal the stream written here from blade-graphics
// 72c30c1's source (command.rs: start() 517-572, barrier() G 369-389, compute-pass barrier()
// C 859-876, finish() 350-367, bind 997-1030; mod.rs submit and wait_for 628-800; the
// original's main.rs run_split/run_multipass/run_single), for every mode at N = 1, 2, 3 and
// for every experiment flag. `repro --print-stream` must print the same stream without
// running it. A swapped G/C, an added or missing barrier, a reordering or a changed mask
// each fails these tests (docs/blade-stream.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "harness.hpp"

namespace {

using repro::test::kTiny;
using repro::test::lines;
using repro::test::ProcessResult;
using repro::test::TempDir;

// The tracer's notation for blade's two barriers and repro's host-read barrier, masks
// spelled out (in bit order) as blade builds them.
const std::string kG =
    "  vkCmdPipelineBarrier(ALL_COMMANDS -> ALL_COMMANDS, memory TRANSFER_WRITE|MEMORY_WRITE -> "
    "TRANSFER_READ|TRANSFER_WRITE|MEMORY_READ|MEMORY_WRITE)  # G";
const std::string kC =
    "  vkCmdPipelineBarrier(COMPUTE_SHADER -> COMPUTE_SHADER, memory SHADER_WRITE -> SHADER_READ|SHADER_WRITE)  # C";
const std::string kHostRead =
    "  vkCmdPipelineBarrier(ALL_COMMANDS -> HOST, memory MEMORY_WRITE -> HOST_READ)  # host read (not blade's)";

// Builds the expected stream of one run, call by call.
class Stream {
  public:
    explicit Stream(int steps) : n_(steps) {}

    // repro's clearing submit before each mode (not blade's): G, a fill of small[1..N] and
    // big[0..N), G, end, submit, wait.
    void clear(const std::string& mode) {
        note("mode " + mode + ": repro's clearing submit (not blade's)");
        begin();
        add(kG);
        for (int i = 1; i <= n_; ++i)
            add("  vkCmdFillBuffer(small[" + std::to_string(i) + "], offset 0, WHOLE_SIZE, 0x00000000)");
        for (int i = 0; i < n_; ++i)
            add("  vkCmdFillBuffer(big[" + std::to_string(i) + "], offset 0, WHOLE_SIZE, 0x00000000)");
        add(kG);
        end();
        submitAndWait();
    }
    // repro's canary after each mode and its readback (not blade's): an empty command buffer,
    // submitted and waited on (engine/stages.hpp checkCanary).
    void canary(const std::string& mode) {
        note("mode " + mode + ": repro's canary (not blade's): an empty command buffer, submitted and waited on");
        begin();
        end();
        submitAndWait();
    }
    void note(const std::string& text) { add("# " + text); }
    void begin(int cb = 0) { add("vkBeginCommandBuffer(cb" + std::to_string(cb) + ", ONE_TIME_SUBMIT)"); }
    void end(int cb = 0) { add("vkEndCommandBuffer(cb" + std::to_string(cb) + ")"); }
    void G() { add(kG); }
    void C() { add(kC); }
    void raw(const std::string& line) { add(line); }
    // D(conv-T, i) and D(slice, i) at the tiny preset: conv-T [ceil(bigW/16), ceil(bigH/16),
    // batch*C], slice [ceil(small/256), 1, 1].
    void convT(int i) {
        add("  vkCmdBindPipeline(COMPUTE, conv_t)");
        add("  vkCmdBindDescriptorSets(COMPUTE, set 0: small[" + std::to_string(i) + "], weight, big[" +
            std::to_string(i) + "], conv_params)");
        add("  vkCmdDispatch(" + std::to_string((kTiny.bigW() + 15) / 16) + ", " +
            std::to_string((kTiny.bigH() + 15) / 16) + ", " + std::to_string(kTiny.batch * kTiny.channels) + ")");
    }
    void slice(int i) {
        add("  vkCmdBindPipeline(COMPUTE, slice)");
        add("  vkCmdBindDescriptorSets(COMPUTE, set 0: big[" + std::to_string(i) + "], small[" + std::to_string(i + 1) +
            "], slice_params)");
        add("  vkCmdDispatch(" + std::to_string((kTiny.smallElems() + 255) / 256) + ", 1, 1)");
    }
    // blade finish(): G, end; repro's host-read barrier before end on the mode's last.
    void finish(bool hostReads, int cb = 0) {
        add(kG);
        if (hostReads) add(kHostRead);
        end(cb);
    }
    void submit(int cb = 0) {
        add("vkQueueSubmit(cb" + std::to_string(cb) + "; wait 0; signal timeline = " + std::to_string(++timeline_) +
            "; fence none)");
    }
    void wait() { add("vkWaitSemaphores(timeline >= " + std::to_string(timeline_) + ")"); }
    void submitAndWait(int cb = 0) {
        submit(cb);
        wait();
    }
    int steps() const { return n_; }
    const std::vector<std::string>& lines() const { return lines_; }

  private:
    void add(const std::string& line) { lines_.push_back(line); }
    int n_;
    uint64_t timeline_ = 0;
    std::vector<std::string> lines_;
};

// blade's three modes (the original's run_split, run_multipass, run_single).
void split(Stream& s) {
    s.clear("split");
    s.note("mode split: blade's stream");
    for (int i = 0; i < s.steps(); ++i) {
        s.begin(), s.G(), s.convT(i), s.finish(false), s.submitAndWait();
        s.begin(), s.G(), s.slice(i), s.finish(i + 1 == s.steps()), s.submitAndWait();
    }
    s.canary("split");
}

void multipass(Stream& s) {
    s.clear("multipass");
    s.note("mode multipass: blade's stream");
    s.begin();
    for (int i = 0; i < s.steps(); ++i) s.G(), s.convT(i), s.G(), s.slice(i);
    s.finish(true);
    s.submitAndWait();
    s.canary("multipass");
}

void single(Stream& s) {
    s.clear("single");
    s.note("mode single: blade's stream");
    s.begin();
    s.G();
    for (int i = 0; i < s.steps(); ++i) {
        if (i > 0) s.C();
        s.convT(i), s.C(), s.slice(i);
    }
    s.finish(true);
    s.submitAndWait();
    s.canary("single");
}

std::vector<std::string> traced(const std::vector<std::string>& args) {
    TempDir dir("stream");
    const auto file = dir / "trace.txt";
    const ProcessResult r = repro::test::runFaulty(args, {"REPRO_TRACE=" + file.string()}, 300);
    // The verdict is not the point here (a dropped dispatch reproduces on purpose).
    EXPECT_TRUE(r.status == 0 || r.status == 2) << r.out << r.err;
    return lines(repro::test::readText(file));
}

// --print-stream's call lines (and the tracer's notes), without its headings.
std::vector<std::string> printed(std::vector<std::string> args) {
    args.push_back("--print-stream");
    const ProcessResult r = repro::test::runRepro(args, {}, 300);
    EXPECT_EQ(r.status, 0) << r.out << r.err;  // --print-stream runs nothing: always 0
    std::vector<std::string> out;
    bool inStream = false;
    for (const std::string& line : lines(r.out)) {
        if (line.starts_with("--- command stream (")) {
            inStream = true;
            continue;
        }
        if (!inStream || line.starts_with("## ") || line.starts_with("--- ") || line.starts_with("  each mode"))
            continue;
        out.push_back(line);
    }
    return out;
}

struct StreamCase {
    std::string name;
    std::vector<std::string> args;  // beyond --preset tiny --reference none
    void (*expect)(Stream&);
    int steps;
};

class BladeStream : public ::testing::TestWithParam<StreamCase> {};

TEST_P(BladeStream, TracedRunEqualsBladeAndPrintStream) {
    REPRO_REQUIRE_LAVAPIPE();
    const StreamCase& c = GetParam();
    std::vector<std::string> args{"--preset", "tiny", "--reference", "none", "-n", std::to_string(c.steps)};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Stream expected(c.steps);
    c.expect(expected);
    const std::vector<std::string> got = traced(args);
    EXPECT_EQ(got, expected.lines());
    EXPECT_EQ(printed(args), got) << "--print-stream differs from the traced run";
}

std::vector<StreamCase> bladeCases() {
    std::vector<StreamCase> cases;
    for (int n : {1, 2, 3}) {
        cases.push_back({"split_n" + std::to_string(n), {"--mode", "split"}, split, n});
        cases.push_back({"multipass_n" + std::to_string(n), {"--mode", "multipass"}, multipass, n});
        cases.push_back({"single_n" + std::to_string(n), {"--mode", "single"}, single, n});
    }
    cases.push_back({"all_n2", {"--mode", "all"}, [](Stream& s) { split(s), multipass(s), single(s); }, 2});
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, BladeStream, ::testing::ValuesIn(bladeCases()),
                         [](const auto& param) { return param.param.name; });

// ---- The experiment flags (docs/experiments.md), each as documented ---------------------

// The buffer dispatch `number` (1-based) writes: conv-T k writes big[k-1], slice k small[k].
std::string writtenBy(int number) {
    const int step = (number - 1) / 2;
    return number % 2 ? "big[" + std::to_string(step) + "]" : "small[" + std::to_string(step + 1) + "]";
}

void dispatch(Stream& s, int number) { number % 2 ? s.convT((number - 1) / 2) : s.slice((number - 2) / 2); }

// --barrier KIND: every command buffer starts with G; KIND between every two dispatches;
// multipass and single record the same stream.
void withBarrier(Stream& s, const std::string& mode, const std::string& kind) {
    s.clear(mode);
    s.note("mode " + mode + ": the experiment plan");
    s.begin();
    s.G();
    for (int d = 1; d <= 2 * s.steps(); ++d) {
        if (d > 1 && kind == "sync2") {
            s.raw(
                "  vkCmdPipelineBarrier2(memory COMPUTE_SHADER SHADER_STORAGE_WRITE -> COMPUTE_SHADER "
                "SHADER_STORAGE_READ|SHADER_STORAGE_WRITE)");
        } else if (d > 1 && kind == "full") {
            s.raw("  vkCmdPipelineBarrier2(memory ALL_COMMANDS MEMORY_WRITE -> ALL_COMMANDS MEMORY_READ|MEMORY_WRITE)");
        } else if (d > 1 && kind == "buffer") {
            s.raw("  vkCmdPipelineBarrier(COMPUTE_SHADER -> COMPUTE_SHADER, buffer " + writtenBy(d - 1) +
                  " SHADER_WRITE -> SHADER_READ|SHADER_WRITE)");
        } else if (d > 1 && kind == "execution-only") {
            s.raw("  vkCmdPipelineBarrier(COMPUTE_SHADER -> COMPUTE_SHADER, execution only)");
        }
        dispatch(s, d);
    }
    s.finish(true);
    s.submitAndWait();
    s.canary(mode);
}

// blade's own barrier between two dispatches of one command buffer: multipass starts a pass
// (G) before every dispatch, single has G at the command buffer's start and C between.
void bladeBetween(Stream& s, const std::string& mode, bool firstInBuffer) {
    if (mode == "multipass") {
        s.G();
    } else if (firstInBuffer) {
        s.G();
    } else {
        s.C();
    }
}

// Command buffers holding the given dispatch numbers, each submitted; `hostWait` false:
// only the last is waited for, and each one in flight has its own command buffer.
void cut(Stream& s, const std::string& mode, const std::vector<std::vector<int>>& buffers, bool hostWait) {
    s.clear(mode);
    s.note("mode " + mode + ": the experiment plan");
    for (size_t c = 0; c < buffers.size(); ++c) {
        const int cb = hostWait ? 0 : int(c);
        const bool last = c + 1 == buffers.size();
        s.begin(cb);
        for (size_t d = 0; d < buffers[c].size(); ++d) {
            bladeBetween(s, mode, d == 0);
            dispatch(s, buffers[c][d]);
        }
        s.finish(last, cb);
        s.submit(cb);
        if (hostWait || last) s.wait();
    }
    s.canary(mode);
}

// --dispatch-repeat 2: each conv-T recorded twice, the mode's barrier between.
void repeated(Stream& s, const std::string& mode) {
    s.clear(mode);
    s.note("mode " + mode + ": the experiment plan");
    s.begin();
    for (int i = 0; i < s.steps(); ++i) {
        bladeBetween(s, mode, i == 0);
        s.convT(i);
        bladeBetween(s, mode, false);
        s.convT(i);
        bladeBetween(s, mode, false);
        s.slice(i);
    }
    s.finish(true);
    s.submitAndWait();
    s.canary(mode);
}

// --drop-dispatch 3 at N = 2: dispatch 3 (step 2's conv-T) is left out.
void dropped(Stream& s, const std::string& mode) {
    s.clear(mode);
    s.note("mode " + mode + ": the experiment plan");
    s.begin();
    const int kept[] = {1, 2, 4};
    for (size_t d = 0; d < 3; ++d) {
        bladeBetween(s, mode, d == 0);
        dispatch(s, kept[d]);
    }
    s.finish(true);
    s.submitAndWait();
    s.canary(mode);
}

struct ExperimentCase {
    std::string name;
    std::vector<std::string> args;
    std::function<void(Stream&)> expect;
};

class ExperimentStream : public ::testing::TestWithParam<ExperimentCase> {};

TEST_P(ExperimentStream, TracedRunIsTheDocumentedStreamAndPrintStream) {
    REPRO_REQUIRE_LAVAPIPE();
    const ExperimentCase& c = GetParam();
    std::vector<std::string> args{"--preset", "tiny", "--reference", "none", "-n", "2"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    Stream expected(2);
    c.expect(expected);
    const std::vector<std::string> got = traced(args);
    EXPECT_EQ(got, expected.lines());
    EXPECT_EQ(printed(args), got) << "--print-stream differs from the traced run";
}

std::vector<ExperimentCase> experimentCases() {
    std::vector<ExperimentCase> cases;
    for (const std::string mode : {"multipass", "single"}) {
        for (const std::string kind : {"sync2", "buffer", "full", "execution-only", "none"}) {
            std::string label = kind;
            std::replace(label.begin(), label.end(), '-', '_');
            cases.push_back({mode + "_barrier_" + label, {"--mode", mode, "--barrier", kind}, [=](Stream& s) {
                                 withBarrier(s, mode, kind);
                             }});
        }
        cases.push_back({mode + "_submit_every_2", {"--mode", mode, "--submit-every", "2"}, [=](Stream& s) {
                             cut(s, mode, {{1, 2}, {3, 4}}, true);
                         }});
        cases.push_back({mode + "_submit_every_1_no_host_wait",
                         {"--mode", mode, "--submit-every", "1", "--no-host-wait"},
                         [=](Stream& s) {
                             cut(s, mode, {{1}, {2}, {3}, {4}}, false);
                         }});
        // 90% of one big buffer: every conv-T's bytes close a command buffer.
        const double bigMiB = double(kTiny.batch) * kTiny.channels * kTiny.bigH() * kTiny.bigW() * 4 / 1048576.0;
        cases.push_back(
            {mode + "_split_mib", {"--mode", mode, "--split-mib", std::to_string(0.9 * bigMiB)}, [=](Stream& s) {
                 cut(s, mode, {{1}, {2, 3}, {4}}, true);
             }});
        cases.push_back({mode + "_dispatch_repeat_2", {"--mode", mode, "--dispatch-repeat", "2"}, [=](Stream& s) {
                             repeated(s, mode);
                         }});
        cases.push_back({mode + "_drop_dispatch_3", {"--mode", mode, "--drop-dispatch", "3"}, [=](Stream& s) {
                             dropped(s, mode);
                         }});
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Lavapipe, ExperimentStream, ::testing::ValuesIn(experimentCases()),
                         [](const auto& param) { return param.param.name; });

}  // namespace
