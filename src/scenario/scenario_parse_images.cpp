// The scenario parser's images (see scenario/scenario_parse_images.hpp).
#include "scenario/scenario_parse_images.hpp"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scenario/scenario_cpu.hpp"

namespace repro::scenario::parse {
namespace {

constexpr ImageLayout kLayouts[] = {ImageLayout::Undefined, ImageLayout::General, ImageLayout::TransferSrc,
                                    ImageLayout::TransferDst, ImageLayout::ShaderReadOnly};

ImageLayout layoutKey(const Parser& p, const toml::table& t, std::string_view key, ImageLayout fallback) {
    return p.choice(t, key, kLayouts, fallback, "layout",
                    "undefined, general, transfer-src, transfer-dst or shader-read-only");
}

// `key` = [x, y] (default 0, 0).
std::pair<uint32_t, uint32_t> pair(const Parser& p, const toml::table& t, std::string_view key, uint32_t fallback) {
    if (!t.get(key)) return {fallback, fallback};
    const auto v = p.words(t, key);
    if (v.size() != 2) p.fail(*t.get(key), fmt::format("'{}' must be [x, y] (texels)", key));
    return {v[0], v[1]};
}

const BufferSpec& namedImage(const Parser& p, const toml::table& t, std::string_view key, const Scenario& s) {
    const std::string n = p.text(t, key, true, "this step");
    const BufferSpec* b = s.buffer(n);
    if (!b || !b->image)
        p.fail(*t.get(key), fmt::format("'{}' names '{}', which is {}; expected an [[image]]'s name", key, n,
                                        b ? "a buffer" : "no image"));
    return *b;
}

// The region [x, x + w) x [y, y + h) must lie inside image `b`.
void checkRegion(const Parser& p, const toml::node& where, const BufferSpec& b, uint32_t x, uint32_t y, uint32_t w,
                 uint32_t h) {
    const ImageSpec& i = *b.image;
    if (w == 0 || h == 0 || uint64_t{x} + w > i.width || uint64_t{y} + h > i.height)
        p.fail(where, fmt::format("texels [{}, {}) x [{}, {}) are not inside image '{}' ({}x{}); expected a non-empty "
                                  "region in its extent",
                                  x, uint64_t{x} + w, y, uint64_t{y} + h, b.name, i.width, i.height));
}

// The buffer side of a copy between a buffer and an image: `buffer_offset` (a multiple of 4),
// the region's texels tightly packed from there.
void bufferSide(const Parser& p, const toml::table& t, const BufferSpec& b, ImageTransfer& x) {
    x.bufferOffset = p.integer(t, "buffer_offset", 0, kMaxBufferBytes);
    const uint64_t bytes = uint64_t{x.width} * x.height * 4;
    if (x.bufferOffset % 4 != 0 || x.bufferOffset + bytes > b.bytes)
        p.fail(at(t, "buffer_offset"),
               fmt::format("the region's {} bytes at byte {} are not inside buffer '{}' ({} bytes); expected "
                           "buffer_offset a multiple of 4 with buffer_offset + {} <= {}",
                           bytes, x.bufferOffset, b.name, b.bytes, bytes, b.bytes));
}

}  // namespace

const BufferSpec& requireBuffer(const Parser& p, const toml::node& where, std::string_view key, const std::string& n,
                                const Scenario& s) {
    const BufferSpec* b = s.buffer(n);
    if (!b) p.fail(where, fmt::format("'{}' names '{}', which is no buffer", key, n));
    if (b->image)
        p.fail(where, fmt::format("'{}' names '{}', which is an image; expected a buffer (images take "
                                  "image-increment, image-copy and the image transfers)",
                                  key, n));
    return *b;
}

ImageSpec parseImageKeys(const Parser& p, const toml::table& t) {
    p.onlyKeys(t,
               {"name", "width", "height", "format", "tiling", "layout", "memory", "init", "value", "words", "check",
                "sharing", "ownership_transfers"},
               "an [[image]]");
    ImageSpec i;
    const std::string n = p.name(t, "name", true, "an [[image]]", "image");
    for (const auto& [key, side] : {std::pair{"width", &i.width}, std::pair{"height", &i.height}}) {
        if (!t.get(key)) p.fail(t, fmt::format("image '{}' has no '{}'; expected {} = 64", n, key, key));
        *side = static_cast<uint32_t>(p.integer(t, key, 0, kMaxImageSide));
        if (*side == 0) p.fail(*t.get(key), fmt::format("'{}' must be 1..{} texels", key, kMaxImageSide));
    }
    constexpr ImageFormat kFormats[] = {ImageFormat::R32ui, ImageFormat::R32f, ImageFormat::Rgba8unorm};
    i.format = p.choice(t, "format", kFormats, ImageFormat::R32ui, "format", "r32ui, r32f or rgba8unorm");
    const std::string tiling = t.get("tiling") ? p.text(t, "tiling", true, "") : "optimal";
    if (tiling != "optimal" && tiling != "linear")
        p.fail(*t.get("tiling"), fmt::format("unknown tiling '{}'; expected optimal or linear", tiling));
    i.linear = tiling == "linear";
    i.layout = layoutKey(p, t, "layout", ImageLayout::General);
    if (i.layout == ImageLayout::Undefined)
        p.fail(*t.get("layout"),
               "an image starts in the layout repro's upload leaves it in; expected general, "
               "transfer-src, transfer-dst or shader-read-only, not undefined");
    return i;
}

void finishImage(const Parser& p, const toml::table& t, const ImageSpec& i, BufferSpec& b) {
    if (b.init == InitKind::ChainInput || b.init == InitKind::ChainWeight)
        p.fail(*t.get("init"), "an image takes zero, pattern, iota, random, host or undefined");
    if (const toml::node* check = t.get("check")) {
        if (!check->is_boolean()) p.fail(*check, "'check' must be true or false");
        b.checked = *check->value<bool>();
    }
    b.image = i;
}

Step parseImageTransfer(const Parser& p, const toml::table& t, const Scenario& s) {
    ImageTransfer x;
    for (const auto k : {ImageTransferKind::BufferToImage, ImageTransferKind::ImageToBuffer,
                         ImageTransferKind::ImageToImage, ImageTransferKind::Clear}) {
        if (t.get(name(k))) x.kind = k;
    }
    const std::string_view key = name(x.kind);
    using K = ImageTransferKind;
    switch (x.kind) {
        case K::Clear:
            p.onlyKeys(t, {key, "value"}, "a clear_image step (it clears the whole image)");
            break;
        case K::ImageToImage:
            p.onlyKeys(t, {key, "from", "src_offset", "dst_offset", "extent"}, "a copy_image step");
            break;
        default:
            p.onlyKeys(t, {key, "from", "buffer_offset", "offset", "extent"}, fmt::format("a {} step", key));
    }
    const bool toImage = x.kind != K::ImageToBuffer;
    const BufferSpec& dst =
        toImage ? namedImage(p, t, key, s) : requireBuffer(p, at(t, key), key, p.text(t, key, true, ""), s);
    x.dst = dst.name;
    if (x.kind == K::Clear) {
        x.value = static_cast<uint32_t>(p.integer(t, "value", 0, 0xffffffffULL));
        x.width = dst.image->width, x.height = dst.image->height, x.format = dst.image->format;
        x.dstPitch = uint64_t{x.width} * 4;
        return {.body = x, .label = fmt::format("clear-image {}", dst.name), .place = placeOf(t)};
    }
    const bool fromImage = x.kind != K::BufferToImage;
    if (!t.get("from")) p.fail(t, fmt::format("a {} step has no 'from'; expected from = \"name\"", key));
    const BufferSpec& src = fromImage ? namedImage(p, t, "from", s)
                                      : requireBuffer(p, at(t, "from"), "from", p.text(t, "from", true, ""), s);
    x.src = src.name;
    const auto [sx, sy] = pair(p, t, x.kind == K::ImageToImage ? "src_offset" : "offset", 0);
    const auto [dx, dy] = pair(p, t, x.kind == K::ImageToImage ? "dst_offset" : "offset", 0);
    x.srcX = fromImage ? sx : 0, x.srcY = fromImage ? sy : 0, x.dstX = toImage ? dx : 0, x.dstY = toImage ? dy : 0;
    // the extent by default: as far as every image side reaches from its offset
    uint32_t w = kMaxImageSide, h = kMaxImageSide;
    if (fromImage)
        w = std::min(w, src.image->width - std::min(src.image->width, x.srcX)),
        h = std::min(h, src.image->height - std::min(src.image->height, x.srcY));
    if (toImage)
        w = std::min(w, dst.image->width - std::min(dst.image->width, x.dstX)),
        h = std::min(h, dst.image->height - std::min(dst.image->height, x.dstY));
    std::tie(x.width, x.height) = t.get("extent") ? pair(p, t, "extent", 0) : std::pair{w, h};
    const toml::node& where = at(t, "extent");
    if (fromImage) checkRegion(p, where, src, x.srcX, x.srcY, x.width, x.height);
    if (toImage) checkRegion(p, where, dst, x.dstX, x.dstY, x.width, x.height);
    if (!fromImage) bufferSide(p, t, src, x);
    if (!toImage) bufferSide(p, t, dst, x);
    const auto side = [&](const BufferSpec& b, uint32_t px, uint32_t py, uint64_t& byte, uint64_t& pitch) {
        pitch = b.image ? uint64_t{b.image->width} * 4 : uint64_t{x.width} * 4;
        byte = b.image ? (uint64_t{py} * b.image->width + px) * 4 : x.bufferOffset;
    };
    side(src, x.srcX, x.srcY, x.srcByte, x.srcPitch);
    side(dst, x.dstX, x.dstY, x.dstByte, x.dstPitch);
    if (src.name == dst.name)
        p.fail(t, "a copy_image copies between two images; expected from and the destination to differ");
    return {.body = x, .label = fmt::format("{} {} -> {}", key, src.name, dst.name), .place = placeOf(t)};
}

void parseImageBarrierKeys(const Parser& p, const toml::table& t, const Scenario& s, Barrier& b) {
    b.buffer = namedImage(p, t, "image", s).name;
    for (const char* key : {"old_layout", "new_layout"}) {
        if (!t.get(key)) p.fail(t, fmt::format("an image barrier has no '{}'; expected {} = \"general\"", key, key));
    }
    b.oldLayout = layoutKey(p, t, "old_layout", ImageLayout::General);
    b.newLayout = layoutKey(p, t, "new_layout", ImageLayout::General);
    if (b.newLayout == ImageLayout::Undefined)
        p.fail(*t.get("new_layout"), "new_layout = \"undefined\": Vulkan allows no transition into undefined");
}

namespace {

// The layouts a step needs each image it uses in, by image name: the first a rule allows and,
// where a second is allowed, the second (general serves every transfer too).
std::map<std::string, std::vector<ImageLayout>> layoutsNeeded(const Step& step, const Scenario& s) {
    std::map<std::string, std::vector<ImageLayout>> out;
    if (const auto* d = std::get_if<Dispatch>(&step.body)) {
        for (const auto& b : d->bindings) {
            if (s.buffer(b) && s.buffer(b)->image) out[b] = {ImageLayout::General};
        }
    } else if (const auto* x = std::get_if<ImageTransfer>(&step.body)) {
        if (x->kind != ImageTransferKind::BufferToImage && x->kind != ImageTransferKind::Clear)
            out[x->src] = {ImageLayout::TransferSrc, ImageLayout::General};
        if (x->kind != ImageTransferKind::ImageToBuffer) out[x->dst] = {ImageLayout::TransferDst, ImageLayout::General};
    }
    return out;
}

}  // namespace

void checkImageLayouts(const Parser& p, Scenario& s) {
    std::map<std::string, ImageLayout> layout;
    std::map<std::string, const Step*> discarded;  // by an undefined old_layout, not written since
    for (const auto& b : s.buffers) {
        if (b.image) layout[b.name] = b.image->layout;
    }
    for (Step& step : s.steps) {
        if (const auto* b = std::get_if<Barrier>(&step.body); b && b->kind == BarrierKind::Image) {
            const ImageLayout now = step.layouts[b->buffer] = layout.at(b->buffer);
            if (b->oldLayout != now && b->oldLayout != ImageLayout::Undefined)
                p.failAt(step, fmt::format("transitions image '{}' from {}, but it is in {} here; expected "
                                           "old_layout = \"{}\" (or \"undefined\", which discards its contents)",
                                           b->buffer, name(b->oldLayout), name(now), name(now)));
            if (b->oldLayout != b->newLayout && step.modeMask != 7)
                p.failAt(step,
                         "is a layout transition recorded in some modes only; expected no 'modes' on it (each "
                         "mode's steps need the same layouts)");
            if (b->oldLayout == ImageLayout::Undefined) discarded[b->buffer] = &step;
            layout[b->buffer] = b->newLayout;
            continue;
        }
        for (const auto& [image, allowed] : layoutsNeeded(step, s)) {
            const ImageLayout now = step.layouts[image] = layout.at(image);
            if (std::find(allowed.begin(), allowed.end(), now) == allowed.end())
                p.failAt(step, fmt::format("uses image '{}' in layout {}, but it is in {} here; expected an image "
                                           "barrier with new_layout = \"{}\" before it",
                                           image, name(allowed.front()), name(now), name(allowed.front())));
        }
        std::vector<std::string> reads, writes;
        stepAccesses(step, s, reads, writes);
        for (const auto& r : reads) {
            const auto it = discarded.find(r);
            if (it == discarded.end() || std::get<Barrier>(it->second->body).control) continue;
            p.failAt(step, fmt::format("reads image '{}', whose contents {} discarded (old_layout = \"undefined\"); "
                                       "expected a write first, or control = true on that barrier",
                                       r, it->second->label));
        }
        for (const auto& w : writes) discarded.erase(w);
    }
    for (auto& b : s.buffers) {
        if (b.image) b.image->finalLayout = layout.at(b.name);
    }
    for (const auto& [image, barrier] : discarded) {
        if (s.buffer(image)->checked && !std::get<Barrier>(barrier->body).control)
            p.failAt(*barrier, fmt::format("discards image '{}' (old_layout = \"undefined\"), which is checked and "
                                           "never written after it; expected a write after it, or control = true",
                                           image));
    }
}

}  // namespace repro::scenario::parse
