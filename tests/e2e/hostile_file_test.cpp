// Hostile scenario files through the real repro (issue 35, section 4; each test names the
// hostile-input probe's R-number): each is one line on stderr that says what is wrong, exit 1,
// nothing run (stdout empty: no device was made), and never a hang, a crash or a verdict.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bounded_process.hpp"
#include "process.hpp"

namespace {

using repro::test::BoundedResult;
using repro::test::describeEnd;
using repro::test::runBounded;

// No layer, no simulated driver: the machine's own.
const std::vector<std::string> kPlain = {"VK_INSTANCE_LAYERS=", "VK_LOADER_LAYERS_ENABLE=", "REPRO_SIMULATE="};

// repro with `args`, its address space capped at 4 GiB (a file read without a bound fails
// there instead of filling the machine's memory), for at most `limit` seconds.
BoundedResult repro(const std::vector<std::string>& args, double limit = 60) {
    std::string command = "ulimit -v 4194304; exec '" REPRO_EXECUTABLE "'";
    for (const std::string& a : args) command += " '" + a + "'";
    return runBounded("/bin/sh", {"-c", command}, kPlain, limit);
}

// A fresh folder for one test's files, removed with them.
class Folder {
  public:
    explicit Folder(const std::string& name)
        : path_(std::filesystem::temp_directory_path() /
                ("repro-hostile-file-" + name + "-" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~Folder() { std::filesystem::remove_all(path_); }
    Folder(const Folder&) = delete;
    Folder& operator=(const Folder&) = delete;
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name, std::ios::binary) << text;
        return (path_ / name).string();
    }
    std::string operator/(const std::string& name) const { return (path_ / name).string(); }

  private:
    std::filesystem::path path_;
};

// Exit 1, nothing on stdout, and exactly `line` on stderr.
void expectRefused(const BoundedResult& r, const std::string& line) {
    EXPECT_EQ(r.status, 1) << shown(r);
    EXPECT_EQ(r.out, "") << "nothing ran\n" << shown(r);
    EXPECT_EQ(r.err, line + "\n") << shown(r);
}

// The header and a 4096-byte iota buffer 'a' (lines 1..9), then `steps`.
std::string fileWith(const std::string& steps) {
    return "name = \"x\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\ncheck = [\"a\"]\n"
           "[[buffer]]\nname = \"a\"\nbytes = 4096\ninit = \"iota\"\n" +
           steps;
}

// ---- R1: more invocations than the kernels' 32-bit index numbers ----------------------------

// 65535 x 1025 workgroups of 64 are 4299096000 invocations: the built-in kernels' 32-bit flat
// index wraps, every word is incremented twice, and a correct driver was "BUG REPRODUCED".
TEST(HostileFile, ADispatchPast2To32InvocationsIsRefusedBeforeItRuns) {
    Folder f("r1");
    const std::string file = f.write(
        "over.toml", fileWith("[[step]]\ndispatch = \"increment\"\nbindings = [\"a\"]\ngroups = [65535, 1025, 1]\n"));
    expectRefused(repro({"--scenario", file}),
                  "repro: " + file +
                      ":13:10: groups [65535, 1025, 1] make 4299096000 invocations (64 per workgroup), more than the "
                      "4294967296 that kernel increment's 32-bit invocation index numbers without wrapping; expected "
                      "at most 4294967296 invocations");
}

// The same counts written by an indirect-writer and read by a dispatch_indirect.
TEST(HostileFile, IndirectCountsPast2To32InvocationsAreRefusedBeforeTheyRun) {
    Folder f("r1-indirect");
    const std::string file = f.write(
        "over.toml", fileWith("[[buffer]]\nname = \"args\"\nbytes = 16\n"
                              "[[step]]\ndispatch = \"indirect-writer\"\nbindings = [\"args\"]\nx = 65535\ny = 1025\n"
                              "[[step]]\nbarrier = \"memory\"\nsrc_stage = [\"compute\"]\n"
                              "src_access = [\"shader-storage-write\"]\ndst_stage = [\"draw-indirect\"]\n"
                              "dst_access = [\"indirect-command-read\"]\n"
                              "[[step]]\ndispatch_indirect = \"increment\"\nbindings = [\"a\"]\nargs = \"args\"\n"));
    expectRefused(repro({"--scenario", file}),
                  "repro: " + file +
                      ":24:1: step 3 dispatch-indirect increment reads group counts (65535, 1025, 1) from buffer "
                      "'args' at byte 0 (as the CPU model has it there), which make 4299096000 invocations (64 per "
                      "workgroup), more than the 4294967296 that kernel increment's 32-bit invocation index numbers "
                      "without wrapping; expected at most 4294967296 invocations");
}

// ---- R7: a user module spirv-val rejects ----------------------------------------------------

// The bytes of the file at `path` ("" when it cannot be read).
std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// user_mix.spv with the header's id bound set to 0xffffffff: repro's own reader takes it, and
// lavapipe crashed on it in vkCreateComputePipelines ("CANNOT TEST HERE", 125).
TEST(HostileFile, AUserModuleThatSpirvValRejectsIsABadFile) {
    Folder f("r7");
    std::string module = readBytes(REPRO_USER_KERNEL_DIR "/user_mix.spv");
    ASSERT_GT(module.size(), 20u);
    const uint32_t bound = 0xffffffffu;
    module.replace(12, 4, reinterpret_cast<const char*>(&bound), 4);  // word 3: the id bound
    const std::string spv = f.write("bound.spv", module);
    const std::string file =
        f.write("bound.toml",
                fileWith("[[buffer]]\nname = \"b\"\nbytes = 256\n[[kernel]]\nname = \"mix\"\nspirv = "
                         "\"bound.spv\"\n[[step]]\ndispatch = \"mix\"\nbindings = [\"a\", \"b\"]\ngroups = [1]\n"));
    expectRefused(repro({"--scenario", file}),
                  "repro: " + file + ":15:9: kernel 'mix': '" + spv +
                      "': spirv-val (vulkan1.3) rejects the module (error: line 0: Invalid SPIR-V.  The id bound is "
                      "larger than the max id bound 4194303.); expected a module that passes spirv-val");
}

// ---- R9 and R18: what --scenario names ------------------------------------------------------

// A FIFO blocked the open for ever; /dev/zero was read until memory ran out.
TEST(HostileFile, AFifoOrADeviceIsRefusedWithoutReadingIt) {
    Folder f("r9");
    const std::string fifo = f / "fifo.toml";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    expectRefused(repro({"--scenario", fifo}, 20),
                  "repro: --scenario: cannot read '" + fifo + "' (a FIFO, not a regular file)");
    expectRefused(repro({"--scenario", "/dev/zero"}, 20),
                  "repro: --scenario: cannot read '/dev/zero' (a character device, not a regular file)");
    const std::string big = f.write("big.toml", std::string((16 << 20) + 1, '#'));
    expectRefused(repro({"--scenario", big}),
                  "repro: --scenario: cannot read '" + big + "' (16777217 bytes, more than the 16 MiB allowed)");
}

// Each read error says why, as --spirv's and -o's do; an empty file says it is empty.
TEST(HostileFile, ReadErrorsSayWhyAndAnEmptyFileSaysItIsEmpty) {
    Folder f("r18");
    std::filesystem::create_directory(f / "folder.toml");
    std::filesystem::create_symlink(f / "nothing-here", f / "dangling.toml");
    std::filesystem::create_symlink(f / "loop-b.toml", f / "loop-a.toml");
    std::filesystem::create_symlink(f / "loop-a.toml", f / "loop-b.toml");
    const std::string empty = f.write("empty.toml", "");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {f / "missing.toml", "No such file or directory"},
        {f / "folder.toml", "Is a directory"},
        {f / "dangling.toml", "No such file or directory"},
        {f / "loop-a.toml", "Too many levels of symbolic links"},
    };
    for (const auto& [path, why] : cases) {
        expectRefused(repro({"--scenario", path}), "repro: --scenario: cannot read '" + path + "' (" + why + ")");
    }
    expectRefused(repro({"--scenario", empty}),
                  "repro: --scenario: '" + empty + "' is empty (0 bytes); expected a scenario (docs/scenarios.md)");
}

// ---- R18: a repeat past the step bound ------------------------------------------------------

// 65536 steps from one repeat, then one more step: the line pointed at line 0, column 0.
TEST(HostileFile, TooManyStepsAfterARepeatPointAtTheRepeat) {
    Folder f("r18-repeat");
    const std::string file =
        f.write("many.toml", fileWith("[[step]]\nrepeat = 65536\nfill = \"a\"\nvalue = 1\n[[step]]\nfill = \"a\"\n"));
    expectRefused(repro({"--scenario", file}),
                  "repro: " + file +
                      ":11:10: the steps repeated here make 65536 steps, and with the steps after them the file "
                      "comes to more than 65536 at step 65537 (line 14); expected fewer");
}

// ---- R15: names that are not one printable line ---------------------------------------------

// A name with a terminal escape, a newline, a CR or a bell split the verdict line in two
// and drove the terminal: now a bad file at the name, the name escaped in the one line.
TEST(HostileFile, ANameWithControlCharactersIsABadFile) {
    Folder f("r15");
    const std::string named =
        f.write("named.toml",
                "name = \"evil\\u001b[2J\\u001b[31mRED\\nsecond line\\r\\u0007\"\nsource = \"s\"\npattern = "
                "\"p\"\nexpected = \"not reproduced\"\ncheck = [\"a\"]\n[[buffer]]\nname = \"a\"\nbytes = 64\n"
                "[[step]]\nfill = \"a\"\n");
    expectRefused(repro({"--scenario", named}),
                  "repro: " + named +
                      ":1:8: the scenario's name 'evil\\x1b[2J\\x1b[31mRED\\nsecond line\\r\\a' holds a control "
                      "character; expected a name that prints as itself on one line");
    const std::string buffer =
        f.write("buffer.toml",
                "name = \"x\"\nsource = \"s\"\npattern = \"p\"\nexpected = \"not reproduced\"\n"
                "check = [\"da\\nta\\u001b[31m\"]\n[[buffer]]\nname = \"da\\nta\\u001b[31m\"\nbytes = 64\n"
                "[[step]]\nfill = \"da\\nta\\u001b[31m\"\n");
    expectRefused(repro({"--scenario", buffer}),
                  "repro: " + buffer +
                      ":7:8: buffer name 'da\\nta\\x1b[31m' holds a control character; expected a name that prints "
                      "as itself on one line");
    const std::string queue =
        f.write("queue.toml", fileWith("[[queue]]\nname = \"q\\u007f\"\nfamily = \"same\"\n[[step]]\nfill = \"a\"\n"));
    expectRefused(repro({"--scenario", queue}),
                  "repro: " + queue +
                      ":11:8: queue name 'q\\x7f' holds a control character; expected a name that prints as itself "
                      "on one line");
}

// ---- R11: an output that names the scenario file --------------------------------------------

// --json F or -o F on the scenario F replaced the file with its own report.
TEST(HostileFile, AnOutputNamingTheScenarioFileIsRefusedAndTheFileKept) {
    Folder f("r11");
    const std::string text = fileWith("[[step]]\nfill = \"a\"\n");
    const std::string file = f.write("victim.toml", text);
    for (const std::string option : {"--json", "-o"}) {
        const std::string label = option == "--json" ? "--json" : "-o/--output";
        expectRefused(repro({"--scenario", file, option, file}),
                      "repro: " + label + " '" + file + "' is the --scenario file '" + file +
                          "', which the document would replace; expected another path for the document");
        EXPECT_EQ(readBytes(file), text) << "the scenario file is untouched";
    }
}

}  // namespace
