// The CPU model of a scenario (scenario/scenario_cpu.hpp).
#include "scenario/scenario_cpu.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/parallel.hpp"

namespace repro::scenario {
namespace {

uint32_t loadWord(const std::vector<uint8_t>& bytes, uint64_t index) {
    uint32_t w = 0;
    std::memcpy(&w, bytes.data() + index * 4, 4);
    return w;
}

void storeWord(std::vector<uint8_t>& bytes, uint64_t index, uint32_t w) {
    std::memcpy(bytes.data() + index * 4, &w, 4);
}

// dst[i] = f(src[i]) for i < n on the thread pool (core/parallel.hpp), in chunks of about
// kChunkCost units of work, a word costing `cost` units (the work kernel's rounds, the private
// array's words), and never fewer than kMinChunkWords words: each word is its own invocation,
// so the order does not matter.
constexpr uint64_t kChunkCost = 1 << 16;
constexpr uint64_t kMinChunkWords = 256;
template <typename F>
void mapWords(const std::vector<uint8_t>& src, std::vector<uint8_t>& dst, uint64_t n, uint64_t cost, F f) {
    const uint64_t chunk = std::max(kMinChunkWords, kChunkCost / std::max<uint64_t>(cost, 1));
    const uint64_t chunks = (n + chunk - 1) / chunk;
    parallelTasks(chunks, chunks > 1 ? availableCpus() : 1, [&](size_t c) {
        const uint64_t end = std::min<uint64_t>(n, (c + 1) * chunk);
        for (uint64_t i = c * chunk; i < end; ++i) storeWord(dst, i, f(loadWord(src, i)));
    });
}

// compare-swap: invocation j < invocations takes the pair (2j + phase, 2j + phase + 1).
void applyCompareSwap(const Dispatch& d, uint64_t invocations, std::vector<uint8_t>& data) {
    const uint64_t count = std::min<uint64_t>(d.params.count, data.size() / 4);
    for (uint64_t j = 0; j < invocations; ++j) {
        const uint64_t k = 2 * j + d.params.add;
        if (k + 1 >= count) break;
        const uint32_t a = loadWord(data, k), b = loadWord(data, k + 1);
        if (a > b) storeWord(data, k, b), storeWord(data, k + 1, a);
    }
}

void applyDispatch(const Dispatch& d, Contents& contents) {
    if (!cpuModelled(d)) return;  // a user kernel, conv-t or slice: unknown to the model (unmodelledAfter)
    const std::array<uint32_t, 3> g =
        d.indirect ? indirectGroups(d, contents) : std::array<uint32_t, 3>{d.groups[0], d.groups[1], d.groups[2]};
    const uint64_t invocations = uint64_t{g[0]} * g[1] * g[2] * kWorkgroupSize;
    auto& data = contents.at(d.bindings.at(0));  // the words worked on in place, or the source
    auto& dst = d.bindings.size() > 1 ? contents.at(d.bindings[1]) : data;
    const uint64_t n = std::min<uint64_t>({d.params.count, invocations, data.size() / 4, dst.size() / 4});
    switch (d.kernel) {
        case Kernel::Increment:
        case Kernel::ImageIncrement:  // an image's texels are its words, row-major
            for (uint64_t i = 0; i < n; ++i) storeWord(data, i, loadWord(data, i) + d.params.add);
            break;
        case Kernel::Copy:
        case Kernel::ImageCopy:
            std::memmove(dst.data(), data.data(), n * 4);  // src and dst may be one buffer
            break;
        case Kernel::PrivateArray:
            mapWords(data, dst, n, d.privateWords,
                     [words = d.privateWords](uint32_t x) { return privateArrayWord(x, words); });
            break;
        case Kernel::Work:
            mapWords(data, data, n, d.params.work,
                     [rounds = d.params.work](uint32_t x) { return workWord(x, rounds); });
            break;
        case Kernel::CompareSwap:
            applyCompareSwap(d, invocations, data);
            break;
        case Kernel::IndirectWriter:  // invocation 0 writes the three words
            for (uint64_t w = 0; w < 3 && invocations > 0; ++w)
                storeWord(data, d.writer.offset / 4 + w, d.writer.groups[w]);
            break;
        case Kernel::Noop:
        case Kernel::ConvT:  // not modelled: returned above
        case Kernel::Slice:
            break;
    }
}

// An image transfer row by row (ImageTransfer's srcByte, dstByte and pitches).
void applyImageTransfer(const ImageTransfer& t, Contents& contents) {
    auto& dst = contents.at(t.dst);
    for (uint64_t row = 0; row < t.height; ++row) {
        uint8_t* to = dst.data() + t.dstByte + row * t.dstPitch;
        if (t.kind == ImageTransferKind::Clear) {
            for (uint64_t x = 0; x < t.width; ++x) std::memcpy(to + x * 4, &t.value, 4);
        } else {
            const auto& src = contents.at(t.src);  // never dst: an image-to-image copy names two
            std::memcpy(to, src.data() + t.srcByte + row * t.srcPitch, uint64_t{t.width} * 4);
        }
    }
}

}  // namespace

std::array<uint32_t, 3> indirectGroups(const Dispatch& d, const Contents& contents) {
    const auto& args = contents.at(d.indirect->buffer);
    const uint64_t first = d.indirect->offset / 4;
    return {loadWord(args, first), loadWord(args, first + 1), loadWord(args, first + 2)};
}

Contents initialContents(const Scenario& s) {
    Contents out;
    for (const auto& b : s.buffers) {
        std::vector<uint8_t> bytes(b.bytes);  // zeros: init zero and undefined need no words
        if (b.init != InitKind::Zero && b.init != InitKind::Undefined) {
            const auto words = initialWords(b);
            std::memcpy(bytes.data(), words.data(), words.size() * 4);
        }
        out.emplace(b.name, std::move(bytes));
    }
    return out;
}

void applyStep(const Step& step, Contents& contents) {
    if (const auto* d = std::get_if<Dispatch>(&step.body)) {
        applyDispatch(*d, contents);
    } else if (const auto* f = std::get_if<Fill>(&step.body)) {
        auto& bytes = contents.at(f->buffer);
        for (uint64_t at = f->offset; at + 4 <= f->offset + f->size; at += 4)
            std::memcpy(bytes.data() + at, &f->value, 4);
    } else if (const auto* u = std::get_if<Update>(&step.body)) {
        std::memcpy(contents.at(u->buffer).data() + u->offset, u->words.data(), u->words.size() * 4);
    } else if (const auto* h = std::get_if<HostWrite>(&step.body)) {
        std::memcpy(contents.at(h->buffer).data() + h->offset, h->words.data(), h->words.size() * 4);
    } else if (const auto* c = std::get_if<Copy>(&step.body)) {
        const std::vector<uint8_t> src = contents.at(c->src);  // a copy: src and dst may be one buffer
        auto& dst = contents.at(c->dst);
        std::memcpy(dst.data() + c->dstOffset, src.data() + c->srcOffset, c->size);
    } else if (const auto* t = std::get_if<ImageTransfer>(&step.body)) {
        applyImageTransfer(*t, contents);
    }
}

std::vector<WrittenRange> writtenRanges(const Step& step, const Scenario& s) {
    std::vector<WrittenRange> out;
    if (const auto* d = std::get_if<Dispatch>(&step.body)) {
        if (!cpuModelled(*d)) {
            for (uint32_t i = 0; i < d->bindings.size(); ++i) {  // taken as writing all of it
                if (dispatchWrites(s, *d, i)) out.push_back({d->bindings[i], 0, s.buffer(d->bindings[i])->bytes});
            }
            return out;
        }
        uint64_t words = uint64_t{d->groups[0]} * d->groups[1] * d->groups[2] * kWorkgroupSize;
        if (d->kernel == Kernel::IndirectWriter) {  // invocation 0 writes its 12 bytes
            if (words > 0) out.push_back({d->bindings.at(0), d->writer.offset, d->writer.offset + 12});
            return out;
        }
        // compare-swap: invocation j may write words 2j + phase and 2j + phase + 1
        if (d->kernel == Kernel::CompareSwap) words = 2 * words + d->params.add;
        words = std::min<uint64_t>(words, d->params.count);
        for (const auto& b : d->bindings) words = std::min<uint64_t>(words, s.buffer(b)->bytes / 4);
        for (uint32_t i = 0; i < d->bindings.size(); ++i) {
            if (kernelWrites(d->kernel, i) && words > 0) out.push_back({d->bindings[i], 0, words * 4});
        }
    } else if (const auto* f = std::get_if<Fill>(&step.body)) {
        out.push_back({f->buffer, f->offset, f->offset + f->size / 4 * 4});
    } else if (const auto* u = std::get_if<Update>(&step.body)) {
        out.push_back({u->buffer, u->offset, u->offset + u->words.size() * 4});
    } else if (const auto* h = std::get_if<HostWrite>(&step.body)) {
        out.push_back({h->buffer, h->offset, h->offset + h->words.size() * 4});
    } else if (const auto* c = std::get_if<Copy>(&step.body)) {
        out.push_back({c->dst, c->dstOffset, c->dstOffset + c->size});
    } else if (const auto* t = std::get_if<ImageTransfer>(&step.body)) {
        for (uint64_t row = 0; row < t->height; ++row) {
            const uint64_t at = t->dstByte + row * t->dstPitch;
            out.push_back({t->dst, at, at + uint64_t{t->width} * 4});
        }
    }
    return out;
}

std::optional<size_t> lastWriter(const Scenario& s, std::string_view buffer, uint64_t byte, size_t before) {
    for (size_t i = std::min(before, s.steps.size()); i-- > 0;) {
        for (const WrittenRange& r : writtenRanges(s.steps[i], s)) {
            if (r.buffer == buffer && r.begin <= byte && byte < r.end) return i;
        }
    }
    return std::nullopt;
}

void stepAccesses(const Step& step, const Scenario& s, std::vector<std::string>& reads,
                  std::vector<std::string>& writes) {
    if (const auto* d = std::get_if<Dispatch>(&step.body)) {
        for (uint32_t i = 0; i < d->bindings.size(); ++i) {
            if (dispatchReads(s, *d, i)) reads.push_back(d->bindings[i]);
            if (dispatchWrites(s, *d, i)) writes.push_back(d->bindings[i]);
        }
        if (d->indirect) reads.push_back(d->indirect->buffer);
    } else if (const auto* f = std::get_if<Fill>(&step.body)) {
        writes.push_back(f->buffer);
    } else if (const auto* u = std::get_if<Update>(&step.body)) {
        writes.push_back(u->buffer);
    } else if (const auto* h = std::get_if<HostWrite>(&step.body)) {
        writes.push_back(h->buffer);
    } else if (const auto* r = std::get_if<HostRead>(&step.body)) {
        reads.push_back(r->buffer);
    } else if (const auto* c = std::get_if<Copy>(&step.body)) {
        reads.push_back(c->src);
        writes.push_back(c->dst);
    } else if (const auto* t = std::get_if<ImageTransfer>(&step.body)) {
        if (t->kind != ImageTransferKind::Clear) reads.push_back(t->src);
        writes.push_back(t->dst);
    }
}

void unmodelledAfter(const Step& step, const Scenario& s, std::set<std::string>& unmodelled) {
    std::vector<std::string> reads, writes;
    stepAccesses(step, s, reads, writes);
    const auto* d = std::get_if<Dispatch>(&step.body);
    const bool tainted = (d && !cpuModelled(*d)) || std::any_of(reads.begin(), reads.end(),
                                                                [&](const auto& r) { return unmodelled.count(r) > 0; });
    if (tainted) unmodelled.insert(writes.begin(), writes.end());
}

std::set<std::string> unmodelledBuffers(const Scenario& s) {
    std::set<std::string> out;
    for (const auto& step : s.steps) unmodelledAfter(step, s, out);
    return out;
}

std::map<size_t, std::vector<uint8_t>> hostReadContents(const Scenario& s) {
    std::map<size_t, std::vector<uint8_t>> out;
    Contents contents = initialContents(s);
    std::set<std::string> unmodelled;
    for (size_t i = 0; i < s.steps.size(); ++i) {
        const auto* r = std::get_if<HostRead>(&s.steps[i].body);
        if (r && !unmodelled.count(r->buffer)) out.emplace(i, contents.at(r->buffer));
        applyStep(s.steps[i], contents);
        unmodelledAfter(s.steps[i], s, unmodelled);
    }
    return out;
}

std::vector<std::string> poisonBuffers(Scenario& s, uint32_t pattern) {
    std::set<std::string> firstWritten, touched;
    for (const Step& step : s.steps) {
        std::vector<std::string> reads, writes;
        stepAccesses(step, s, reads, writes);
        for (const auto& r : reads) touched.insert(r);
        for (const auto& w : writes) {
            if (touched.insert(w).second) firstWritten.insert(w);
        }
    }
    std::vector<std::string> out;
    for (BufferSpec& b : s.buffers) {
        if (b.init != InitKind::Undefined && !firstWritten.count(b.name)) continue;
        b.init = InitKind::Pattern;
        b.value = pattern;
        b.words.clear();
        b.poisoned = true;
        out.push_back(b.name);
    }
    return out;
}

Contents runCpuModel(const Scenario& s) {
    Contents contents = initialContents(s);
    for (const auto& step : s.steps) applyStep(step, contents);
    return contents;
}

}  // namespace repro::scenario
