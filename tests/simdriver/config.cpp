// REPRO_SIMULATE's parser: behaviours, their keys and values, and the combinations that
// conflict. Every rule here is stated in tests/README.md and covered by config_test.cpp.
#include "config.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace repro::simdriver {
namespace {

// Largest millisecond or microsecond value a setting takes: 1e9 ms is 11 days, and keeps
// every simulated time far inside int64 nanoseconds.
constexpr double kMaxDecimal = 1e9;

// clang-format off
constexpr std::array<std::string_view, kFaultCallCount> kCallNames = {
    "vkEnumeratePhysicalDevices", "vkCreateDevice",  "vkCreateComputePipelines",
    "vkCreateShaderModule",       "vkAllocateMemory", "vkMapMemory",
    "vkQueueSubmit",              "vkQueueSubmit2",   "vkWaitSemaphores",
    "vkQueueWaitIdle",            "vkDeviceWaitIdle", "vkGetQueryPoolResults",
    "vkDestroyDevice",            "vkCmdDispatchIndirect", "vkDestroyBuffer"};
// clang-format on

// VkDriverId names of the 1.3.239 headers, without "VK_DRIVER_ID_" (vulkan_core.h).
constexpr std::pair<std::string_view, VkDriverId> kDriverIds[] = {
    {"AMD_PROPRIETARY", VK_DRIVER_ID_AMD_PROPRIETARY},
    {"AMD_OPEN_SOURCE", VK_DRIVER_ID_AMD_OPEN_SOURCE},
    {"MESA_RADV", VK_DRIVER_ID_MESA_RADV},
    {"NVIDIA_PROPRIETARY", VK_DRIVER_ID_NVIDIA_PROPRIETARY},
    {"INTEL_PROPRIETARY_WINDOWS", VK_DRIVER_ID_INTEL_PROPRIETARY_WINDOWS},
    {"INTEL_OPEN_SOURCE_MESA", VK_DRIVER_ID_INTEL_OPEN_SOURCE_MESA},
    {"IMAGINATION_PROPRIETARY", VK_DRIVER_ID_IMAGINATION_PROPRIETARY},
    {"QUALCOMM_PROPRIETARY", VK_DRIVER_ID_QUALCOMM_PROPRIETARY},
    {"ARM_PROPRIETARY", VK_DRIVER_ID_ARM_PROPRIETARY},
    {"GOOGLE_SWIFTSHADER", VK_DRIVER_ID_GOOGLE_SWIFTSHADER},
    {"GGP_PROPRIETARY", VK_DRIVER_ID_GGP_PROPRIETARY},
    {"BROADCOM_PROPRIETARY", VK_DRIVER_ID_BROADCOM_PROPRIETARY},
    {"MESA_LLVMPIPE", VK_DRIVER_ID_MESA_LLVMPIPE},
    {"MOLTENVK", VK_DRIVER_ID_MOLTENVK},
    {"COREAVI_PROPRIETARY", VK_DRIVER_ID_COREAVI_PROPRIETARY},
    {"JUICE_PROPRIETARY", VK_DRIVER_ID_JUICE_PROPRIETARY},
    {"VERISILICON_PROPRIETARY", VK_DRIVER_ID_VERISILICON_PROPRIETARY},
    {"MESA_TURNIP", VK_DRIVER_ID_MESA_TURNIP},
    {"MESA_V3DV", VK_DRIVER_ID_MESA_V3DV},
    {"MESA_PANVK", VK_DRIVER_ID_MESA_PANVK},
    {"SAMSUNG_PROPRIETARY", VK_DRIVER_ID_SAMSUNG_PROPRIETARY},
    {"MESA_VENUS", VK_DRIVER_ID_MESA_VENUS},
    {"MESA_DOZEN", VK_DRIVER_ID_MESA_DOZEN},
    {"MESA_NVK", VK_DRIVER_ID_MESA_NVK},
    {"IMAGINATION_OPEN_SOURCE_MESA", VK_DRIVER_ID_IMAGINATION_OPEN_SOURCE_MESA},
};

constexpr std::pair<std::string_view, VkPhysicalDeviceType> kDeviceTypes[] = {
    {"integrated", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"discrete", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU},
    {"virtual", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"cpu", VK_PHYSICAL_DEVICE_TYPE_CPU},
    {"other", VK_PHYSICAL_DEVICE_TYPE_OTHER},
};

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

std::vector<std::string_view> split(std::string_view s, char separator) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (;;) {
        const size_t at = s.find(separator, start);
        parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return parts;
        start = at + 1;
    }
}

bool allOf(std::string_view s, bool (*accept)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), accept); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Decimal digits only, at most `max`.
std::optional<uint64_t> parseUnsigned(std::string_view s, uint64_t max) {
    if (!allOf(s, isDigit)) return std::nullopt;
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
    return v;
}

// DIGITS or DIGITS.DIGITS, at most kMaxDecimal.
std::optional<double> parseDecimal(std::string_view s) {
    const size_t dot = s.find('.');
    const std::string_view whole = s.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? "0" : s.substr(dot + 1);
    if (!allOf(whole, isDigit) || !allOf(fraction, isDigit)) return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v > kMaxDecimal) return std::nullopt;
    return v;
}

// Hexadecimal digits (no prefix), at most `max`.
std::optional<uint32_t> parseHexDigits(std::string_view s, uint32_t max, size_t maxDigits) {
    if (!allOf(s, isHexDigit) || s.size() > maxDigits) return std::nullopt;
    uint32_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    if (ec != std::errc() || end != s.data() + s.size() || v > max) return std::nullopt;
    return v;
}

// "0x" then 1 to 8 hexadecimal digits.
std::optional<uint32_t> parseHex(std::string_view s) {
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return std::nullopt;
    return parseHexDigits(s.substr(2), 0xffffffffu, 8);
}

// "A.B.C" (or "A.B.C.D" with `parts` 4), each part at most its limit.
std::optional<std::vector<uint32_t>> parseDotted(std::string_view s, const std::vector<uint32_t>& limits) {
    const auto parts = split(s, '.');
    if (parts.size() != limits.size()) return std::nullopt;
    std::vector<uint32_t> values;
    for (size_t i = 0; i < parts.size(); ++i) {
        const auto v = parseUnsigned(parts[i], limits[i]);
        if (!v) return std::nullopt;
        values.push_back(static_cast<uint32_t>(*v));
    }
    return values;
}

std::optional<PciAddress> parsePci(std::string_view s) {
    const auto colons = split(s, ':');
    if (colons.size() != 3) return std::nullopt;
    const auto devFn = split(colons[2], '.');
    if (devFn.size() != 2) return std::nullopt;
    const auto domain = parseHexDigits(colons[0], 0xffffffffu, 8);
    const auto bus = parseHexDigits(colons[1], 0xff, 2);
    const auto device = parseHexDigits(devFn[0], 0x1f, 2);
    const auto function = parseHexDigits(devFn[1], 7, 1);
    if (!domain || !bus || !device || !function) return std::nullopt;
    return PciAddress{.domain = *domain, .bus = *bus, .device = *device, .function = *function};
}

// One behaviour's argument: a leading positional value, then key=value settings.
struct Arguments {
    std::optional<std::string_view> positional;
    std::vector<std::pair<std::string_view, std::string_view>> settings;
};

// Reads one behaviour's argument text, checked against what the behaviour takes.
class ArgumentReader {
  public:
    ArgumentReader(std::string_view behaviour, std::string& error) : behaviour_(behaviour), error_(error) {}

    // Splits `text` (after the behaviour's ':'); false (error set) when an item is empty,
    // a positional value comes where none is taken or after a setting, or a key repeats
    // or is not in `keys`.
    bool read(std::string_view text, bool positionalTaken, const std::vector<std::string_view>& keys, Arguments& out) {
        const auto items = split(text, ',');
        for (size_t i = 0; i < items.size(); ++i) {
            const std::string_view item = items[i];
            const size_t eq = item.find('=');
            if (item.empty()) {
                return fail("empty item in " + quoted(text) + " (two ',' in a row, or one at an end)");
            }
            if (eq == std::string_view::npos) {
                if (!positionalTaken) {
                    return fail(quoted(item) + " is not key=value (keys: " + keyList(keys) + ")");
                }
                if (out.positional) return fail(quoted(item) + ": only one value without a key is taken");
                if (i != 0) return fail(quoted(item) + " must come first, before the key=value settings");
                out.positional = item;
                continue;
            }
            const std::string_view key = item.substr(0, eq);
            const std::string_view value = item.substr(eq + 1);
            if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                return fail("unknown key " + quoted(key) +
                            (keys.empty() ? " (it takes no keys)" : " (keys: " + keyList(keys) + ")"));
            }
            const bool repeated =
                std::any_of(out.settings.begin(), out.settings.end(), [&](const auto& s) { return s.first == key; });
            if (repeated) return fail("key " + quoted(key) + " given twice");
            if (value.empty()) return fail(std::string(key) + "=: empty value");
            out.settings.emplace_back(key, value);
        }
        return true;
    }

    bool fail(const std::string& what) {
        if (error_.empty()) error_ = std::string(behaviour_) + ": " + what;
        return false;
    }

  private:
    static std::string keyList(const std::vector<std::string_view>& keys) {
        std::string list;
        for (const auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        return list;
    }

    std::string_view behaviour_;
    std::string& error_;
};

// Applies each setting through `apply(key, value)`, which returns false for a bad value.
template <typename Apply>
bool eachSetting(const Arguments& args, Apply&& apply) {
    return std::all_of(args.settings.begin(), args.settings.end(),
                       [&](const auto& s) { return apply(s.first, s.second); });
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text) {}

    ParseResult run();

  private:
    bool behaviour(std::string_view item);
    bool identity(ArgumentReader& r, std::optional<std::string_view> arg);
    bool identitySetting(ArgumentReader& r, Identity& id, std::string_view key, std::string_view value);
    bool seedBug(ArgumentReader& r, std::optional<std::string_view> arg);
    bool flaky(ArgumentReader& r, std::optional<std::string_view> arg);
    bool clock(ArgumentReader& r, std::optional<std::string_view> arg);
    bool watchdog(ArgumentReader& r, std::optional<std::string_view> arg);
    bool costSetting(ArgumentReader& r, ClockCost& cost, std::string_view key, std::string_view value);
    bool stale(ArgumentReader& r, std::optional<std::string_view> arg);
    bool hang(ArgumentReader& r, std::optional<std::string_view> arg);
    bool fault(ArgumentReader& r, std::string_view name, std::optional<std::string_view> arg);
    bool api(ArgumentReader& r, std::optional<std::string_view> arg);
    bool dropTransfers(ArgumentReader& r, std::optional<std::string_view> arg);
    bool lostTransitions(ArgumentReader& r, std::optional<std::string_view> arg);
    bool noStorageImages(ArgumentReader& r, std::optional<std::string_view> arg);
    bool weakBarriers(ArgumentReader& r, std::optional<std::string_view> arg);
    bool deviceFault(ArgumentReader& r, std::optional<std::string_view> arg);
    bool secondFamily(ArgumentReader& r, std::optional<std::string_view> arg);
    bool curedBy(ArgumentReader& r, std::optional<std::string_view> arg);
    bool conflicts();

    bool fail(const std::string& what) {
        if (error_.empty()) error_ = what;
        return false;
    }

    std::string_view text_;
    std::string error_;
    Config config_;
    std::set<std::string, std::less<>> seen_;
};

bool badValue(ArgumentReader& r, std::string_view key, std::string_view value, std::string_view expected) {
    return r.fail(std::string(key) + "=" + std::string(value) + ": " + std::string(expected));
}

bool Parser::identitySetting(ArgumentReader& r, Identity& id, std::string_view key, std::string_view value) {
    auto text = [&](std::optional<std::string>& field) {
        if (value.size() >= VK_MAX_DRIVER_NAME_SIZE) return badValue(r, key, value, "longer than 255 bytes");
        field = std::string(value);
        return true;
    };
    if (key == "name") return text(id.name);
    if (key == "driver-name") return text(id.driverName);
    if (key == "driver-info") return text(id.driverInfo);
    if (key == "driver-id") {
        id.driverId = parseDriverId(value);
        return id.driverId ||
               badValue(r, key, value,
                        "not a VkDriverId of the Vulkan 1.3.239 headers (e.g. DRIVER_ID_MESA_RADV or MESA_RADV)");
    }
    if (key == "vendor" || key == "device") {
        (key == "vendor" ? id.vendorId : id.deviceId) = parseHex(value);
        return (key == "vendor" ? id.vendorId : id.deviceId) ||
               badValue(r, key, value, "not 0x and 1 to 8 hexadecimal digits");
    }
    if (key == "type") {
        for (const auto& [n, t] : kDeviceTypes) {
            if (n == value) id.type = t;
        }
        return id.type || badValue(r, key, value, "not integrated, discrete, virtual, cpu or other");
    }
    if (key == "api") {
        const auto v = parseDotted(value, {127, 1023, 4095});
        if (!v) return badValue(r, key, value, "not MAJOR.MINOR.PATCH (at most 127.1023.4095)");
        if ((*v)[0] < 1) return badValue(r, key, value, "below Vulkan 1.0");
        id.apiVersion = VK_MAKE_API_VERSION(0, (*v)[0], (*v)[1], (*v)[2]);
        return true;
    }
    if (key == "driver-version") {  // Mesa's packing, or the raw number of any other
        const auto v = parseDotted(value, {1023, 1023, 4095});
        id.driverVersion = v ? std::optional(VK_MAKE_VERSION((*v)[0], (*v)[1], (*v)[2])) : parseHex(value);
        return id.driverVersion || badValue(r, key, value,
                                            "not MAJOR.MINOR.PATCH (packed as VK_MAKE_VERSION, at most "
                                            "1023.1023.4095) or 0x and 1 to 8 hexadecimal digits");
    }
    if (key == "conformance") {
        const auto v = parseDotted(value, {255, 255, 255, 255});
        if (!v) return badValue(r, key, value, "not A.B.C.D (each 0 to 255)");
        id.conformance = VkConformanceVersion{static_cast<uint8_t>((*v)[0]), static_cast<uint8_t>((*v)[1]),
                                              static_cast<uint8_t>((*v)[2]), static_cast<uint8_t>((*v)[3])};
        return true;
    }
    id.pci = parsePci(value);  // key == "pci"
    return id.pci || badValue(r, key, value, "not DOMAIN:BUS:DEV.FN in hexadecimal (e.g. 0000:c4:00.0)");
}

bool Parser::identity(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (!arg) {
        config_.identity = defaultIdentity();
        return true;
    }
    Arguments args;
    if (!r.read(*arg, false,
                {"name", "driver-id", "driver-name", "driver-info", "vendor", "device", "type", "api", "driver-version",
                 "conformance", "pci"},
                args)) {
        return false;
    }
    Identity id;
    if (!eachSetting(args, [&](auto k, auto v) { return identitySetting(r, id, k, v); })) return false;
    config_.identity = id;
    return true;
}

bool Parser::seedBug(ArgumentReader& r, std::optional<std::string_view> arg) {
    SeedBug bug;
    Arguments args;
    if (arg && !r.read(*arg, false, {"dispatches"}, args)) return false;
    if (!eachSetting(args, [&](auto k, auto v) {
            const auto n = parseUnsigned(v, UINT32_MAX);
            bug.dispatches = static_cast<uint32_t>(n.value_or(0));
            return n || badValue(r, k, v, "not a whole number of dispatches (0 to 4294967295)");
        })) {
        return false;
    }
    config_.seedBug = bug;
    return true;
}

bool Parser::flaky(ArgumentReader& r, std::optional<std::string_view> arg) {
    Flaky f;
    Arguments args;
    if (!arg || !r.read(*arg, true, {"dispatches", "seed"}, args)) {
        return arg ? false : r.fail("needs a probability: flaky:P with P from 0 to 1");
    }
    if (!args.positional) return r.fail("needs a probability first: flaky:P[,dispatches=K][,seed=S]");
    const auto p = parseDecimal(*args.positional);
    if (!p || *p > 1.0) return r.fail(quoted(*args.positional) + " is not a probability (0 to 1, e.g. 0.3)");
    f.probability = *p;
    if (!eachSetting(args, [&](auto k, auto v) {
            const auto n = parseUnsigned(v, k == "seed" ? UINT64_MAX : UINT32_MAX);
            if (!n) {
                return badValue(r, k, v,
                                k == "seed" ? "not a whole number (0 to 2^64-1)"
                                            : "not a whole number of dispatches (0 to 4294967295)");
            }
            if (k == "seed") {
                f.seed = *n;
            } else {
                f.dispatches = static_cast<uint32_t>(*n);
            }
            return true;
        })) {
        return false;
    }
    config_.flaky = f;
    return true;
}

bool Parser::costSetting(ArgumentReader& r, ClockCost& cost, std::string_view key, std::string_view value) {
    const auto v = parseDecimal(value);
    if (!v) return badValue(r, key, value, "not a number (digits, optionally one '.'; at most 1e9)");
    (key == "us-per-wg" ? cost.usPerWorkgroup : cost.msPerDispatch) = *v;
    return true;
}

bool Parser::clock(ArgumentReader& r, std::optional<std::string_view> arg) {
    ClockCost cost;
    Arguments args;
    if (!arg) return r.fail("needs us-per-wg=U: clock:us-per-wg=U[,ms-per-dispatch=M]");
    if (!r.read(*arg, false, {"us-per-wg", "ms-per-dispatch"}, args)) return false;
    if (!eachSetting(args, [&](auto k, auto v) { return costSetting(r, cost, k, v); })) return false;
    const bool hasRate =
        std::any_of(args.settings.begin(), args.settings.end(), [](const auto& s) { return s.first == "us-per-wg"; });
    if (!hasRate) return r.fail("needs us-per-wg=U: clock:us-per-wg=U[,ms-per-dispatch=M]");
    if (cost.usPerWorkgroup == 0 && cost.msPerDispatch == 0) {
        return r.fail("every dispatch would cost 0 ms (give us-per-wg or ms-per-dispatch above 0)");
    }
    config_.clock = cost;
    return true;
}

bool Parser::watchdog(ArgumentReader& r, std::optional<std::string_view> arg) {
    Watchdog w;
    Arguments args;
    if (!arg) {
        return r.fail(
            "needs timeout=MS: "
            "watchdog:timeout=MS[,us-per-wg=U][,ms-per-dispatch=M][,recovery=soft|soft-next-submit|hard][,kmsg=FILE]");
    }
    if (!r.read(*arg, false, {"timeout", "us-per-wg", "ms-per-dispatch", "recovery", "kmsg"}, args)) {
        return false;
    }
    bool hasTimeout = false;
    if (!eachSetting(args, [&](std::string_view k, std::string_view v) {
            if (k == "us-per-wg" || k == "ms-per-dispatch") return costSetting(r, w.cost, k, v);
            if (k == "kmsg") {
                w.kmsgPath = std::string(v);
                return true;
            }
            if (k == "recovery") {
                w.recovery = v == "hard"               ? Recovery::Hard
                             : v == "soft-next-submit" ? Recovery::SoftNextSubmit
                                                       : Recovery::Soft;
                return v == "soft" || v == "hard" || v == "soft-next-submit" ||
                       badValue(r, k, v, "not soft, soft-next-submit or hard");
            }
            const auto ms = parseDecimal(v);
            hasTimeout = true;
            w.timeoutMs = ms.value_or(0);
            return (ms && *ms > 0) ||
                   badValue(r, k, v, "not a number of milliseconds above 0 (digits, optionally one '.')");
        })) {
        return false;
    }
    if (!hasTimeout) return r.fail("needs timeout=MS");
    if (w.cost.usPerWorkgroup == 0 && w.cost.msPerDispatch == 0) {
        return r.fail("no dispatch costs time, so nothing can time out (give us-per-wg or ms-per-dispatch above 0)");
    }
    config_.watchdog = w;
    return true;
}

bool Parser::stale(ArgumentReader& r, std::optional<std::string_view> arg) {
    Arguments args;
    if (!arg) return r.fail("needs dispatch=D: stale:dispatch=D");
    if (!r.read(*arg, false, {"dispatch"}, args)) return false;
    if (args.settings.empty()) return r.fail("needs dispatch=D: stale:dispatch=D");
    const auto d = parseUnsigned(args.settings[0].second, UINT32_MAX);
    if (!d || *d == 0) {
        return badValue(r, "dispatch", args.settings[0].second, "not a dispatch number (1-based)");
    }
    config_.stale = Stale{.dispatch = static_cast<uint32_t>(*d)};
    return true;
}

bool Parser::hang(ArgumentReader& r, std::optional<std::string_view> arg) {
    Hang h;
    Arguments args;
    if (arg && !r.read(*arg, false, {"dispatches"}, args)) return false;
    if (!eachSetting(args, [&](auto k, auto v) {
            const auto n = parseUnsigned(v, UINT32_MAX);
            h.dispatches = static_cast<uint32_t>(n.value_or(0));
            return n || badValue(r, k, v, "not a whole number of dispatches (0 to 4294967295)");
        })) {
        return false;
    }
    config_.hang = h;
    return true;
}

bool Parser::fault(ArgumentReader& r, std::string_view name, std::optional<std::string_view> arg) {
    const FaultKind kind = name == "crash"   ? FaultKind::Crash
                           : name == "abort" ? FaultKind::Abort
                           : name == "stall" ? FaultKind::Stall
                                             : FaultKind::Lost;
    Arguments args;
    const std::string form = std::string(name) + ":CALL[:k]";
    if (!arg) return r.fail("needs the entry point: " + form);
    if (!r.read(*arg, true, {}, args)) return false;
    if (!args.positional) return r.fail("needs the entry point: " + form);
    const auto parts = split(*args.positional, ':');
    if (parts.size() > 2) return r.fail(quoted(*args.positional) + " is not CALL or CALL:k");
    if (parts[0] == "vkCreateInstance") {
        return r.fail(
            "vkCreateInstance cannot be a fault point: the layer reads REPRO_SIMULATE there (the earliest is "
            "vkEnumeratePhysicalDevices)");
    }
    // An extension alias is the same entry point.
    const std::string_view call = parts[0] == "vkWaitSemaphoresKHR" ? "vkWaitSemaphores"
                                  : parts[0] == "vkQueueSubmit2KHR" ? "vkQueueSubmit2"
                                                                    : parts[0];
    const auto it = std::find(kCallNames.begin(), kCallNames.end(), call);
    if (it == kCallNames.end()) {
        std::string known;
        for (const auto n : kCallNames) known += (known.empty() ? "" : ", ") + std::string(n);
        return r.fail("unknown entry point " + quoted(parts[0]) + " (" + known + ")");
    }
    Fault f{.kind = kind, .call = static_cast<FaultCall>(it - kCallNames.begin())};
    if (parts.size() == 2) {
        const auto k = parseUnsigned(parts[1], UINT64_MAX);
        if (!k || *k == 0) return r.fail(quoted(parts[1]) + " is not a call number k (1-based)");
        f.k = *k;
    }
    if (kind == FaultKind::Lost && f.call == FaultCall::EnumeratePhysicalDevices) {
        return r.fail("vkEnumeratePhysicalDevices has no device to lose (use crash, abort or stall there)");
    }
    if (kind == FaultKind::Lost && (f.call == FaultCall::DestroyDevice || f.call == FaultCall::CmdDispatchIndirect ||
                                    f.call == FaultCall::DestroyBuffer)) {
        return r.fail(std::string(call) + " returns no result, so it cannot report a lost device");
    }
    if (kind == FaultKind::Lost) {
        config_.lost = f;
    } else if (config_.processFault) {
        return fail(std::string(faultName(config_.processFault->kind)) + " and " + std::string(name) +
                    " conflict: one of crash, abort and stall at a time");
    } else {
        config_.processFault = f;
    }
    return true;
}

bool Parser::api(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (!arg) return r.fail("needs the version: api:1.0");
    if (*arg != "1.0") return r.fail("only 1.0 can be simulated (" + quoted(*arg) + " given)");
    config_.api10 = true;
    return true;
}

bool Parser::weakBarriers(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg && *arg != "hang") return r.fail("takes no argument or hang (" + quoted(*arg) + " given)");
    config_.weakBarriers = true;
    config_.weakBarriersHang = arg.has_value();
    return true;
}

bool Parser::dropTransfers(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg) return r.fail("takes no argument (" + quoted(*arg) + " given)");
    config_.dropTransfers = true;
    return true;
}

bool Parser::lostTransitions(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg) return r.fail("takes no argument (" + quoted(*arg) + " given)");
    config_.lostTransitions = true;
    return true;
}

bool Parser::noStorageImages(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg) return r.fail("takes no argument (" + quoted(*arg) + " given)");
    config_.noStorageImages = true;
    return true;
}

bool Parser::deviceFault(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg) return r.fail("takes no argument (" + quoted(*arg) + " given)");
    config_.deviceFault = true;
    return true;
}

bool Parser::secondFamily(ArgumentReader& r, std::optional<std::string_view> arg) {
    if (arg) return r.fail("takes no argument (" + quoted(*arg) + " given)");
    config_.secondFamily = true;
    return true;
}

bool Parser::curedBy(ArgumentReader& r, std::optional<std::string_view> arg) {
    Arguments args;
    if (!arg) return r.fail("needs the option: cured-by:OPTION[,variable=VARIABLE]");
    if (!r.read(*arg, true, {"variable"}, args)) return false;
    if (!args.positional) return r.fail("needs the option first: cured-by:OPTION[,variable=VARIABLE]");
    CuredBy cure{.option = std::string(*args.positional)};
    if (!eachSetting(args, [&](auto, auto v) { return (cure.variable = std::string(v)), true; })) return false;
    config_.curedBy = cure;
    return true;
}

bool Parser::behaviour(std::string_view item) {
    if (item.empty()) return fail("empty behaviour (two ';' in a row, or one at an end)");
    const size_t colon = item.find(':');
    const std::string_view name = item.substr(0, colon);
    std::optional<std::string_view> arg;
    if (colon != std::string_view::npos) arg = item.substr(colon + 1);
    ArgumentReader r(name, error_);
    if (arg && arg->empty()) return r.fail("empty argument after ':'");
    static const std::vector<std::string_view> kNames = {"identity",
                                                         "seed-bug",
                                                         "watchdog",
                                                         "clock",
                                                         "stale",
                                                         "crash",
                                                         "abort",
                                                         "stall",
                                                         "lost",
                                                         "flaky",
                                                         "api",
                                                         "hang",
                                                         "drop-transfers",
                                                         "second-family",
                                                         "device-fault",
                                                         "cured-by",
                                                         "lost-transitions",
                                                         "no-storage-images",
                                                         "weak-barriers"};
    if (std::find(kNames.begin(), kNames.end(), name) == kNames.end()) {
        std::string known;
        for (const auto n : kNames) known += (known.empty() ? "" : ", ") + std::string(n);
        return fail("unknown behaviour " + quoted(name) + " (behaviours: " + known + ")");
    }
    if (!seen_.insert(std::string(name)).second) return fail(quoted(name) + " given twice");
    if (name == "identity") return identity(r, arg);
    if (name == "seed-bug") return seedBug(r, arg);
    if (name == "flaky") return flaky(r, arg);
    if (name == "clock") return clock(r, arg);
    if (name == "watchdog") return watchdog(r, arg);
    if (name == "stale") return stale(r, arg);
    if (name == "hang") return hang(r, arg);
    if (name == "api") return api(r, arg);
    if (name == "drop-transfers") return dropTransfers(r, arg);
    if (name == "lost-transitions") return lostTransitions(r, arg);
    if (name == "no-storage-images") return noStorageImages(r, arg);
    if (name == "weak-barriers") return weakBarriers(r, arg);
    if (name == "second-family") return secondFamily(r, arg);
    if (name == "device-fault") return deviceFault(r, arg);
    if (name == "cured-by") return curedBy(r, arg);
    return fault(r, name, arg);
}

bool Parser::conflicts() {
    const Config& c = config_;
    if (c.watchdog && c.clock) {
        return fail("watchdog and clock conflict: watchdog has its own clock (us-per-wg, ms-per-dispatch)");
    }
    std::vector<std::string> bugs;
    if (c.seedBug) bugs.emplace_back("seed-bug");
    if (c.flaky) bugs.emplace_back("flaky");
    if (c.stale) bugs.emplace_back("stale");
    if (c.hang) bugs.emplace_back("hang");
    // A hang is ended by the watchdog: the two go together.
    if (c.watchdog && !c.hang) bugs.emplace_back("watchdog");
    if (c.dropTransfers) bugs.emplace_back("drop-transfers");
    if (c.lostTransitions) bugs.emplace_back("lost-transitions");
    if (c.weakBarriers) bugs.emplace_back("weak-barriers");
    if (bugs.size() > 1) {
        return fail(bugs[0] + " and " + bugs[1] + " conflict: one cause of wrong results at a time");
    }
    if (c.curedBy && !c.seedBug && !c.flaky && !c.stale && !c.hang && !c.dropTransfers && !c.weakBarriers) {
        return fail("cured-by needs a wrong result to cure: seed-bug, flaky, stale, hang or drop-transfers");
    }
    if (c.weakBarriersHang && !c.watchdog && !c.clock) {
        return fail("weak-barriers:hang needs watchdog or clock: a hung dispatch never ends on the simulated clock");
    }
    if (c.hang && !c.watchdog && !c.clock) {
        return fail("hang needs watchdog or clock: a hung dispatch never ends on the simulated clock");
    }
    if (c.identity && c.identity->apiVersion && c.api10) {
        return fail("identity's api= and api:1.0 conflict: both set apiVersion");
    }
    if (c.lost && c.processFault && c.lost->call == c.processFault->call && c.lost->k == c.processFault->k) {
        return fail("lost and " + std::string(faultName(c.processFault->kind)) + " conflict: both act in call " +
                    std::to_string(c.lost->k) + " of " + std::string(callName(c.lost->call)));
    }
    return true;
}

ParseResult Parser::run() {
    if (!text_.empty()) {
        for (const std::string_view item : split(text_, ';')) {
            if (!behaviour(item)) break;
        }
        if (error_.empty()) conflicts();
    }
    if (!error_.empty()) {
        return {.config = std::nullopt, .error = "repro-simulate: REPRO_SIMULATE=" + quoted(text_) + ": " + error_};
    }
    return {.config = config_, .error = {}};
}

}  // namespace

std::string_view callName(FaultCall call) { return kCallNames[static_cast<size_t>(call)]; }

bool isWait(FaultCall call) {
    return call == FaultCall::WaitSemaphores || call == FaultCall::QueueWaitIdle || call == FaultCall::DeviceWaitIdle;
}

std::string_view faultName(FaultKind kind) {
    switch (kind) {
        case FaultKind::Crash:
            return "crash";
        case FaultKind::Abort:
            return "abort";
        case FaultKind::Stall:
            return "stall";
        case FaultKind::Lost:
            return "lost";
    }
    return "?";
}

std::string pciText(const PciAddress& pci) {
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", pci.domain, pci.bus, pci.device, pci.function);
    return text;
}

Identity defaultIdentity() {
    return Identity{.name = "AMD Radeon 890M Graphics (RADV STRIX1)",
                    .driverId = VK_DRIVER_ID_MESA_RADV,
                    .driverName = "radv",
                    .driverInfo = "Mesa 26.0.2",
                    .vendorId = 0x1002,
                    .deviceId = 0x150e,
                    .type = VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                    .driverVersion = VK_MAKE_VERSION(26, 0, 2)};
}

bool Config::empty() const {
    return !identity && !seedBug && !flaky && !clock && !watchdog && !stale && !hang && !processFault && !lost &&
           !api10 && !dropTransfers && !lostTransitions && !noStorageImages && !secondFamily && !deviceFault &&
           !curedBy && !weakBarriers;
}

bool optionListed(std::string_view list, std::string_view option) {
    if (list == "all") return true;
    while (!list.empty()) {
        const size_t end = list.find_first_of(", ");
        if (list.substr(0, end) == option) return true;
        list.remove_prefix(end == std::string_view::npos ? list.size() : end + 1);
    }
    return false;
}

Config cured(const Config& config, std::optional<std::string_view> value) {
    Config out = config;
    if (!config.curedBy || !value || !optionListed(*value, config.curedBy->option)) return out;
    out.seedBug.reset();
    out.flaky.reset();
    out.stale.reset();
    out.hang.reset();
    out.dropTransfers = false;
    out.weakBarriers = false;
    out.weakBarriersHang = false;
    return out;
}

std::optional<ClockCost> Config::cost() const {
    if (watchdog) return watchdog->cost;
    return clock;
}

std::optional<VkDriverId> parseDriverId(std::string_view name) {
    if (name.starts_with("VK_")) name.remove_prefix(3);
    if (name.starts_with("DRIVER_ID_")) name.remove_prefix(10);
    for (const auto& [n, id] : kDriverIds) {
        if (n == name) return id;
    }
    return std::nullopt;
}

ParseResult parseSimulate(std::string_view text) { return Parser(text).run(); }

}  // namespace repro::simdriver
