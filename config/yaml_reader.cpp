// Why: yaml-cpp's own conversions (as<int>) neither check ranges nor say
// where a value is, and it accepts duplicate keys silently. This layer reads
// scalars itself so every rejection carries file, line and dotted key.
#include "config/yaml_reader.h"

#include "config/suggest.h"

#include <algorithm>
#include <charconv>

namespace ibsm::config::detail {
namespace {

// yaml-cpp tags a quoted scalar "!" and a plain one "?".
bool quoted(const YAML::Node& node) { return node.Tag() == "!"; }

std::string join(std::span<const std::string_view> words)
{
    std::string out;
    for (auto w : words) {
        if (!out.empty()) out += ", ";
        out += w;
    }
    return out;
}

std::string dotted(std::string_view path, std::string_view leaf)
{
    return path.empty() ? std::string(leaf) : std::string(path) + "." + std::string(leaf);
}

} // namespace

std::optional<std::uint64_t> parse_u64(std::string_view s)
{
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || p != s.data() + s.size()) return std::nullopt;
    return v;
}

namespace {

// Index just past the closing quote of the quoted scalar opening at `open`,
// or npos when the text ends first.
std::size_t closing_quote(std::string_view text, std::size_t open)
{
    const char q = text[open];
    for (std::size_t i = open + 1; i < text.size(); ++i) {
        if (q == '"' && text[i] == '\\') {
            ++i;
        } else if (text[i] == q) {
            if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                ++i; // '' is an escaped single quote
                continue;
            }
            return i + 1;
        }
    }
    return std::string_view::npos;
}

std::string range_text(Range r) { return std::to_string(r.lo) + ".." + std::to_string(r.hi); }

} // namespace

std::string describe_node(const YAML::Node& node)
{
    if (!node.IsDefined() || node.IsNull()) return "nothing";
    if (node.IsSequence()) return "a list";
    if (node.IsMap()) return "a mapping";
    return (quoted(node) ? "the quoted string \"" : "'") + node.Scalar() + (quoted(node) ? "\"" : "'");
}

const Entry* Section::find(std::string_view leaf) const
{
    const std::string key = dotted(path_, leaf);
    for (const auto& e : entries_)
        if (e.key == key) return &e;
    return nullptr;
}

Reader::Reader(std::string_view source, std::span<const std::string_view> all_keys,
               std::span<const RetiredKey> retired)
    : source_(source), all_keys_(all_keys), retired_(retired)
{
}

void Reader::fail(int line, std::string_view key, const std::string& message) const
{
    std::string what = source_ + ":" + std::to_string(line) + ": ";
    if (!key.empty()) what += "key '" + std::string(key) + "': ";
    throw ConfigError(what + message);
}

int Reader::line_of(const YAML::Node& node, int fallback)
{
    if (!node.IsDefined() || node.IsNull() || node.Mark().is_null()) return fallback;
    const int line = node.Mark().line + 1;
    return line < fallback ? fallback : line;
}

std::string Reader::unknown_key_message(std::string_view path, std::string_view leaf,
                                       std::span<const std::string_view> known) const
{
    // Right name, wrong section (`lmc:` at the top level) says the most.
    for (auto full : all_keys_) {
        const auto dot = full.rfind('.');
        const auto full_leaf = dot == std::string_view::npos ? full : full.substr(dot + 1);
        if (full_leaf == leaf && full != dotted(path, leaf))
            return "unknown key (did you mean '" + std::string(full) + "'?)";
    }
    // A typo: up to 2 edits, fewer for short keys so 'foo' does not become 'log'.
    const std::size_t max_edits = std::min<std::size_t>(2, std::max<std::size_t>(1, leaf.size() / 3));
    if (auto near = closest(leaf, known, max_edits)) return "unknown key (did you mean '" + dotted(path, *near) + "'?)";
    return "unknown key (known keys" + (path.empty() ? std::string() : " under '" + std::string(path) + "'") + ": " +
           join(known) + ")";
}

Section Reader::section(const YAML::Node& node, std::string_view path, int line,
                        std::span<const std::string_view> known) const
{
    Section s;
    s.path_ = std::string(path);
    if (!node.IsDefined() || node.IsNull()) return s;
    if (!node.IsMap()) {
        if (path.empty())
            fail(line, "", "expected a mapping of settings at the top level, got " + describe_node(node));
        fail(line, path, "expected a mapping of settings, got " + describe_node(node));
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node k = it->first; // handles; it-> yields a temporary pair
        const int key_line = line_of(k, line);
        if (!k.IsScalar() || k.Scalar().empty())
            fail(key_line, path, "keys must be plain names, got " + describe_node(k));
        const std::string& leaf = k.Scalar();
        const std::string key = dotted(path, leaf);

        bool is_known = false;
        for (auto kn : known) is_known = is_known || kn == leaf;
        if (!is_known) {
            for (const auto& old : retired_)
                if (old.key == key) fail(key_line, key, std::string(old.message));
            fail(key_line, key, unknown_key_message(path, leaf, known));
        }
        for (const auto& prev : s.entries_)
            if (prev.key == key)
                fail(key_line, key, "duplicate key (first given on line " + std::to_string(prev.key_line) + ")");

        const YAML::Node v = it->second;
        s.entries_.push_back(Entry{key, key_line, v, line_of(v, key_line)});
    }
    return s;
}

void Reader::check_quotes_closed(const YAML::Node& node, std::string_view text) const
{
    if (node.IsMap()) {
        for (auto it = node.begin(); it != node.end(); ++it) {
            check_quotes_closed(it->first, text);
            check_quotes_closed(it->second, text);
        }
    } else if (node.IsSequence()) {
        for (const auto& item : node) check_quotes_closed(item, text);
    } else if (node.IsScalar() && quoted(node) && !node.Mark().is_null()) {
        const auto pos = static_cast<std::size_t>(node.Mark().pos);
        if (pos < text.size() && (text[pos] == '"' || text[pos] == '\'') &&
            closing_quote(text, pos) == std::string_view::npos)
            fail(node.Mark().line + 1, "", "YAML syntax error: quoted string not closed before the end of the file");
    }
}

std::uint64_t Reader::integer(const Entry& e, Range range) const
{
    const std::string expected = "expected an integer in " + range_text(range);
    if (!e.value.IsScalar()) fail(e.line, e.key, expected + ", got " + describe_node(e.value));
    if (quoted(e.value))
        fail(e.line, e.key, expected + ", got " + describe_node(e.value) + " (write it without quotes)");
    auto v = parse_u64(e.value.Scalar());
    if (!v || !range.contains(*v)) fail(e.line, e.key, expected + ", got " + describe_node(e.value));
    return *v;
}

bool Reader::boolean(const Entry& e) const
{
    if (e.value.IsScalar() && !quoted(e.value)) {
        const std::string& s = e.value.Scalar();
        if (s == "true" || s == "True" || s == "TRUE") return true;
        if (s == "false" || s == "False" || s == "FALSE") return false;
    }
    fail(e.line, e.key, "expected true or false, got " + describe_node(e.value));
}

std::string Reader::text(const Entry& e, std::string_view what) const
{
    if (!e.value.IsScalar() || e.value.Scalar().empty())
        fail(e.line, e.key, "expected " + std::string(what) + ", got " + describe_node(e.value));
    return e.value.Scalar();
}

std::uint64_t Reader::id64(const YAML::Node& node, int line, std::string_view key, std::string_view what) const
{
    if (node.IsScalar())
        if (auto v = parse_u64(node.Scalar())) return *v;
    fail(line, key,
         "expected " + std::string(what) + " (0x followed by up to 16 hex digits, or a decimal integer), got " +
             describe_node(node));
}

} // namespace ibsm::config::detail
