// The scenario parser's buffers and steps (see scenario/scenario_parse_steps.hpp).
#include "scenario/scenario_parse_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <ranges>
#include <set>
#include <span>
#include <utility>

#include "core/spirv_module.hpp"
#include "reference/cpu_reference.hpp"
#include "scenario/scenario_cpu.hpp"
#include "scenario/scenario_parse_images.hpp"
#include "scenario/scenario_sync.hpp"

namespace repro::scenario::parse {

namespace {

// chain-input / chain-weight take the file's shape; their words are made later (fillChainWords).
void checkChainShape(const Parser& p, const toml::table& t, const Scenario& s, InitKind init) {
    if (!s.shape)
        p.fail(*t.get("init"), fmt::format("init = \"{}\" takes the file's shape; expected shape = \"small\" (or "
                                           "tiny, spectrostream) at the top of the file",
                                           name(init)));
}

}  // namespace

BufferSpec parseBuffer(const Parser& p, const toml::table& t, const Scenario& s, uint64_t imageBytes) {
    BufferSpec b;
    b.place = placeOf(t);
    if (imageBytes > 0) {  // an [[image]]'s keys that a buffer has (parseImage checked its keys)
        b.name = p.name(t, "name", true, "an [[image]]", "image");
        b.bytes = imageBytes;
    } else {
        p.onlyKeys(t, {"name", "bytes", "memory", "init", "value", "words", "sharing", "ownership_transfers"},
                   "a [[buffer]]");
        b.name = p.name(t, "name", true, "a [[buffer]]", "buffer");
        if (!t.get("bytes")) p.fail(t, fmt::format("buffer '{}' has no 'bytes'; expected bytes = 4096", b.name));
        b.bytes = p.integer(t, "bytes", 0, kMaxBufferBytes);
    }
    if (b.bytes < 4 || b.bytes % 4 != 0)
        p.fail(*t.get("bytes"), fmt::format("buffer '{}': bytes = {}; expected a multiple of 4 from 4 to {}", b.name,
                                            b.bytes, kMaxBufferBytes));
    constexpr Placement kPlacements[] = {Placement::DeviceLocal, Placement::HostVisible, Placement::Shared};
    b.placement =
        p.choice(t, "memory", kPlacements, Placement::DeviceLocal, "memory", "device-local, host-visible or shared");
    const std::string sharing = p.text(t, "sharing", false, "");
    if (sharing == "concurrent") {
        b.concurrent = true;
    } else if (!sharing.empty() && sharing != "exclusive") {
        p.fail(*t.get("sharing"), fmt::format("unknown sharing '{}'; expected exclusive or concurrent", sharing));
    }
    if (const toml::node* transfers = t.get("ownership_transfers")) {
        if (!transfers->is_boolean()) p.fail(*transfers, "'ownership_transfers' must be true or false");
        b.ownershipTransfers = *transfers->value<bool>();
        if (b.concurrent && !b.ownershipTransfers)
            p.fail(*transfers, fmt::format("{} '{}' is concurrent and has no ownership transfers to leave out; "
                                           "expected ownership_transfers = false on an exclusive {}",
                                           imageBytes ? "image" : "buffer", b.name, imageBytes ? "image" : "buffer"));
    }
    constexpr InitKind kInits[] = {InitKind::Zero, InitKind::Pattern,   InitKind::Iota,       InitKind::Random,
                                   InitKind::Host, InitKind::Undefined, InitKind::ChainInput, InitKind::ChainWeight};
    b.init = p.choice(t, "init", kInits, InitKind::Zero, "init",
                      "zero, pattern, iota, random, host, undefined, chain-input or chain-weight");
    b.value = static_cast<uint32_t>(p.integer(t, "value", 0, 0xffffffffULL));
    b.words = p.words(t, "words");
    if (b.init == InitKind::Host && b.words.empty())
        p.fail(t, fmt::format("buffer '{}' has init = \"host\" and no words; expected words = [1, 2, 3]", b.name));
    if (b.init == InitKind::ChainInput || b.init == InitKind::ChainWeight) checkChainShape(p, t, s, b.init);
    return b;
}

namespace {

// The keys of one kernel alone: compare-swap's `phase` (0, 1 or "alternate", kept in the `add`
// slot), private-array's `private_words` (required); each refused on any other kernel.
void parseKernelKeys(const Parser& p, const toml::table& t, Dispatch& d) {
    const std::string kernel(name(d.kernel));
    if (const toml::node* phase = t.get("phase")) {
        if (d.kernel != Kernel::CompareSwap)
            p.fail(*phase, fmt::format("'phase' is a compare-swap key; kernel {} takes none", kernel));
        if (t.get("add")) p.fail(*t.get("add"), "compare-swap takes 'phase', not 'add'");
        const auto v = phase->value<int64_t>();
        const auto text = phase->value<std::string_view>();
        if (phase->is_integer() && (*v == 0 || *v == 1)) {
            d.params.add = static_cast<uint32_t>(*v);
        } else if (phase->is_string() && *text == "alternate") {
            d.params.add = 0, d.alternatePhase = true;
        } else {
            p.fail(*phase, "compare-swap's 'phase' must be 0, 1 or \"alternate\" (the repetition's parity)");
        }
    } else if (d.kernel == Kernel::CompareSwap) {
        p.fail(t, "a compare-swap dispatch has no 'phase'; expected phase = 0, 1 or \"alternate\"");
    }
    const toml::node* words = t.get("private_words");
    if (words && d.kernel != Kernel::PrivateArray)
        p.fail(*words, fmt::format("'private_words' is a private-array key; kernel {} takes none", kernel));
    if (d.kernel != Kernel::PrivateArray) return;
    if (!words) p.fail(t, "a private-array dispatch has no 'private_words'; expected e.g. private_words = 256");
    if (!words->is_integer() || *words->value<int64_t>() < 1 || *words->value<int64_t>() > kMaxPrivateWords)
        p.fail(*words, fmt::format("'private_words' must be an integer from 1 to {} (32-bit words per invocation)",
                                   kMaxPrivateWords));
    d.privateWords = static_cast<uint32_t>(*words->value<int64_t>());
}

const BufferSpec& namedBuffer(const Parser& p, const toml::table& t, std::string_view key, const Scenario& s) {
    return requireBuffer(p, *t.get(key), key, p.text(t, key, true, "this step"), s);
}

// A built-in kernel's bindings: images for image-increment (r32ui) and image-copy (one format
// and extent), buffers for every other kernel.
void checkBindingKinds(const Parser& p, const toml::table& t, const Scenario& s, const Dispatch& d) {
    for (size_t i = 0; i < d.bindings.size(); ++i) {
        const toml::node& where = (*t.get("bindings")->as_array())[i];
        if (!isImageKernel(d.kernel)) {
            requireBuffer(p, where, "bindings", d.bindings[i], s);
            continue;
        }
        const BufferSpec* b = s.buffer(d.bindings[i]);
        if (!b->image)
            p.fail(where, fmt::format("kernel {} binds storage images; '{}' is a buffer", name(d.kernel), b->name));
        if (d.kernel == Kernel::ImageIncrement && b->image->format != ImageFormat::R32ui)
            p.fail(where, fmt::format("image-increment adds to r32ui texels; image '{}' is {}", b->name,
                                      name(b->image->format)));
        const ImageSpec& first = *s.buffer(d.bindings[0])->image;
        if (b->image->format != first.format || b->image->width != first.width || b->image->height != first.height)
            p.fail(where, fmt::format("image-copy copies between images of one format and extent; '{}' is {} {}x{}, "
                                      "'{}' {} {}x{}",
                                      d.bindings[0], name(first.format), first.width, first.height, b->name,
                                      name(b->image->format), b->image->width, b->image->height));
    }
}

// The indirect-writer's keys: `offset` (bytes, a multiple of 4, the command inside `args`)
// and `x`, `y`, `z` (the words written, default 1); each refused on any other kernel, and
// count, add and work refused on it.
void parseWriterKeys(const Parser& p, const toml::table& t, const Scenario& s, Dispatch& d) {
    const bool writer = d.kernel == Kernel::IndirectWriter;
    for (const std::string_view key : {"offset", "x", "y", "z"}) {
        if (!writer && t.get(key))
            p.fail(*t.get(key),
                   fmt::format("'{}' is an indirect-writer key; kernel {} takes none", key, name(d.kernel)));
    }
    if (!writer) return;
    for (const std::string_view key : {"count", "add", "work"}) {
        if (t.get(key)) p.fail(*t.get(key), fmt::format("indirect-writer takes offset, x, y and z, not '{}'", key));
    }
    d.writer.offset = p.integer(t, "offset", 0, kMaxBufferBytes);
    d.writer.groups[0] = static_cast<uint32_t>(p.integer(t, "x", 1, 0xffffffffULL));
    d.writer.groups[1] = static_cast<uint32_t>(p.integer(t, "y", 1, 0xffffffffULL));
    d.writer.groups[2] = static_cast<uint32_t>(p.integer(t, "z", 1, 0xffffffffULL));
    const BufferSpec& args = *s.buffer(d.bindings.at(0));
    if (d.writer.offset % 4 != 0 || d.writer.offset + 12 > args.bytes)
        p.fail(at(t, "offset"),
               fmt::format("the command written at byte {} of '{}' ({} bytes) does not fit; expected a multiple of 4 "
                           "with offset + 12 <= {} (a VkDispatchIndirectCommand is 12 bytes)",
                           d.writer.offset, args.name, args.bytes, args.bytes));
}

// dispatch_indirect's `args` (a buffer) and `args_offset` (bytes, a multiple of 4: Vulkan spec,
// vkCmdDispatchIndirect), the 12 bytes of the command inside the buffer.
IndirectArgs parseIndirectArgs(const Parser& p, const toml::table& t, const Scenario& s) {
    const BufferSpec& b = namedBuffer(p, t, "args", s);
    IndirectArgs a{.buffer = b.name, .offset = p.integer(t, "args_offset", 0, kMaxBufferBytes)};
    if (a.offset % 4 != 0 || a.offset + 12 > b.bytes)
        p.fail(at(t, "args_offset"),
               fmt::format("the group counts read at byte {} of '{}' ({} bytes) do not fit; expected args_offset a "
                           "multiple of 4 with args_offset + 12 <= {} (a VkDispatchIndirectCommand is 12 bytes)",
                           a.offset, b.name, b.bytes, b.bytes));
    return a;
}

}  // namespace

std::optional<std::string> indexWraps(const Dispatch& d, const uint32_t (&groups)[3]) {
    const uint64_t most = maxIndexedInvocations(d);
    const uint64_t n = invocations(groups);
    if (most == 0 || n <= most) return std::nullopt;
    return fmt::format(
        "{} invocations ({} per workgroup), more than the {} that kernel {}'s 32-bit {} numbers "
        "without wrapping; expected at most {} invocations",
        n, kWorkgroupSize, most, name(d.kernel),
        d.kernel == Kernel::CompareSwap ? "pair index 2 * i + phase + 1" : "invocation index", most);
}

namespace {

// `groups` (default [ceil(count / 64), 1, 1]), each 1..kMaxGroups, and no more invocations
// than the kernel's 32-bit index reaches (indexWraps).
void parseGroups(const Parser& p, const toml::table& t, Dispatch& d) {
    d.groups[0] = (d.params.count + kWorkgroupSize - 1) / kWorkgroupSize;
    if (d.kernel == Kernel::IndirectWriter) d.groups[0] = 1;
    if (const toml::node* g = t.get("groups")) {
        const auto counts = p.words(t, "groups");
        if (counts.empty() || counts.size() > 3) p.fail(*g, "'groups' must be [x], [x, y] or [x, y, z]");
        for (size_t i = 0; i < counts.size(); ++i) d.groups[i] = counts[i];
    }
    const toml::node& where = at(t, "groups");
    for (const uint32_t g : d.groups) {
        if (g == 0 || g > kMaxGroups)
            p.fail(where, fmt::format("workgroup count {} is out of range; expected 1..{}", g, kMaxGroups));
    }
    if (const auto why = indexWraps(d, d.groups))
        p.fail(where, fmt::format("groups [{}, {}, {}] make {}", d.groups[0], d.groups[1], d.groups[2], *why));
}

// Binding i of user kernel `k` names `b`: a buffer where the module declares a storage buffer,
// an image of the module's format where it declares a storage image (one line at `where` else).
void checkUserBinding(const Parser& p, const toml::node& where, const UserKernel& k, size_t i, const BufferSpec& b) {
    const std::optional<uint32_t> format = k.images.at(i);
    if (format.has_value() != b.image.has_value())
        p.fail(where, fmt::format("kernel {} binding {} is a storage {} in its module; '{}' is {}; expected {}", k.name,
                                  i, format ? "image" : "buffer", b.name, b.image ? "an image" : "a buffer",
                                  format ? "an [[image]]" : "a [[buffer]]"));
    if (!format) return;
    const uint32_t declared = b.image->format == ImageFormat::R32ui  ? kSpirvImageFormatR32ui
                              : b.image->format == ImageFormat::R32f ? kSpirvImageFormatR32f
                                                                     : kSpirvImageFormatRgba8;
    if (*format != declared)
        p.fail(where, fmt::format("kernel {} binding {} is a storage image of format {} (its module's OpTypeImage); "
                                  "image '{}' is {}; expected an image of that format",
                                  k.name, i, spirvImageFormatName(*format), b.name, name(b.image->format)));
}

// A dispatch of a user kernel: its module's bindings (all of them, in binding order), the
// push constants count, add and work as for the built-in kernels, and `groups` required
// (repro cannot count a user kernel's invocations); dispatch_indirect takes args instead.
Step parseUserDispatch(const Parser& p, const toml::table& t, const Scenario& s, const UserKernel& k, bool indirect) {
    for (const std::string_view key : {"phase", "private_words", "offset", "x", "y", "z"}) {
        if (t.get(key))
            p.fail(*t.get(key),
                   fmt::format("'{}' is a key of a built-in kernel; user kernel {} takes none", key, k.name));
    }
    Dispatch d{.user = k.name, .bindings = p.strings(t, "bindings")};
    if (d.bindings.size() != k.writes.size())
        p.fail(at(t, "bindings"),
               fmt::format("kernel {} takes {} binding(s) (its module {} declares set 0, bindings 0..{}); got {}",
                           k.name, k.writes.size(), k.spirv, k.writes.size() - 1, d.bindings.size()));
    uint64_t words = ~uint64_t{0};
    for (size_t i = 0; i < d.bindings.size(); ++i) {
        const toml::node& where = (*t.get("bindings")->as_array())[i];
        const BufferSpec* b = s.buffer(d.bindings[i]);
        if (!b) p.fail(where, fmt::format("binding '{}' is no {}", d.bindings[i], k.images[i] ? "image" : "buffer"));
        checkUserBinding(p, where, k, i, *b);
        words = std::min(words, b->bytes / 4);
    }
    d.params.count = static_cast<uint32_t>(p.integer(t, "count", words, 0xffffffffULL));
    d.params.add = static_cast<uint32_t>(p.integer(t, "add", 1, 0xffffffffULL));
    d.params.work = static_cast<uint32_t>(p.integer(t, "work", 1, kMaxWork));
    if (indirect) {
        d.indirect = parseIndirectArgs(p, t, s);
    } else {
        if (!t.get("groups"))
            p.fail(t, fmt::format("a dispatch of user kernel {} has no 'groups'; expected groups = [x, y, z] (repro "
                                  "cannot count a user kernel's invocations)",
                                  k.name));
        parseGroups(p, t, d);
    }
    return {.body = d,
            .label = fmt::format("{} {} (user SPIR-V)", indirect ? "dispatch-indirect" : "dispatch", k.name),
            .place = placeOf(t)};
}

// A dispatch of conv-t or slice: `bindings` alone (their parameters and workgroup counts come
// from the file's shape, as the built-in chain's do), each bound buffer at least as large as
// the shape's small, weight or big tensor.
Step parseChainDispatch(const Parser& p, const toml::table& t, const Scenario& s, Kernel k, bool indirect) {
    const std::string kernel(name(k));
    if (indirect)
        p.fail(*t.get("dispatch_indirect"), fmt::format("{} has no indirect form; expected dispatch", kernel));
    p.onlyKeys(t, {"dispatch", "bindings"},
               fmt::format("a {} dispatch (its parameters and workgroups come from the file's shape)", kernel));
    if (!s.shape)
        p.fail(t, fmt::format("a {} dispatch takes the file's shape; expected shape = \"small\" (or tiny, "
                              "spectrostream) at the top of the file",
                              kernel));
    const ChainSizes sizes = computeSizes(*s.shape);
    Dispatch d{.kernel = k, .bindings = p.strings(t, "bindings")};
    const auto wanted = kernelBindings(k);
    const std::vector<std::pair<uint64_t, std::string_view>> needs =
        k == Kernel::ConvT
            ? std::vector<std::pair<uint64_t, std::string_view>>{{sizes.smallBytes, "small"},
                                                                 {sizes.weightBytes, "weight"},
                                                                 {sizes.bigBytes, "big"}}
            : std::vector<std::pair<uint64_t, std::string_view>>{{sizes.bigBytes, "big"}, {sizes.smallBytes, "small"}};
    const toml::node& where = at(t, "bindings");
    if (d.bindings.size() != wanted.size())
        p.fail(where, fmt::format("kernel {} takes {} binding(s) ({}); got {}", kernel, wanted.size(),
                                  k == Kernel::ConvT ? "input, weight, output" : "input, output", d.bindings.size()));
    for (size_t i = 0; i < d.bindings.size(); ++i) {
        const BufferSpec* b = s.buffer(d.bindings[i]);
        if (!b) p.fail((*t.get("bindings")->as_array())[i], fmt::format("binding '{}' is no buffer", d.bindings[i]));
        requireBuffer(p, (*t.get("bindings")->as_array())[i], "bindings", b->name, s);
        if (b->bytes < needs[i].first)
            p.fail((*t.get("bindings")->as_array())[i],
                   fmt::format("{}'s {} '{}' has {} bytes; shape '{}' needs {} (its {} tensor)", kernel, wanted[i],
                               b->name, b->bytes, s.shapeName, needs[i].first, needs[i].second));
    }
    const auto& g = k == Kernel::ConvT ? sizes.convWorkgroups : sizes.sliceWorkgroups;
    std::copy(g.begin(), g.end(), d.groups);
    return {.body = d, .label = fmt::format("dispatch {}", kernel), .place = placeOf(t)};
}

// A dispatch step, or with `indirect` a dispatch_indirect step (no groups; args and
// args_offset instead).
Step parseDispatch(const Parser& p, const toml::table& t, const Scenario& s, bool indirect) {
    const std::string_view key = indirect ? "dispatch_indirect" : "dispatch";
    if (indirect) {
        p.onlyKeys(t,
                   {key, "bindings", "count", "add", "work", "args", "args_offset", "phase", "private_words", "offset",
                    "x", "y", "z"},
                   "a dispatch_indirect step");
    } else {
        p.onlyKeys(
            t, {key, "bindings", "count", "add", "work", "groups", "phase", "private_words", "offset", "x", "y", "z"},
            "a dispatch step");
    }
    Dispatch d;
    const std::string kernel = p.text(t, key, true, "");
    if (const UserKernel* user = s.kernel(kernel)) return parseUserDispatch(p, t, s, *user, indirect);
    const auto k = parseKernel(kernel);
    if (!k)
        p.fail(*t.get(key),
               fmt::format("unknown kernel '{}'; expected increment, copy, noop, compare-swap, "
                           "private-array, work, indirect-writer, conv-t, slice, image-increment or image-copy",
                           kernel));
    if (isChainKernel(*k)) return parseChainDispatch(p, t, s, *k, indirect);
    d.kernel = *k;
    d.bindings = p.strings(t, "bindings");
    const auto wanted = kernelBindings(d.kernel);
    if (d.bindings.size() != wanted.size())
        p.fail(at(t, "bindings"), fmt::format("kernel {} takes {} binding(s) ({}); got {}", kernel, wanted.size(),
                                              fmt::join(wanted, ", "), d.bindings.size()));
    uint64_t words = ~uint64_t{0};
    for (size_t i = 0; i < d.bindings.size(); ++i) {
        const BufferSpec* b = s.buffer(d.bindings[i]);
        if (!b) p.fail((*t.get("bindings")->as_array())[i], fmt::format("binding '{}' is no buffer", d.bindings[i]));
        words = std::min(words, b->bytes / 4);
    }
    checkBindingKinds(p, t, s, d);
    if (isImageKernel(d.kernel)) d.imageFormat = s.buffer(d.bindings[0])->image->format;
    parseWriterKeys(p, t, s, d);
    d.params.count = static_cast<uint32_t>(p.integer(t, "count", words, words));
    d.params.add = static_cast<uint32_t>(p.integer(t, "add", 1, 0xffffffffULL));
    d.params.work = static_cast<uint32_t>(p.integer(t, "work", 1, kMaxWork));
    parseKernelKeys(p, t, d);
    if (indirect) {
        d.indirect = parseIndirectArgs(p, t, s);
    } else {
        parseGroups(p, t, d);
    }
    return {.body = d,
            .label = fmt::format("{} {}", indirect ? "dispatch-indirect" : "dispatch", kernel),
            .place = placeOf(t)};
}

// A byte range [offset, offset + size) inside `b`, aligned to 4 where `aligned`.
void checkRange(const Parser& p, const toml::table& t, const BufferSpec& b, uint64_t offset, uint64_t size,
                bool aligned) {
    if (aligned && (offset % 4 != 0 || size % 4 != 0))
        p.fail(t, fmt::format("offset {} and size {} in '{}' must be multiples of 4 (Vulkan requires it here)", offset,
                              size, b.name));
    if (size == 0 || offset + size > b.bytes)
        p.fail(t, fmt::format("bytes [{}, {}) are not inside buffer '{}' ({} bytes); expected a non-empty range in it",
                              offset, offset + size, b.name, b.bytes));
}

Step parseFill(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"fill", "offset", "size", "value"}, "a fill step");
    const BufferSpec& b = namedBuffer(p, t, "fill", s);
    Fill f{.buffer = b.name, .offset = p.integer(t, "offset", 0, kMaxBufferBytes)};
    f.size = p.integer(t, "size", b.bytes > f.offset ? b.bytes - f.offset : 0, kMaxBufferBytes);
    f.value = static_cast<uint32_t>(p.integer(t, "value", 0, 0xffffffffULL));
    checkRange(p, t, b, f.offset, f.size, true);
    return {.body = f, .label = fmt::format("fill {}", b.name), .place = placeOf(t)};
}

Step parseUpdate(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"update", "offset", "words"}, "an update step");
    const BufferSpec& b = namedBuffer(p, t, "update", s);
    Update u{.buffer = b.name, .offset = p.integer(t, "offset", 0, kMaxBufferBytes), .words = p.words(t, "words")};
    if (u.words.size() * 4 > 65536) p.fail(t, "an update writes at most 65536 bytes (vkCmdUpdateBuffer's limit)");
    checkRange(p, t, b, u.offset, u.words.size() * 4, true);
    return {.body = u, .label = fmt::format("update {}", b.name), .place = placeOf(t)};
}

Step parseCopy(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"copy", "from", "src_offset", "dst_offset", "size"}, "a copy step");
    const BufferSpec& dst = namedBuffer(p, t, "copy", s);
    const BufferSpec& src = namedBuffer(p, t, "from", s);
    Copy c{.src = src.name,
           .dst = dst.name,
           .srcOffset = p.integer(t, "src_offset", 0, kMaxBufferBytes),
           .dstOffset = p.integer(t, "dst_offset", 0, kMaxBufferBytes)};
    const uint64_t room =
        std::min(src.bytes - std::min(src.bytes, c.srcOffset), dst.bytes - std::min(dst.bytes, c.dstOffset));
    c.size = p.integer(t, "size", room, kMaxBufferBytes);
    checkRange(p, t, src, c.srcOffset, c.size, false);
    checkRange(p, t, dst, c.dstOffset, c.size, false);
    if (src.name == dst.name && c.srcOffset < c.dstOffset + c.size && c.dstOffset < c.srcOffset + c.size)
        p.fail(t, "a copy within one buffer must not overlap itself (vkCmdCopyBuffer forbids it)");
    return {.body = c, .label = fmt::format("copy {} -> {}", src.name, dst.name), .place = placeOf(t)};
}

// The buffer a host point names: it must be mapped, host-visible or shared (the host reaches
// only mapped memory).
const BufferSpec& hostBuffer(const Parser& p, const toml::table& t, std::string_view key, const Scenario& s) {
    const BufferSpec& b = namedBuffer(p, t, key, s);
    if (b.placement == Placement::DeviceLocal)
        p.fail(*t.get(key), fmt::format("{} names buffer '{}', which is {}; expected a buffer with memory = "
                                        "\"host-visible\" or \"shared\" (the host reaches only mapped memory)",
                                        key, b.name, name(b.placement)));
    return b;
}

Step parseHostWrite(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"host_write", "offset", "words"}, "a host_write step");
    const BufferSpec& b = hostBuffer(p, t, "host_write", s);
    HostWrite h{.buffer = b.name, .offset = p.integer(t, "offset", 0, kMaxBufferBytes), .words = p.words(t, "words")};
    if (h.words.empty()) p.fail(t, "a host_write step has no words; expected words = [1, 2, 3]");
    checkRange(p, t, b, h.offset, h.words.size() * 4, true);
    return {.body = h, .label = fmt::format("host-write {}", b.name), .place = placeOf(t)};
}

Step parseHostRead(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t, {"host_read"}, "a host_read step");
    const BufferSpec& b = hostBuffer(p, t, "host_read", s);
    return {.body = HostRead{.buffer = b.name}, .label = fmt::format("host-read {}", b.name), .place = placeOf(t)};
}

Step parseBarrier(const Parser& p, const toml::table& t, const Scenario& s) {
    p.onlyKeys(t,
               {"barrier", "form", "src_stage", "dst_stage", "src_access", "dst_access", "buffer", "control", "image",
                "old_layout", "new_layout"},
               "a barrier step");
    Barrier b;
    constexpr BarrierKind kKinds[] = {BarrierKind::BladeGlobal, BarrierKind::BladeCompute,  BarrierKind::Memory,
                                      BarrierKind::Buffer,      BarrierKind::ExecutionOnly, BarrierKind::None,
                                      BarrierKind::Image};
    b.kind = p.choice(t, "barrier", kKinds, BarrierKind::BladeGlobal, "barrier",
                      "blade-g, blade-c, memory, buffer, image, execution-only or none");
    const std::string_view kind = name(b.kind);
    for (const char* key : {"image", "old_layout", "new_layout"}) {
        if (b.kind != BarrierKind::Image && t.get(key))
            p.fail(*t.get(key), fmt::format("'{}' is a key of an image barrier; expected barrier = \"image\"", key));
    }
    const std::string form = p.text(t, "form", false, "");
    if (!form.empty() && form != "sync2" && form != "original")
        p.fail(*t.get("form"), fmt::format("unknown form '{}'; expected sync2 or original", form));
    b.sync2 = form != "original";
    b.srcStage = p.bits(t, "src_stage", kStages, "stage");
    b.dstStage = p.bits(t, "dst_stage", kStages, "stage");
    b.srcAccess = p.bits(t, "src_access", kAccesses, "access");
    b.dstAccess = p.bits(t, "dst_access", kAccesses, "access");
    const bool explicitMasks = b.kind == BarrierKind::Memory || b.kind == BarrierKind::Buffer ||
                               b.kind == BarrierKind::ExecutionOnly || b.kind == BarrierKind::Image;
    if (explicitMasks && (b.srcStage == 0 || b.dstStage == 0))
        p.fail(t, fmt::format("a {} barrier needs src_stage and dst_stage; expected e.g. src_stage = [\"compute\"]",
                              kind));
    if (!b.sync2 && ((b.srcAccess | b.dstAccess) >> 32) != 0)
        p.fail(t, "shader-storage-read/-write exist only in the sync2 form; expected shader-read/-write");
    if (b.kind == BarrierKind::Buffer) b.buffer = namedBuffer(p, t, "buffer", s).name;
    if (b.kind == BarrierKind::Image) parseImageBarrierKeys(p, t, s, b);
    const toml::node* control = t.get("control");
    if (control && !control->is_boolean()) p.fail(*control, "'control' must be true or false");
    b.control =
        (control && *control->value<bool>()) || b.kind == BarrierKind::ExecutionOnly || b.kind == BarrierKind::None;
    std::string label = fmt::format("barrier {}", kind);
    if (b.kind == BarrierKind::Image)
        label += fmt::format(" {} {} -> {}", b.buffer, name(b.oldLayout), name(b.newLayout));
    if (b.control) label += " (control)";
    return {.body = b, .label = label, .place = placeOf(t)};
}

// signal = "s" (value = N for a timeline) or wait = "s" (value, stage = [...]).
Step parseSemaphoreStep(const Parser& p, const toml::table& t, const Scenario& s, bool signal) {
    const std::string_view key = signal ? "signal" : "wait";
    if (signal) {
        p.onlyKeys(t, {"signal", "value"}, "a signal step");
    } else {
        p.onlyKeys(t, {"wait", "value", "stage", "control"}, "a wait step");
    }
    const std::string wanted = p.text(t, key, true, "");
    const auto it = std::find_if(s.semaphores.begin(), s.semaphores.end(),
                                 [&](const SemaphoreSpec& sem) { return sem.name == wanted; });
    if (it == s.semaphores.end()) {
        std::string list;
        for (const auto& sem : s.semaphores) list += (list.empty() ? "'" : ", '") + sem.name + "'";
        p.fail(*t.get(key), fmt::format("'{}' names '{}', which is no [[semaphore]]; expected {}", key, wanted,
                                        list.empty() ? "a [[semaphore]] table declaring it" : "one of " + list));
    }
    const auto index = static_cast<uint32_t>(it - s.semaphores.begin());
    const uint64_t value = p.integer(t, "value", 0, uint64_t{INT64_MAX});
    if (it->timeline && value == 0)
        p.fail(at(t, "value"),
               fmt::format("timeline semaphore '{}' needs value = N (1 or more) on its {}", wanted, key));
    if (!it->timeline && t.get("value"))
        p.fail(*t.get("value"), fmt::format("binary semaphore '{}' takes no 'value'; only a timeline has one", wanted));
    std::string label = fmt::format("{} {}", key, wanted);
    if (it->timeline) label += fmt::format(" = {}", value);
    if (signal) return {.body = Signal{.semaphore = index, .value = value}, .label = label, .place = placeOf(t)};
    Wait w{.semaphore = index, .value = value};
    if (t.get("stage")) w.stage = p.bits(t, "stage", kStages, "stage");
    if (const toml::node* control = t.get("control")) {
        if (!control->is_boolean()) p.fail(*control, "'control' must be true or false");
        w.control = *control->value<bool>();
    }
    if (w.control) label += " (control)";
    return {.body = w, .label = label, .place = placeOf(t)};
}

Step parseStep(const Parser& p, const toml::table& t, const Scenario& s) {
    if (t.get("signal")) return parseSemaphoreStep(p, t, s, true);
    if (t.get("wait")) return parseSemaphoreStep(p, t, s, false);
    if (t.get("dispatch")) return parseDispatch(p, t, s, false);
    if (t.get("dispatch_indirect")) return parseDispatch(p, t, s, true);
    if (t.get("fill")) return parseFill(p, t, s);
    if (t.get("update")) return parseUpdate(p, t, s);
    if (t.get("copy")) return parseCopy(p, t, s);
    if (t.get("barrier")) return parseBarrier(p, t, s);
    if (t.get("host_write")) return parseHostWrite(p, t, s);
    if (t.get("host_read")) return parseHostRead(p, t, s);
    for (const char* key : {"copy_buffer_to_image", "copy_image_to_buffer", "copy_image", "clear_image"}) {
        if (t.get(key)) return parseImageTransfer(p, t, s);
    }
    p.fail(t,
           "a [[step]] needs one of dispatch, dispatch_indirect, fill, update, copy, barrier, host_write, "
           "host_read, signal, wait, copy_buffer_to_image, copy_image_to_buffer, copy_image or clear_image");
}

// A step's `queue = "NAME"` (default "main"), taken out of `t` before its own keys are checked.
uint32_t takeQueue(const Parser& p, toml::table& t, const Scenario& s) {
    const toml::node* node = t.get("queue");
    if (!node) return 0;
    const std::string wanted = p.text(t, "queue", true, "");
    for (uint32_t q = 0; q < s.queues.size(); ++q) {
        if (s.queues[q].name == wanted) {
            t.erase("queue");
            return q;
        }
    }
    // s.queues holds "main" at least
    p.fail(*node, fmt::format("'queue' names '{}', which is no queue; expected one of '{}' (a [[queue]] declares one)",
                              wanted, fmt::join(std::views::transform(s.queues, &QueueSpec::name), "', '")));
}

// A step's `modes = ["single", ...]` as read (modes of a barrier step: Step::modeMask).
struct ModesKey {
    uint8_t mask = 7;
    std::string list;                          // "single", "multipass, single"
    std::optional<toml::source_region> where;  // the key's value, when the step has the key
};

// Takes `modes` out of `t` before the step's own keys are checked (checked against the step
// once it is parsed: applyModes).
ModesKey takeModes(const Parser& p, toml::table& t) {
    ModesKey out;
    const toml::node* node = t.get("modes");
    if (!node) return out;
    static constexpr std::string_view kNames[] = {"split", "multipass", "single"};
    out.mask = 0;
    for (const std::string& m : p.strings(t, "modes")) {
        const auto* at = std::find(std::begin(kNames), std::end(kNames), m);
        if (at == std::end(kNames))
            p.fail(*node, fmt::format("unknown mode '{}' in 'modes'; expected split, multipass or single", m));
        out.mask |= static_cast<uint8_t>(1u << (at - std::begin(kNames)));
    }
    if (out.mask == 0) p.fail(*node, "'modes' is empty; expected at least one of split, multipass, single");
    for (size_t i = 0; i < std::size(kNames); ++i) {
        if (out.mask & (1u << i)) out.list += fmt::format("{}{}", out.list.empty() ? "" : ", ", kNames[i]);
    }
    out.where = node->source();
    t.erase("modes");
    return out;
}

// A barrier step takes the modes that record it, and its label says which; any other step
// refuses the key: its work must be the same in every mode.
void applyModes(const Parser& p, const ModesKey& modes, Step& step) {
    if (!modes.where) return;
    if (!std::holds_alternative<Barrier>(step.body))
        p.fail(*modes.where,
               "only a barrier step takes 'modes' (every mode must do the same work; a barrier may differ)");
    step.modeMask = modes.mask;
    if (modes.mask != 7) step.label += fmt::format(" ({} only)", modes.list);
}

// The step's label "step N ..." once it has its place in the list, with " (repetition r of K)"
// when it comes from a repeat; a compare-swap with phase = "alternate" takes r's parity.
void appendOne(Step step, uint64_t repetition, uint64_t repeat, Scenario& s) {
    if (auto* d = std::get_if<Dispatch>(&step.body); d && d->alternatePhase)
        d->params.add = static_cast<uint32_t>(repetition % 2);
    step.label = fmt::format("step {} {}", s.steps.size() + 1, step.label);
    if (step.queue != 0) step.label += " on queue " + s.queues[step.queue].name;
    if (repeat > 1) step.label += fmt::format(" (repetition {} of {})", repetition + 1, repeat);
    s.steps.push_back(std::move(step));
}

}  // namespace

void appendSteps(const Parser& p, toml::table& t, Scenario& s, RepeatSeen& biggest) {
    const toml::node* repeatNode = t.get("repeat");
    const uint64_t repeat = p.integer(t, "repeat", 1, ~uint64_t{0});
    if (repeatNode && (repeat == 0 || repeat > kMaxSteps))
        p.fail(*repeatNode, fmt::format("'repeat' must be 1..{}", kMaxSteps));
    const SourcePlace repeatPlace = repeatNode ? placeOf(*repeatNode) : SourcePlace{};
    std::vector<Step> body;
    const auto parseOne = [&](toml::table& st) {  // `queue` and `modes` taken out first
        const uint32_t queue = takeQueue(p, st, s);
        const ModesKey modes = takeModes(p, st);
        body.push_back(parseStep(p, st, s));
        body.back().queue = queue;
        applyModes(p, modes, body.back());
    };
    if (toml::node* inner = t.get("steps")) {
        p.onlyKeys(t, {"repeat", "steps"}, "a group [[step]] (repeat and [[step.steps]])");
        if (!repeatNode) p.fail(t, "a group [[step]] has no 'repeat'; expected repeat = 2 or more");
        toml::array* list = inner->as_array();
        if (!list || list->empty()) p.fail(*inner, "'steps' must be [[step.steps]] tables, at least one");
        for (auto& e : *list) {
            toml::table* st = e.as_table();
            if (!st) p.fail(e, "'steps' must be [[step.steps]] tables");
            if (st->get("repeat") || st->get("steps"))
                p.fail(st->get("repeat") ? *st->get("repeat") : *st->get("steps"),
                       "a step inside a group has no 'repeat' or 'steps' of its own; groups do not nest");
            parseOne(*st);
        }
    } else {
        t.erase("repeat");
        parseOne(t);
    }
    if (s.steps.size() + repeat * body.size() > kMaxSteps) {
        if (repeatNode)
            p.failAt(repeatPlace,
                     fmt::format("the steps repeated come to more than {} steps; expected fewer", kMaxSteps));
        if (biggest.steps == 0)
            p.fail(t, fmt::format("the file comes to more than {} steps; expected fewer", kMaxSteps));
        p.failAt(biggest.place, fmt::format("the steps repeated here make {} steps, and with the steps after them the "
                                            "file comes to more than {} at step {} (line {}); expected fewer",
                                            biggest.steps, kMaxSteps, s.steps.size() + 1, t.source().begin.line));
    }
    if (repeatNode && repeat * body.size() > biggest.steps) biggest = {repeatPlace, repeat * body.size()};
    for (uint64_t r = 0; r < repeat; ++r) {
        for (const Step& step : body) appendOne(step, r, repeat, s);
    }
    for (const Step& step : body) {
        const auto* d = std::get_if<Dispatch>(&step.body);
        if (d && d->alternatePhase && repeat == 1)
            p.failAt(step.place,
                     "phase = \"alternate\" needs a repeat; expected repeat = 2 or more, or phase = 0 or 1");
    }
}

void checkReadBeforeWrite(const Parser& p, const Scenario& s) {
    std::set<std::string> written;
    for (const auto& b : s.buffers) {
        if (b.init != InitKind::Undefined) written.insert(b.name);
    }
    for (const auto& step : s.steps) {
        std::vector<std::string> reads, writes;
        stepAccesses(step, s, reads, writes);
        for (const auto& r : reads) {
            if (!written.count(r))
                p.failAt(step, fmt::format("reads buffer '{}' before any step writes it (its init is \"undefined\"); "
                                           "expected a write first or an init",
                                           r));
        }
        written.insert(writes.begin(), writes.end());
    }
    for (const auto& b : s.buffers) {
        if (b.checked && !written.count(b.name))
            p.failAt(b.place, fmt::format("buffer '{}' is checked but nothing writes it (its init is \"undefined\"); "
                                          "expected a write or an init",
                                          b.name));
    }
}

}  // namespace repro::scenario::parse
