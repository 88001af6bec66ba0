// The scenario parser's reader of TOML (toml++, header-only: TOML_HEADER_ONLY,
// src/CMakeLists.txt): one error line "FILE:LINE:COLUMN: what is wrong; what was expected"
// for any key, type or range a file gets wrong. Private to scenario_parse.cpp and
// scenario_parse_steps.cpp.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "core/errors.hpp"
#include "core/text.hpp"
#include "scenario/scenario.hpp"

namespace repro::scenario::parse {

// Access names to their synchronization2 bits (VkAccessFlagBits2 values, Vulkan spec
// "Synchronization and Cache Control"); the stages' are scenario/scenario.hpp kStages.
inline constexpr NamedBit kAccesses[] = {
    {"indirect-command-read", 0x1},
    {"uniform-read", 0x8},
    {"shader-read", 0x20},
    {"shader-write", 0x40},
    {"transfer-read", 0x800},
    {"transfer-write", 0x1000},
    {"host-read", 0x2000},
    {"host-write", 0x4000},
    {"memory-read", 0x8000},
    {"memory-write", 0x10000},
    {"shader-storage-read", uint64_t{1} << 33},
    {"shader-storage-write", uint64_t{1} << 34},
};

class Parser {
  public:
    explicit Parser(std::string file) : file_(std::move(file)) {}

    // One line, whatever file text `what` quotes: its control characters escaped.
    [[noreturn]] void fail(const toml::source_region& where, const std::string& what) const {
        throw UsageError(oneTerminalLine(fmt::format("{}:{}:{}: {}", file_, where.begin.line, where.begin.column, what),
                                         std::string::npos));
    }
    [[noreturn]] void fail(const toml::node& node, const std::string& what) const { fail(node.source(), what); }
    // "FILE:LINE:COLUMN: WHAT" at a place already parsed (a step's, a buffer's), `what` as given.
    [[noreturn]] void failAt(const SourcePlace& where, const std::string& what) const {
        throw UsageError(fmt::format("{}:{}:{}: {}", file_, where.line, where.column, what));
    }
    [[noreturn]] void failAt(const Step& step, const std::string& what) const {
        failAt(step.place, fmt::format("{} {}", step.label, what));
    }

    // Calls each(table) for every [[key]] table of `t`, in order (none when the key is absent);
    // anything else there is one line "'KEY' must be [[KEY]] tables".
    template <typename Each>
    void eachTable(const toml::table& t, std::string_view key, Each&& each) const {
        const toml::node* node = t.get(key);
        if (!node) return;
        const toml::array* list = node->as_array();
        if (!list) fail(*node, fmt::format("'{}' must be [[{}]] tables", key, key));
        for (const auto& e : *list) {
            if (!e.as_table()) fail(e, fmt::format("'{}' must be [[{}]] tables", key, key));
            each(*e.as_table());
        }
    }

    // Every key of `table` must be one of `known`.
    void onlyKeys(const toml::table& table, std::initializer_list<std::string_view> known,
                  std::string_view where) const {
        for (const auto& [key, node] : table) {
            if (std::find(known.begin(), known.end(), key.str()) == known.end())
                fail(node, fmt::format("unknown key '{}' in {}; expected one of: {}", key.str(), where,
                                       fmt::join(known, ", ")));
        }
    }

    std::string text(const toml::table& t, std::string_view key, bool required, std::string_view where) const {
        const toml::node* n = t.get(key);
        if (!n) {
            if (required) fail(t, fmt::format("{} has no '{}'; expected {} = \"...\"", where, key, key));
            return {};
        }
        if (!n->is_string()) fail(*n, fmt::format("'{}' must be a string", key));
        return std::string(*n->value<std::string_view>());
    }

    // text(), for a name the output prints (the scenario's, a buffer's, a kernel's, a queue's, a
    // semaphore's): one that a terminal would not print as itself (a control character, DEL, a
    // code point that moves or hides text) is an error at its place.
    std::string name(const toml::table& t, std::string_view key, bool required, std::string_view where,
                     std::string_view what) const {
        std::string n = text(t, key, required, where);
        if (!printsAsItself(n))
            fail(*t.get(key), fmt::format("{} name {} holds a control character; expected a name that prints as "
                                          "itself on one line",
                                          what, quote(n)));
        return n;
    }

    uint64_t integer(const toml::table& t, std::string_view key, uint64_t fallback, uint64_t max) const {
        const toml::node* n = t.get(key);
        if (!n) return fallback;
        if (!n->is_integer()) fail(*n, fmt::format("'{}' must be an integer", key));
        const int64_t v = *n->value<int64_t>();
        if (v < 0 || static_cast<uint64_t>(v) > max)
            fail(*n, fmt::format("'{}' = {} is out of range; expected 0..{}", key, v, max));
        return static_cast<uint64_t>(v);
    }

    std::vector<uint32_t> words(const toml::table& t, std::string_view key) const {
        std::vector<uint32_t> out;
        const toml::node* n = t.get(key);
        if (!n) return out;
        const toml::array* a = n->as_array();
        if (!a) fail(*n, fmt::format("'{}' must be an array of integers", key));
        for (const auto& e : *a) {
            const auto v = e.value<int64_t>();
            if (!e.is_integer() || *v < 0 || *v > 0xffffffffLL)
                fail(e, fmt::format("'{}' holds 32-bit unsigned integers; expected 0..4294967295", key));
            out.push_back(static_cast<uint32_t>(*v));
        }
        return out;
    }

    std::vector<std::string> strings(const toml::table& t, std::string_view key) const {
        std::vector<std::string> out;
        const toml::node* n = t.get(key);
        if (!n) return out;
        const toml::array* a = n->as_array();
        if (!a) fail(*n, fmt::format("'{}' must be an array of strings", key));
        for (const auto& e : *a) {
            if (!e.is_string()) fail(e, fmt::format("'{}' must be an array of strings", key));
            out.emplace_back(*e.value<std::string_view>());
        }
        return out;
    }

    uint64_t bits(const toml::table& t, std::string_view key, std::span<const NamedBit> table,
                  std::string_view what) const {
        uint64_t out = 0;
        const toml::node* n = t.get(key);
        const auto names = strings(t, key);
        for (size_t i = 0; i < names.size(); ++i) {
            const auto it =
                std::find_if(std::begin(table), std::end(table), [&](const NamedBit& b) { return b.name == names[i]; });
            if (it == std::end(table))
                fail((*n->as_array())[i], fmt::format("unknown {} '{}'; expected one of: {}", what, names[i],
                                                      fmt::join(std::views::transform(table, &NamedBit::name), ", ")));
            out |= it->bit;
        }
        return out;
    }

    // `t`'s string `key` as the one of `all` it names (scenario.hpp name()), `fallback` when the
    // key is absent; another string is one line "unknown WHAT 'x'; expected EXPECTED".
    template <typename E, size_t N>
    E choice(const toml::table& t, std::string_view key, const E (&all)[N], E fallback, std::string_view what,
             std::string_view expected) const {
        if (!t.get(key)) return fallback;
        const std::string wanted = text(t, key, true, "");
        for (const E e : all) {
            if (scenario::name(e) == wanted) return e;
        }
        fail(*t.get(key), fmt::format("unknown {} '{}'; expected {}", what, wanted, expected));
    }

    const std::string& file() const { return file_; }

  private:
    std::string file_;
};

// `t`'s value of `key`, or `t` itself when it has none: where a line about the key points.
inline const toml::node& at(const toml::table& t, std::string_view key) {
    const toml::node* n = t.get(key);
    return n ? *n : t;
}

inline SourcePlace placeOf(const toml::node& n) {
    return {static_cast<uint32_t>(n.source().begin.line), static_cast<uint32_t>(n.source().begin.column)};
}

}  // namespace repro::scenario::parse
