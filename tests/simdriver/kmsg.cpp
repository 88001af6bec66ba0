// Kernel log records of a simulated watchdog kill (kmsg.hpp).
#include "kmsg.hpp"

#include <cstdio>

namespace repro::simdriver {

std::string ringName(uint32_t queueFamily) { return queueFamily == 0 ? "gfx_0.0.0" : "comp_1.0.0"; }

std::vector<KmsgLine> kmsgLines(const KillReport& kill) {
    const std::string device = "amdgpu " + kill.pciAddress + ": amdgpu: ";
    if (kill.recovery != Recovery::Hard) {
        return {{3, device + "ring " + kill.ring + " timeout, but soft recovered"}};
    }
    return {
        {3, device + "ring " + kill.ring + " timeout, signaled seq=" + std::to_string(kill.signaledSeq) +
                ", emitted seq=" + std::to_string(kill.emittedSeq)},
        {3, device + "Process information: process " + kill.processName + " pid " + std::to_string(kill.pid) +
                " thread " + kill.threadName + " pid " + std::to_string(kill.tid)},
        {6, device + "GPU reset begin!"},
        {6, device + "GPU reset(" + std::to_string(kill.resetCount) + ") succeeded!"},
    };
}

std::string kmsgRecord(int priority, uint64_t sequence, int64_t usec, std::string_view message) {
    std::string record = std::to_string(priority) + "," + std::to_string(sequence) + "," + std::to_string(usec) + ",-;";
    for (const char c : message) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte >= 0x7f || c == '\\') {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            record += escaped;
        } else {
            record += c;
        }
    }
    return record;
}

}  // namespace repro::simdriver
