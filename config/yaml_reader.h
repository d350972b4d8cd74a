// Typed reading of yaml-cpp nodes with "file:line: key 'a.b': what" errors.
// Used by the schema walker (parse.cpp); not part of config's public API.
//
// Lines are 1-based (yaml-cpp's Mark is 0-based). yaml-cpp marks a null
// value at the token after it and an alias at its anchor, so errors about
// such values point at their key's line instead.
#pragma once

#include "config/config.h"
#include "config/value_ranges.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::config::detail {

// One `key: value` of a mapping.
struct Entry {
    std::string key; // full dotted path, e.g. "routing.lmc"
    int key_line = 0;
    YAML::Node value;
    int line = 0; // where errors about the value point
};

// A key ibsmd no longer reads, with what to write instead; the message
// follows "file:line: key 'old.key': ".
struct RetiredKey {
    std::string_view key; // full dotted path
    std::string_view message;
};

// A mapping checked against its known keys: no unknown key, no key twice,
// keys are plain scalars. A null node (a section with nothing under it) is
// an empty mapping.
class Section {
public:
    const Entry* find(std::string_view leaf) const;
    const std::vector<Entry>& entries() const { return entries_; }

private:
    friend class Reader;
    std::string path_;
    std::vector<Entry> entries_;
};

class Reader {
public:
    // all_keys: every dotted key of the schema, for suggesting 'routing.lmc'
    // when `lmc` is written in the wrong section. retired: old keys that get
    // their own message instead of "unknown key".
    Reader(std::string_view source, std::span<const std::string_view> all_keys,
           std::span<const RetiredKey> retired = {});

    const std::string& source() const { return source_; }

    [[noreturn]] void fail(int line, std::string_view key, const std::string& message) const;

    // 1-based line of `node`, or `fallback` for nulls, aliases and nodes without a mark.
    static int line_of(const YAML::Node& node, int fallback);

    // path: dotted path of the mapping ("" for the top level); line: where it starts.
    Section section(const YAML::Node& node, std::string_view path, int line,
                    std::span<const std::string_view> known) const;

    std::uint64_t integer(const Entry& e, Range range) const;
    bool boolean(const Entry& e) const;
    // A non-empty string; `what` names it in errors ("a path", "a CA name").
    std::string text(const Entry& e, std::string_view what) const;
    // yaml-cpp 0.7 accepts a quoted string left open at the end of the text
    // (it swallows every later line); reject that as the syntax error it is.
    void check_quotes_closed(const YAML::Node& node, std::string_view text) const;

    // A 64-bit identifier: 0x-hex or decimal, plain or quoted.
    std::uint64_t id64(const YAML::Node& node, int line, std::string_view key, std::string_view what) const;

private:
    std::string unknown_key_message(std::string_view path, std::string_view leaf,
                                    std::span<const std::string_view> known) const;

    std::string source_;
    std::span<const std::string_view> all_keys_;
    std::span<const RetiredKey> retired_;
};

// Plain unsigned integer: decimal or 0x-hex, no sign, fits in 64 bits.
std::optional<std::uint64_t> parse_u64(std::string_view text);

// "a list", "a mapping", "nothing", "'abc'" for "expected X, got Y" messages.
std::string describe_node(const YAML::Node& node);

} // namespace ibsm::config::detail
