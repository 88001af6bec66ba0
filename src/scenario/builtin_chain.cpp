// The built-in chain as a scenario file (see builtin_chain.hpp).
#include "scenario/builtin_chain.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"

namespace repro::scenario {
namespace {

// The header: what the file is, where it comes from, and its shape.
std::string header(const Shape& shape, const std::string& preset, uint32_t n) {
    std::string out = fmt::format(
        "# blade #356's chain as `repro -n {} --preset {}` runs it (written by repro --write-scenario).\n"
        "name = \"blade-356-chain-n{}\"\n"
        "source = \"https://github.com/kvark/blade/issues/356\"\n"
        "pattern = \"{} conv-T + slice steps in one submit (multipass: a compute pass per dispatch; single: one "
        "pass with pass barriers); RADV gave all-zero output in one submit and correct output with a submit per "
        "dispatch\"\n"
        "expected = \"not reproduced\"\n",
        n, preset, n, n);
    if (shape == presetShape(preset)) {
        out += fmt::format("shape = \"{}\"\n", preset);
    } else {
        out += fmt::format(
            "shape = {{ batch = {}, channels = {}, height = {}, width = {}, kernel_h = {}, kernel_w = {}, "
            "stride_h = {}, stride_w = {}, pad_h = {}, pad_w = {} }}\n",
            shape.batch, shape.channels, shape.height, shape.width, shape.kernelH, shape.kernelW, shape.strideH,
            shape.strideW, shape.padH, shape.padW);
    }
    return out + fmt::format("check = [\"small[{}]\"]\n", n);
}

std::string buffer(const std::string& name, uint64_t bytes, const char* memory, const char* init) {
    return fmt::format("\n[[buffer]]\nname = \"{}\"\nbytes = {}\nmemory = \"{}\"\ninit = \"{}\"\n", name, bytes, memory,
                       init);
}

// The buffers in the order the chain's clearing submit fills them: small[0], the weight,
// small[1..N], big[0..N).
std::string buffers(const ChainSizes& z, uint32_t n) {
    std::string out = buffer("small[0]", z.smallBytes, "shared", "chain-input");
    out += buffer("weight", z.weightBytes, "shared", "chain-weight");
    for (uint32_t i = 1; i <= n; ++i)
        out += buffer(fmt::format("small[{}]", i), z.smallBytes, i == n ? "shared" : "device-local", "zero");
    for (uint32_t i = 0; i < n; ++i) out += buffer(fmt::format("big[{}]", i), z.bigBytes, "device-local", "zero");
    return out;
}

constexpr const char* kPassBarrier = "\n[[step]]\nbarrier = \"blade-c\"\nmodes = [\"single\"]\n";

std::string steps(uint32_t n) {
    std::string out;
    for (uint32_t k = 0; k < n; ++k) {
        if (k > 0) out += kPassBarrier;
        out += fmt::format("\n[[step]]\ndispatch = \"conv-t\"\nbindings = [\"small[{}]\", \"weight\", \"big[{}]\"]\n",
                           k, k);
        out += kPassBarrier;
        out += fmt::format("\n[[step]]\ndispatch = \"slice\"\nbindings = [\"big[{}]\", \"small[{}]\"]\n", k, k + 1);
    }
    return out;
}

}  // namespace

std::string builtInChainText(const Shape& shape, const std::string& preset, uint32_t n) {
    if (n == 0 || n > kMaxBuiltInFileSteps)
        throw UsageError(fmt::format("the chain as a file: -n {} is outside 1..{} (the steps a file may have)", n,
                                     kMaxBuiltInFileSteps));
    return header(shape, preset, n) + buffers(computeSizes(shape), n) + steps(n);
}

}  // namespace repro::scenario
