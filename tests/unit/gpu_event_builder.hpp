// Building the kernel-log evidence the cause and kernel-log tests feed in: a GpuEvent from
// one log line, as src/forensics/kernel_log.cpp would classify it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "forensics/kernel_log.hpp"

namespace repro::test {

// The event `line` (any format parseLogLine reads) classifies as, with `pid` as its
// process when given. A line that does not parse or classify fails the current test and
// gives an empty event.
inline GpuEvent gpuEvent(std::string_view line, std::optional<int64_t> pid = std::nullopt) {
    const auto record = parseLogLine(line);
    EXPECT_TRUE(record) << line;
    const auto e = record ? classifyGpuRecord(*record) : std::nullopt;
    EXPECT_TRUE(e) << "not classified: " << line;
    GpuEvent out = e.value_or(GpuEvent{});
    if (pid) out.pid = pid;
    return out;
}

}  // namespace repro::test
