// Why: the SA asks for a level on every PathRecord, so everything that does
// not depend on the request is settled here once per fabric generation: the
// globs, GUID lists and partitions of every group become one 64-bit mask
// per port, and the rules' group and level names become bits and indexes.
//
// Data structures: groups_ maps a port GUID to its group mask (ports in no
// group are left out: groups_of() answers 0 for them as for unknown ports);
// rules_ keeps the configuration's order with P_Keys stripped of the
// membership bit.
//
// Algorithm: match() looks up the two ends' masks (only when some rule
// names a group), then walks the rules in order; a rule's selectors are
// tested cheapest first, and a selector the request leaves unsaid (no
// service ID, P_Key or QoS class given) does not match a rule that
// constrains it: the SA cannot promise a level for traffic it cannot see.
#include "qos/qos_policy.h"

#include <algorithm>
#include <unordered_set>

namespace ibsm::qos {
namespace {

constexpr std::uint16_t partition_bits = 0x7fff; // P_Key without the membership bit

bool port_in_group(const config::QosPortGroup& g, const PortFacts& p,
                   const std::unordered_set<std::uint16_t>& port_partitions)
{
    if (g.all_cas && !p.is_switch) return true;
    if (g.all_switches && p.is_switch) return true;
    if (std::find(g.port_guids.begin(), g.port_guids.end(), p.port_guid) != g.port_guids.end()) return true;
    if (std::find(g.node_guids.begin(), g.node_guids.end(), p.node_guid) != g.node_guids.end()) return true;
    for (auto pk : g.partitions)
        if (port_partitions.count(static_cast<std::uint16_t>(pk & partition_bits))) return true;
    for (const auto& pattern : g.node_desc)
        if (glob_match(pattern, p.node_desc)) return true;
    return false;
}

template <class T>
bool in_ranges(const std::vector<config::QosRange<T>>& ranges, T v)
{
    for (const auto& r : ranges)
        if (r.contains(v)) return true;
    return false;
}

// One bracket expression starting at pattern[i] == '['. Returns the index
// just past its ']' and whether `c` is in it; npos when the bracket is not
// closed (then '[' is an ordinary character, as in the shell).
std::size_t bracket(const std::string& pattern, std::size_t i, char c, bool& matched)
{
    std::size_t j = i + 1;
    const bool negate = j < pattern.size() && pattern[j] == '!';
    if (negate) ++j;
    bool in = false;
    // A ']' right after '[' or '[!' is a member, not the end.
    for (bool first = true; j < pattern.size() && (first || pattern[j] != ']'); first = false) {
        if (j + 2 < pattern.size() && pattern[j + 1] == '-' && pattern[j + 2] != ']') {
            in = in || (pattern[j] <= c && c <= pattern[j + 2]);
            j += 3;
        } else {
            in = in || pattern[j] == c;
            ++j;
        }
    }
    if (j >= pattern.size()) return std::string::npos;
    matched = in != negate;
    return j + 1;
}

} // namespace

bool glob_match(const std::string& pattern, const std::string& text)
{
    // Greedy with one back-track point: on a mismatch after a '*', let that
    // star swallow one more character. Linear in practice, no recursion.
    std::size_t p = 0, t = 0;
    std::size_t star = std::string::npos, star_t = 0;
    while (t < text.size()) {
        if (p < pattern.size()) {
            const char pc = pattern[p];
            if (pc == '*') {
                star = p++;
                star_t = t;
                continue;
            }
            if (pc == '?') {
                ++p;
                ++t;
                continue;
            }
            if (pc == '[') {
                bool matched = false;
                const std::size_t next = bracket(pattern, p, text[t], matched);
                if (next != std::string::npos) {
                    if (matched) {
                        p = next;
                        ++t;
                        continue;
                    }
                } else if (text[t] == '[') {
                    ++p;
                    ++t;
                    continue;
                }
            } else if (pc == text[t]) {
                ++p;
                ++t;
                continue;
            }
        }
        if (star == std::string::npos) return false;
        p = star + 1;
        t = ++star_t;
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

QosPolicy::QosPolicy(const config::QosConfig& config, const std::vector<PortFacts>& ports) : levels_(config.levels)
{
    for (const auto& g : config.port_groups) group_names_.push_back(g.name);

    std::unordered_set<std::uint16_t> partitions;
    for (const auto& p : ports) {
        partitions.clear();
        for (auto pk : p.pkeys) partitions.insert(static_cast<std::uint16_t>(pk & partition_bits));
        std::uint64_t mask = 0;
        for (std::size_t i = 0; i < config.port_groups.size() && i < 64; ++i)
            if (port_in_group(config.port_groups[i], p, partitions)) mask |= std::uint64_t{1} << i;
        if (mask) groups_[p.port_guid] |= mask;
    }

    auto group_bit = [&](const std::optional<std::string>& name) -> std::uint64_t {
        if (!name) return 0;
        const auto i = group_index(*name);
        // The schema checked the name; a group past 64 cannot exist either.
        return i && *i < 64 ? std::uint64_t{1} << *i : 0;
    };
    for (const auto& r : config.rules) {
        Rule rule;
        rule.service_ids = r.service_ids;
        for (auto pk : r.pkeys) rule.pkeys.push_back(static_cast<std::uint16_t>(pk & partition_bits));
        rule.qos_classes = r.qos_classes;
        rule.source_mask = group_bit(r.source);
        rule.destination_mask = group_bit(r.destination);
        const auto level = std::find_if(levels_.begin(), levels_.end(),
                                        [&](const config::QosLevel& l) { return l.name == r.level; });
        if (level == levels_.end()) continue; // the schema refuses this; never guess a level
        rule.level = static_cast<std::size_t>(level - levels_.begin());
        needs_groups_ = needs_groups_ || rule.source_mask || rule.destination_mask;
        rules_.push_back(std::move(rule));
    }
}

std::optional<std::size_t> QosPolicy::match(const Request& request) const
{
    if (rules_.empty()) return std::nullopt;
    const std::uint64_t src = needs_groups_ ? groups_of(request.source) : 0;
    const std::uint64_t dst = needs_groups_ ? groups_of(request.destination) : 0;
    // A flag and a value rather than an optional: GCC 12 at -O2 cannot see
    // the optional's value is only read when engaged (-Wmaybe-uninitialized).
    const bool has_pkey = request.pkey.has_value();
    const std::uint16_t pkey = has_pkey ? static_cast<std::uint16_t>(*request.pkey & partition_bits) : 0;
    for (const auto& r : rules_) {
        if (r.source_mask && !(src & r.source_mask)) continue;
        if (r.destination_mask && !(dst & r.destination_mask)) continue;
        if (!r.pkeys.empty() &&
            (!has_pkey || std::find(r.pkeys.begin(), r.pkeys.end(), pkey) == r.pkeys.end()))
            continue;
        if (!r.qos_classes.empty() && (!request.qos_class || !in_ranges(r.qos_classes, *request.qos_class)))
            continue;
        if (!r.service_ids.empty() && (!request.service_id || !in_ranges(r.service_ids, *request.service_id)))
            continue;
        return r.level;
    }
    return std::nullopt;
}

std::uint64_t QosPolicy::groups_of(Guid port) const
{
    const auto it = groups_.find(port);
    return it == groups_.end() ? 0 : it->second;
}

std::optional<std::size_t> QosPolicy::group_index(const std::string& name) const
{
    const auto it = std::find(group_names_.begin(), group_names_.end(), name);
    if (it == group_names_.end()) return std::nullopt;
    return static_cast<std::size_t>(it - group_names_.begin());
}

std::vector<Guid> QosPolicy::members(std::size_t index) const
{
    std::vector<Guid> out;
    if (index >= 64) return out;
    for (const auto& [guid, mask] : groups_)
        if (mask & (std::uint64_t{1} << index)) out.push_back(guid);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace ibsm::qos
