// The chain computed by the tests themselves, independently of src/: the presets' shapes
// restated, a direct double-precision sum for conv-T, and the crop. Shared by the
// end-to-end tests that compare repro's --dump-dir output with it.
#pragma once

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <vector>

namespace repro::test {

// The shapes of the presets, restated here so the test does not trust src/.
struct TestShape {
    int batch, channels, height, width, kernelH, kernelW, strideH, strideW, padH, padW;
    int bigH() const { return (height - 1) * strideH + kernelH - 2 * padH; }
    int bigW() const { return (width - 1) * strideW + kernelW - 2 * padW; }
    size_t smallElems() const { return size_t(batch) * channels * height * width; }
};
inline const TestShape kTiny{2, 4, 5, 7, 3, 4, 1, 2, 0, 0};
inline const TestShape kSmall{1, 16, 12, 40, 3, 4, 1, 2, 0, 0};

// The chain by definition: conv-T as a direct sum over every (co, kh, kw) whose source
// position lands on the strided grid, then the crop at (1, 1). Double throughout.
inline std::vector<double> cpuChain(const TestShape& s, int n) {
    std::vector<double> small(s.smallElems());
    for (size_t i = 0; i < small.size(); ++i) small[i] = std::sin(float(i) * 0.001f) + 1.0f;
    const size_t weightElems = size_t(s.channels) * s.channels * s.kernelH * s.kernelW;
    std::vector<double> weight(weightElems);
    for (size_t i = 0; i < weightElems; ++i) weight[i] = std::cos(float(i) * 0.01f) * 0.05f;
    const int H = s.height, W = s.width, C = s.channels, BH = s.bigH(), BW = s.bigW();
    for (int step = 0; step < n; ++step) {
        std::vector<double> big(size_t(s.batch) * C * BH * BW, 0.0);
        for (int b = 0; b < s.batch; ++b)
            for (int ci = 0; ci < C; ++ci)
                for (int y = 0; y < BH; ++y)
                    for (int x = 0; x < BW; ++x) {
                        double acc = 0;
                        for (int co = 0; co < C; ++co)
                            for (int kh = 0; kh < s.kernelH; ++kh)
                                for (int kw = 0; kw < s.kernelW; ++kw) {
                                    const int hy = y + s.padH - kh, wx = x + s.padW - kw;
                                    if (hy < 0 || wx < 0 || hy % s.strideH || wx % s.strideW) continue;
                                    const int oh = hy / s.strideH, ow = wx / s.strideW;
                                    if (oh >= H || ow >= W) continue;
                                    acc += small[((size_t(b) * C + co) * H + oh) * W + ow] *
                                           weight[((size_t(co) * C + ci) * s.kernelH + kh) * s.kernelW + kw];
                                }
                        big[((size_t(b) * C + ci) * BH + y) * BW + x] = acc;
                    }
        for (int b = 0; b < s.batch; ++b)
            for (int c = 0; c < C; ++c)
                for (int y = 0; y < H; ++y)
                    for (int x = 0; x < W; ++x)
                        small[((size_t(b) * C + c) * H + y) * W + x] =
                            big[((size_t(b) * C + c) * BH + y + 1) * BW + x + 1];
    }
    return small;
}

inline std::vector<float> readDump(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::vector<float> v;
    float x;
    while (in.read(reinterpret_cast<char*>(&x), sizeof x)) v.push_back(x);
    return v;
}

// Tolerance: the GPU sums each output in float32, at most C*ceil(KH/SH)*ceil(KW/SW) = 96
// terms per step here, over at most 8 steps; each float32 rounding is within 2^-23 of the
// running value (round-toward-zero is allowed by Vulkan). 1e-4 of the output's largest
// magnitude bounds 8 steps x 96 terms x 2^-23 (~9e-5) with no margin to hide a wrong term:
// one missing channel changes outputs by ~1/C = 6% of their size.
inline constexpr double kRelativeTolerance = 1e-4;

}  // namespace repro::test
