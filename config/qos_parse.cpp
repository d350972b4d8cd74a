// Why: a QoS policy that silently drops a rule or a group puts storage
// traffic on the MPI lanes (or the reverse), and nothing in the fabric
// shows it. So every name a rule or table uses must exist, every number
// must fit its IBA field, and each error names the file, line and key.
//
// Data structures: the sections are read into config::QosConfig in the
// order the compiled policy uses (groups by index, rules in file order with
// their line, levels by name). Free-form names (groups, levels, per-group
// tables) are mapping keys, checked by hand for duplicates; fixed keys go
// through Reader::section, which brings the unknown-key suggestions.
//
// Algorithm: port_groups, then levels, then rules (which need both), then
// sl2vl and vlarb (which need the groups and routing.max_vls).
#include "config/qos_parse.h"

#include "mad/port_codes.h"
#include "mad/rate_codes.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>

namespace ibsm::config::detail {
namespace {

constexpr std::array<std::string_view, 5> qos_keys{"port_groups", "levels", "rules", "sl2vl", "vlarb"};
constexpr std::array<std::string_view, 6> group_keys{"node_desc",  "port_guids", "node_guids",
                                                     "partitions", "all_cas",    "all_switches"};
constexpr std::array<std::string_view, 4> level_keys{"sl", "mtu", "rate", "packet_life"};
constexpr std::array<std::string_view, 6> rule_keys{"source", "destination", "service_id",
                                                    "pkey",   "qos_class",   "level"};
constexpr std::array<std::string_view, 4> sl2vl_keys{"ca", "switch", "switch_port0", "groups"};
constexpr std::array<std::string_view, 3> vlarb_keys{"ca", "switch", "groups"};
constexpr std::array<std::string_view, 3> vlarb_table_keys{"high", "low", "high_limit"};
constexpr std::array<std::string_view, 2> vlarb_entry_keys{"vl", "weight"};
constexpr std::array<std::string_view, 4> mkey_keys{"mode", "secret_file", "protect_bits", "lease_period_s"};

constexpr Range sl_range{0, 15};
constexpr Range weight_range{0, 255};
constexpr Range high_limit_range{0, 255};
constexpr Range packet_life_range{0, 63};  // PathRecord PacketLifeTime is 6 bits
constexpr Range qos_class_range{0, 4095};  // PathRecord QoSClass is 12 bits
constexpr Range pkey_range{1, 0xffff};
constexpr Range protect_bits_range{0, 3};  // PortInfo M_KeyProtectBits
constexpr Range lease_range{0, 65535};     // PortInfo M_KeyLeasePeriod, seconds

std::string name_list(const std::map<std::string, int>& names)
{
    std::string out;
    for (const auto& [n, line] : names) out += (out.empty() ? "" : ", ") + n;
    return out.empty() ? "none" : out;
}

// A mapping whose keys are names the operator chooses: one Entry per name,
// its key the dotted path with the name.
std::vector<Entry> named_entries(const Reader& r, const Entry& at, std::string_view what)
{
    std::vector<Entry> out;
    if (!at.value.IsDefined() || at.value.IsNull()) return out;
    if (!at.value.IsMap())
        r.fail(at.line, at.key, "expected a mapping of " + std::string(what) + ", got " + describe_node(at.value));
    for (auto it = at.value.begin(); it != at.value.end(); ++it) {
        const YAML::Node k = it->first;
        const int key_line = Reader::line_of(k, at.line);
        if (!k.IsScalar() || k.Scalar().empty())
            r.fail(key_line, at.key, "names must be plain words, got " + describe_node(k));
        const std::string key = at.key + "." + k.Scalar();
        for (const auto& prev : out)
            if (prev.key == key)
                r.fail(key_line, key, "defined twice (first on line " + std::to_string(prev.key_line) + ")");
        const YAML::Node v = it->second;
        out.push_back(Entry{key, key_line, v, Reader::line_of(v, key_line)});
    }
    return out;
}

std::string leaf_of(const Entry& e) { return e.key.substr(e.key.rfind('.') + 1); }

// A scalar or a list of them, each as an Entry of its own (for Reader::integer).
std::vector<Entry> items(const Entry& e)
{
    if (!e.value.IsSequence()) return {e};
    std::vector<Entry> out;
    for (const auto& item : e.value) out.push_back(Entry{e.key, e.key_line, item, Reader::line_of(item, e.line)});
    return out;
}

std::vector<Guid> read_guids(const Reader& r, const Entry& e, std::string_view what)
{
    if (!e.value.IsSequence())
        r.fail(e.line, e.key, "expected a list of " + std::string(what) + "s, got " + describe_node(e.value));
    std::vector<Guid> out;
    for (const auto& item : items(e)) {
        const Guid g(r.id64(item.value, item.line, e.key, what));
        if (g.is_zero()) r.fail(item.line, e.key, "GUID 0 is not a " + std::string(what));
        if (std::find(out.begin(), out.end(), g) != out.end())
            r.fail(item.line, e.key, g.str() + " is listed twice");
        out.push_back(g);
    }
    return out;
}

// A P_Key number (membership bit ignored) or the name of a partition of
// `partitions:`; stored without the membership bit.
std::uint16_t read_pkey(const Reader& r, const Entry& item, const std::vector<PartitionConfig>& partitions)
{
    if (item.value.IsScalar() && !parse_u64(item.value.Scalar())) {
        const std::string& name = item.value.Scalar();
        for (const auto& p : partitions)
            if (p.name == name) return p.pkey;
        std::string known;
        for (const auto& p : partitions) known += (known.empty() ? "" : ", ") + p.name;
        r.fail(item.line, item.key,
               "'" + name + "' is neither a P_Key nor a partition of 'partitions' (" +
                   (known.empty() ? std::string("none defined") : "known: " + known) + ")");
    }
    const auto v = static_cast<std::uint16_t>(r.integer(item, pkey_range) & 0x7fff);
    if (v == 0) r.fail(item.line, item.key, "P_Key 0x0000/0x8000 is not a partition");
    return v;
}

std::vector<std::uint16_t> read_pkeys(const Reader& r, const Entry& e, const std::vector<PartitionConfig>& partitions)
{
    std::vector<std::uint16_t> out;
    for (const auto& item : items(e)) {
        const auto pk = read_pkey(r, item, partitions);
        if (std::find(out.begin(), out.end(), pk) != out.end())
            r.fail(item.line, e.key, "P_Key " + hex16(pk) + " is listed twice");
        out.push_back(pk);
    }
    if (out.empty()) r.fail(e.line, e.key, "an empty list matches nothing; leave the key out to match any P_Key");
    return out;
}

// `0x2000` or "0x1000-0x1fff": one value or a closed range.
template <class T>
std::vector<QosRange<T>> read_ranges(const Reader& r, const Entry& e, Range limit, std::string_view what)
{
    std::vector<QosRange<T>> out;
    for (const auto& item : items(e)) {
        const std::string expected = "expected " + std::string(what) + " or a range FIRST-LAST";
        if (!item.value.IsScalar()) r.fail(item.line, e.key, expected + ", got " + describe_node(item.value));
        const std::string& s = item.value.Scalar();
        const auto dash = s.find('-');
        const auto first = parse_u64(s.substr(0, dash));
        const auto last = dash == std::string::npos ? first : parse_u64(s.substr(dash + 1));
        if (!first || !last) r.fail(item.line, e.key, expected + ", got " + describe_node(item.value));
        // (A service ID's range is all of 64 bits: parse_u64 already held it.)
        if (!limit.contains(*first) || !limit.contains(*last))
            r.fail(item.line, e.key,
                   "'" + s + "' is outside " + std::to_string(limit.lo) + ".." + std::to_string(limit.hi));
        if (*first > *last)
            r.fail(item.line, e.key, "range '" + s + "' is empty: its first value is above its last");
        out.push_back(QosRange<T>{static_cast<T>(*first), static_cast<T>(*last)});
    }
    if (out.empty()) r.fail(e.line, e.key, "an empty list matches nothing; leave the key out to match any value");
    return out;
}

std::uint8_t read_mtu(const Reader& r, const Entry& e)
{
    const auto v = e.value.IsScalar() ? parse_u64(e.value.Scalar()) : std::nullopt;
    for (std::size_t i = 0; v && i < mad::mtu_byte_table.size(); ++i)
        if (*v == mad::mtu_byte_table[i]) return static_cast<std::uint8_t>(i + 1);
    r.fail(e.line, e.key, "expected an MTU in bytes: 256, 512, 1024, 2048 or 4096, got " + describe_node(e.value));
}

// "2.5" -> 2500 Mb/s; at most three decimals (no rate is finer than 1 Mb/s).
std::optional<unsigned> gbps_to_mbps(std::string_view s)
{
    const auto dot = s.find('.');
    const std::string_view whole = s.substr(0, dot);
    const std::string_view frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    if (whole.empty() || frac.size() > 3 || (dot != std::string_view::npos && frac.empty())) return std::nullopt;
    unsigned w = 0, f = 0;
    if (std::from_chars(whole.data(), whole.data() + whole.size(), w).ptr != whole.data() + whole.size())
        return std::nullopt;
    if (!frac.empty() && std::from_chars(frac.data(), frac.data() + frac.size(), f).ptr != frac.data() + frac.size())
        return std::nullopt;
    for (std::size_t i = frac.size(); i < 3; ++i) f *= 10;
    if (w > 4'000'000) return std::nullopt;
    return w * 1000 + f;
}

std::uint8_t read_rate(const Reader& r, const Entry& e)
{
    if (e.value.IsScalar())
        if (auto mbps = gbps_to_mbps(e.value.Scalar()))
            if (auto code = mad::exact_rate_code(*mbps)) return *code;
    std::vector<unsigned> rates;
    for (auto mbps : mad::rate_table)
        if (mbps) rates.push_back(mbps);
    std::sort(rates.begin(), rates.end());
    std::string known;
    for (auto mbps : rates) known += (known.empty() ? "" : ", ") + rate_gbps_text(*mad::exact_rate_code(mbps));
    r.fail(e.line, e.key, "expected an IBA rate in Gb/s (" + known + "), got " + describe_node(e.value));
}

std::uint8_t read_vl(const Reader& r, const Entry& e, unsigned max_vls)
{
    const auto vl = static_cast<std::uint8_t>(r.integer(e, Range{0, 14}));
    if (vl >= max_vls)
        r.fail(e.line, e.key,
               "VL " + std::to_string(vl) + " is not below routing.max_vls (" + std::to_string(max_vls) +
                   "): ports are given only VLs 0.." + std::to_string(max_vls - 1));
    return vl;
}

QosPortGroup read_group(const Reader& r, const Entry& at, const std::vector<PartitionConfig>& partitions)
{
    QosPortGroup g;
    g.name = leaf_of(at);
    if (!at.value.IsMap())
        r.fail(at.line, at.key,
               "expected a mapping of selectors (node_desc, port_guids, node_guids, partitions, all_cas, "
               "all_switches), got " + describe_node(at.value));
    const Section s = r.section(at.value, at.key, at.line, group_keys);
    if (auto* e = s.find("node_desc"))
        for (const auto& item : items(*e)) {
            if (!item.value.IsScalar() || item.value.Scalar().empty())
                r.fail(item.line, e->key, "expected a node-description pattern, got " + describe_node(item.value));
            g.node_desc.push_back(item.value.Scalar());
        }
    if (auto* e = s.find("port_guids")) g.port_guids = read_guids(r, *e, "port GUID");
    if (auto* e = s.find("node_guids")) g.node_guids = read_guids(r, *e, "node GUID");
    if (auto* e = s.find("partitions")) g.partitions = read_pkeys(r, *e, partitions);
    if (auto* e = s.find("all_cas")) g.all_cas = r.boolean(*e);
    if (auto* e = s.find("all_switches")) g.all_switches = r.boolean(*e);
    if (g.node_desc.empty() && g.port_guids.empty() && g.node_guids.empty() && g.partitions.empty() && !g.all_cas &&
        !g.all_switches)
        r.fail(at.key_line, at.key,
               "group '" + g.name +
                   "' selects no port (give node_desc, port_guids, node_guids, partitions, all_cas or all_switches)");
    return g;
}

QosLevel read_level(const Reader& r, const Entry& at)
{
    QosLevel l;
    l.name = leaf_of(at);
    if (!at.value.IsMap())
        r.fail(at.line, at.key, "expected a mapping with sl and optionally mtu, rate, packet_life, got " +
                                    describe_node(at.value));
    const Section s = r.section(at.value, at.key, at.line, level_keys);
    const Entry* sl = s.find("sl");
    if (!sl) r.fail(at.key_line, at.key, "level '" + l.name + "' needs an sl (0..15)");
    l.sl = static_cast<std::uint8_t>(r.integer(*sl, sl_range));
    if (auto* e = s.find("mtu")) l.mtu = read_mtu(r, *e);
    if (auto* e = s.find("rate")) l.rate = read_rate(r, *e);
    if (auto* e = s.find("packet_life")) l.packet_life = static_cast<std::uint8_t>(r.integer(*e, packet_life_range));
    return l;
}

std::string read_name(const Reader& r, const Entry& e, const std::map<std::string, int>& known, std::string_view what)
{
    const std::string name = r.text(e, what);
    if (!known.count(name))
        r.fail(e.line, e.key,
               "unknown " + std::string(what) + " '" + name + "' (defined: " + name_list(known) + ")");
    return name;
}

std::vector<QosRule> read_rules(const Reader& r, const Entry& at, const std::map<std::string, int>& groups,
                                const std::map<std::string, int>& levels,
                                const std::vector<PartitionConfig>& partitions)
{
    std::vector<QosRule> out;
    if (!at.value.IsDefined() || at.value.IsNull()) return out;
    if (!at.value.IsSequence())
        r.fail(at.line, at.key, "expected a list of rules, got " + describe_node(at.value));
    std::size_t index = 0;
    for (const auto& item : at.value) {
        const std::string path = at.key + "[" + std::to_string(index++) + "]";
        const int line = Reader::line_of(item, at.line);
        if (!item.IsMap())
            r.fail(line, path, "expected a mapping with a level and selectors, got " + describe_node(item));
        const Section s = r.section(item, path, line, rule_keys);
        QosRule rule;
        rule.line = static_cast<unsigned>(line);
        const Entry* level = s.find("level");
        if (!level) r.fail(line, path, "a rule needs a level (one of: " + name_list(levels) + ")");
        rule.level = read_name(r, *level, levels, "level");
        if (auto* e = s.find("source")) rule.source = read_name(r, *e, groups, "port group");
        if (auto* e = s.find("destination")) rule.destination = read_name(r, *e, groups, "port group");
        if (auto* e = s.find("service_id"))
            rule.service_ids = read_ranges<std::uint64_t>(r, *e, Range{0, ~std::uint64_t{0}}, "a service ID");
        if (auto* e = s.find("pkey")) rule.pkeys = read_pkeys(r, *e, partitions);
        if (auto* e = s.find("qos_class"))
            rule.qos_classes = read_ranges<std::uint16_t>(r, *e, qos_class_range, "a QoS class");
        out.push_back(std::move(rule));
    }
    return out;
}

QosSl2Vl read_sl2vl_table(const Reader& r, const Entry& e, unsigned max_vls)
{
    if (!e.value.IsSequence() || e.value.size() != 16)
        r.fail(e.line, e.key,
               "expected a list of 16 VLs (the VL of SL 0..15), got " +
                   (e.value.IsSequence() ? "a list of " + std::to_string(e.value.size()) : describe_node(e.value)));
    QosSl2Vl t{};
    std::size_t sl = 0;
    for (const auto& item : items(e)) t[sl++] = read_vl(r, item, max_vls);
    return t;
}

std::vector<QosVlArbEntry> read_vlarb_entries(const Reader& r, const Entry& e, unsigned max_vls)
{
    if (!e.value.IsSequence())
        r.fail(e.line, e.key, "expected a list of {vl, weight}, got " + describe_node(e.value));
    if (e.value.size() > max_vlarb_entries)
        r.fail(e.line, e.key,
               std::to_string(e.value.size()) + " entries; a VLArb table holds at most " +
                   std::to_string(max_vlarb_entries));
    std::vector<QosVlArbEntry> out;
    std::size_t index = 0;
    for (const auto& item : e.value) {
        const std::string path = e.key + "[" + std::to_string(index++) + "]";
        const int line = Reader::line_of(item, e.line);
        if (!item.IsMap()) r.fail(line, path, "expected {vl: N, weight: N}, got " + describe_node(item));
        const Section s = r.section(item, path, line, vlarb_entry_keys);
        const Entry* vl = s.find("vl");
        const Entry* weight = s.find("weight");
        if (!vl || !weight) r.fail(line, path, "an entry needs both vl and weight");
        out.push_back(QosVlArbEntry{read_vl(r, *vl, max_vls), static_cast<std::uint8_t>(r.integer(*weight, weight_range))});
    }
    return out;
}

QosVlArb read_vlarb_table(const Reader& r, const Entry& at, unsigned max_vls)
{
    QosVlArb t;
    if (!at.value.IsMap())
        r.fail(at.line, at.key, "expected a mapping with high, low and high_limit, got " + describe_node(at.value));
    const Section s = r.section(at.value, at.key, at.line, vlarb_table_keys);
    if (auto* e = s.find("high")) t.high = read_vlarb_entries(r, *e, max_vls);
    if (auto* e = s.find("low")) t.low = read_vlarb_entries(r, *e, max_vls);
    if (auto* e = s.find("high_limit")) t.high_limit = static_cast<std::uint8_t>(r.integer(*e, high_limit_range));
    return t;
}

} // namespace

std::string rate_gbps_text(std::uint8_t code)
{
    const unsigned mbps = code < mad::rate_table.size() ? mad::rate_table[code] : 0;
    std::string out = std::to_string(mbps / 1000);
    if (unsigned frac = mbps % 1000) {
        std::string f = std::to_string(1000 + frac).substr(1);
        while (f.back() == '0') f.pop_back();
        out += "." + f;
    }
    return out;
}

std::string_view to_string(MkeyMode mode)
{
    switch (mode) {
    case MkeyMode::off: return "off";
    case MkeyMode::per_port: return "per-port";
    case MkeyMode::fixed: return "fixed";
    }
    return "off";
}

QosConfig read_qos(const Reader& r, const Entry& at, const std::vector<PartitionConfig>& partitions,
                   unsigned max_vls)
{
    QosConfig c;
    const Section s = r.section(at.value, at.key, at.line, qos_keys);
    c.enabled = !s.entries().empty();

    std::map<std::string, int> groups, levels;
    if (auto* e = s.find("port_groups")) {
        const auto named = named_entries(r, *e, "port groups");
        if (named.size() > max_qos_groups)
            r.fail(named[max_qos_groups].key_line, named[max_qos_groups].key,
                   "more than " + std::to_string(max_qos_groups) + " port groups");
        for (const auto& g : named) {
            c.port_groups.push_back(read_group(r, g, partitions));
            groups.emplace(c.port_groups.back().name, g.key_line);
        }
    }
    if (auto* e = s.find("levels"))
        for (const auto& l : named_entries(r, *e, "levels")) {
            c.levels.push_back(read_level(r, l));
            levels.emplace(c.levels.back().name, l.key_line);
        }
    if (auto* e = s.find("rules")) c.rules = read_rules(r, *e, groups, levels, partitions);

    auto group_name = [&](const Entry& e) {
        const std::string name = leaf_of(e);
        if (!groups.count(name))
            r.fail(e.key_line, e.key, "unknown port group '" + name + "' (defined: " + name_list(groups) + ")");
        return name;
    };
    if (auto* e = s.find("sl2vl")) {
        const Section t = r.section(e->value, e->key, e->line, sl2vl_keys);
        if (auto* x = t.find("ca")) c.sl2vl_ca = read_sl2vl_table(r, *x, max_vls);
        if (auto* x = t.find("switch")) c.sl2vl_switch = read_sl2vl_table(r, *x, max_vls);
        if (auto* x = t.find("switch_port0")) c.sl2vl_switch_port0 = read_sl2vl_table(r, *x, max_vls);
        if (auto* x = t.find("groups"))
            for (const auto& g : named_entries(r, *x, "port groups"))
                c.sl2vl_groups.emplace_back(group_name(g), read_sl2vl_table(r, g, max_vls));
    }
    if (auto* e = s.find("vlarb")) {
        const Section t = r.section(e->value, e->key, e->line, vlarb_keys);
        if (auto* x = t.find("ca")) c.vlarb_ca = read_vlarb_table(r, *x, max_vls);
        if (auto* x = t.find("switch")) c.vlarb_switch = read_vlarb_table(r, *x, max_vls);
        if (auto* x = t.find("groups"))
            for (const auto& g : named_entries(r, *x, "port groups"))
                c.vlarb_groups.emplace_back(group_name(g), read_vlarb_table(r, g, max_vls));
    }
    return c;
}

SecurityConfig read_security(const Reader& r, const Entry& at)
{
    SecurityConfig c;
    const Section s = r.section(at.value, at.key, at.line, security_keys);
    const Entry* mkey = s.find("mkey");
    if (!mkey) return c;
    const Section m = r.section(mkey->value, mkey->key, mkey->line, mkey_keys);
    MkeyConfig& k = c.mkey;
    if (auto* e = m.find("mode")) {
        const std::string mode = r.text(*e, "off, per-port or fixed");
        if (mode == "off") k.mode = MkeyMode::off;
        else if (mode == "per-port") k.mode = MkeyMode::per_port;
        else if (mode == "fixed") k.mode = MkeyMode::fixed;
        else r.fail(e->line, e->key, "expected off, per-port or fixed, got '" + mode + "'");
    }
    if (auto* e = m.find("secret_file")) {
        k.secret_file = r.text(*e, "a path");
        if (k.secret_file.front() != '/')
            r.fail(e->line, e->key, "expected an absolute path, got '" + k.secret_file + "'");
    }
    if (auto* e = m.find("protect_bits")) k.protect_bits = static_cast<std::uint8_t>(r.integer(*e, protect_bits_range));
    if (auto* e = m.find("lease_period_s")) k.lease_period_s = static_cast<std::uint16_t>(r.integer(*e, lease_range));
    if (k.mode != MkeyMode::off && k.secret_file.empty()) {
        const Entry* mode = m.find("mode");
        r.fail(mode->line, mode->key,
               std::string(to_string(k.mode)) +
                   " needs 'security.mkey.secret_file' (a file only root can read that holds the " +
                   (k.mode == MkeyMode::fixed ? "key" : "secret") + "; the YAML never holds it)");
    }
    return c;
}

} // namespace ibsm::config::detail
