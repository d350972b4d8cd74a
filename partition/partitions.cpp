#include "partition/partitions.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ibsm::partition {

namespace {

// OpenSM keeps partitions and a port's keys in maps keyed by the P_Key in
// network byte order; on the hosts it runs on that orders them by the
// swapped value.
std::uint16_t osm_order(std::uint16_t pkey) { return static_cast<std::uint16_t>((pkey << 8) | (pkey >> 8)); }

bool names(const MemberRule& m, Guid port, PortKind kind, Guid sm_port)
{
    switch (m.who) {
    case Who::port: return m.guid == port;
    case Who::all: return true;
    case Who::all_cas: return kind == PortKind::ca;
    case Who::all_switches: return kind == PortKind::switch_node;
    case Who::all_routers: return kind == PortKind::router;
    case Who::self: return !sm_port.is_zero() && port == sm_port;
    }
    return false;
}

struct Held {
    bool full = false;
    bool limited = false;
};

std::string hex16(std::uint16_t v)
{
    char b[8];
    std::snprintf(b, sizeof b, "0x%04x", v);
    return b;
}

// The groups of one partition, merged over its statements as OpenSM
// creates them: the broadcast group of the first statement with ipoib, then
// each `mgid=` group once (the first definition of an MGID stays), one per
// scope asked for; no scope: link-local (osm_prtn.c, osm_prtn_add_mcgroup).
void add_groups(PartitionInfo& info, const Rule& r)
{
    auto add = [&](mad::Gid128 mgid, const GroupFlags& f, bool broadcast) {
        const auto pkey = static_cast<std::uint16_t>(info.pkey | 0x8000);
        if (is_ip_mgid(mgid)) mgid = with_mgid_pkey(mgid, pkey);
        std::vector<std::uint8_t> scopes;
        for (std::uint8_t s = 0; s < 16; ++s)
            if (f.scope_mask & (1u << s)) scopes.push_back(s);
        if (scopes.empty()) scopes.push_back(2);
        for (auto s : scopes) {
            PartitionGroup g;
            g.mgid = with_mgid_scope(mgid, s);
            g.pkey = pkey;
            g.flags = f;
            if (g.flags.qkey == 0 && broadcast) g.flags.qkey = 0x0b1b;
            g.scope = s;
            g.broadcast = broadcast;
            const bool known =
                std::any_of(info.groups.begin(), info.groups.end(), [&](const auto& o) { return o.mgid == g.mgid; });
            if (!known) info.groups.push_back(g);
        }
    };
    if (r.ipoib) {
        info.ipoib = true;
        add(ipoib_broadcast_mgid(info.pkey), r.flags, true);
    }
    for (const auto& g : r.groups) add(g.mgid, g.flags, false);
}

} // namespace

Partitions::Partitions() : Partitions(effective_rules({}, false), {}, Settings{}) {}

Partitions::Partitions(std::vector<Rule> rules, std::span<const EndPort> ports, Settings settings)
    : rules_(std::move(rules)), settings_(settings)
{
    std::map<std::uint16_t, PartitionInfo> by_pkey; // by P_Key; created in file order below
    for (const auto& r : rules_) {
        auto [it, fresh] = by_pkey.try_emplace(r.pkey);
        auto& info = it->second;
        if (fresh) {
            info.pkey = r.pkey;
            info.name = r.name.empty() ? hex16(r.pkey).substr(2) : r.name;
            info.sl = r.flags.sl;
        }
        add_groups(info, r);
    }
    std::unordered_map<Guid, PortKeys> raw;
    for (const auto& p : ports) {
        auto k = evaluate(p.guid, p.kind);
        for (auto key : k.keys) {
            auto& info = by_pkey[mad::pkey_base(key)];
            ++(mad::pkey_full(key) ? info.full : info.limited);
        }
        raw.emplace(p.guid, std::move(k));
    }
    // Without members a partition does not exist; with no port known
    // (no fabric yet) every partition is kept.
    for (auto& [pkey, info] : by_pkey)
        if (ports.empty() || info.full + info.limited > 0) infos_.push_back(std::move(info));
    std::sort(infos_.begin(), infos_.end(),
              [](const auto& a, const auto& b) { return osm_order(a.pkey) < osm_order(b.pkey); });
    ports_ = std::move(raw);
}

Partitions::PortKeys Partitions::evaluate(Guid port, PortKind kind) const
{
    std::map<std::uint16_t, Held> held; // by osm_order
    std::uint16_t index0 = 0;
    for (const auto& r : rules_) {
        for (const auto& m : r.members) {
            if (!names(m, port, kind, settings_.sm_port)) continue;
            auto& h = held[osm_order(r.pkey)];
            // osm_prtn_config.c, partition_add_port and manage_membership_change.
            const bool both = m.membership == Membership::both && settings_.allow_both_pkeys;
            h.full = m.membership != Membership::limited;
            h.limited = m.membership == Membership::limited || both;
            // osm_prtn.c, osm_prtn_add_port: the last statement naming the
            // port decides whether this P_Key is its index 0 key.
            if (r.indx0)
                index0 = static_cast<std::uint16_t>(r.pkey | (h.limited ? 0 : 0x8000));
            else if (mad::pkey_base(index0) == r.pkey)
                index0 = 0;
        }
    }
    PortKeys out;
    out.index0 = index0;
    for (const auto& [order, h] : held) {
        const auto pkey = osm_order(order);
        if (h.limited) out.keys.push_back(pkey);
        if (h.full) out.keys.push_back(static_cast<std::uint16_t>(pkey | 0x8000));
    }
    return out;
}

std::vector<std::uint16_t> Partitions::keys_of(Guid port) const
{
    auto it = ports_.find(port);
    auto keys = it != ports_.end() ? it->second.keys : evaluate(port, PortKind::ca).keys;
    if (ports_.empty()) return keys;
    // Partitions without members in the fabric do not exist.
    std::erase_if(keys, [&](std::uint16_t k) { return find(mad::pkey_base(k)) == nullptr; });
    return keys;
}

std::uint16_t Partitions::index0_key(Guid port) const
{
    auto it = ports_.find(port);
    return it != ports_.end() ? it->second.index0 : evaluate(port, PortKind::ca).index0;
}

const PartitionInfo* Partitions::find(std::uint16_t pkey) const
{
    for (const auto& p : infos_)
        if (p.pkey == mad::pkey_base(pkey)) return &p;
    return nullptr;
}

std::optional<std::uint16_t> Partitions::path_pkey(Guid a, Guid b, std::optional<std::uint16_t> asked) const
{
    const auto ka = keys_of(a);
    const auto kb = keys_of(b);
    for (auto x : ka) {
        if (asked && mad::pkey_base(x) != mad::pkey_base(*asked)) continue;
        for (auto y : kb) {
            if (mad::pkey_base(x) != mad::pkey_base(y)) continue;
            if (!mad::pkey_full(x) && !mad::pkey_full(y)) continue;
            // As `a` holds it (OpenSM answers with the source's entry).
            return x;
        }
    }
    return std::nullopt;
}

std::string PartitionChange::text() const
{
    const std::string who = "partition " + name + " (" + hex16(pkey) + ")";
    switch (kind) {
    case Kind::added: return who + " added: " + std::to_string(joined) + " member port(s)";
    case Kind::removed: return who + " removed: " + std::to_string(left) + " port(s) lose it";
    case Kind::changed: break;
    }
    std::string t = who + " changed:";
    auto part = [&](std::size_t n, const char* what) {
        if (n) t += " " + std::to_string(n) + " " + what + ",";
    };
    part(joined, "joined");
    part(left, "left");
    part(to_full, "now full");
    part(to_limited, "now limited");
    if (groups_changed) t += " multicast groups changed,";
    t.pop_back();
    return t;
}

std::vector<PartitionChange> changes(const Partitions& before, const Partitions& after, std::span<const EndPort> ports)
{
    std::map<std::uint16_t, PartitionChange> out;
    for (const auto& p : after.partitions())
        if (!before.find(p.pkey)) out[p.pkey] = PartitionChange{PartitionChange::Kind::added, p.pkey, p.name};
    for (const auto& p : before.partitions())
        if (!after.find(p.pkey)) out[p.pkey] = PartitionChange{PartitionChange::Kind::removed, p.pkey, p.name};
    for (const auto& p : after.partitions())
        if (auto* b = before.find(p.pkey); b && b->groups != p.groups) {
            auto& c = out.try_emplace(p.pkey, PartitionChange{PartitionChange::Kind::changed, p.pkey, p.name})
                          .first->second;
            c.groups_changed = true;
        }
    for (const auto& port : ports) {
        std::map<std::uint16_t, Held> was, is;
        for (auto k : before.keys_of(port.guid)) (mad::pkey_full(k) ? was[mad::pkey_base(k)].full : was[mad::pkey_base(k)].limited) = true;
        for (auto k : after.keys_of(port.guid)) (mad::pkey_full(k) ? is[mad::pkey_base(k)].full : is[mad::pkey_base(k)].limited) = true;
        auto entry = [&](std::uint16_t pkey, const Partitions& from) -> PartitionChange& {
            auto* info = from.find(pkey);
            return out.try_emplace(pkey, PartitionChange{PartitionChange::Kind::changed, pkey, info ? info->name : ""})
                .first->second;
        };
        for (const auto& [pkey, h] : is) {
            auto w = was.find(pkey);
            if (w == was.end()) ++entry(pkey, after).joined;
            else if (h.full && !w->second.full) ++entry(pkey, after).to_full;
            else if (!h.full && w->second.full) ++entry(pkey, after).to_limited;
        }
        for (const auto& [pkey, h] : was)
            if (!is.count(pkey)) ++entry(pkey, before).left;
    }
    std::vector<PartitionChange> v;
    for (auto& [pkey, c] : out)
        if (c.kind != PartitionChange::Kind::changed || c.joined || c.left || c.to_full || c.to_limited ||
            c.groups_changed)
            v.push_back(std::move(c));
    return v;
}

std::vector<mad::PKeyTable> table_blocks(std::span<const std::uint16_t> keys, std::size_t capacity,
                                         std::size_t* dropped)
{
    const std::size_t cap = capacity ? capacity : mad::pkey_block_size;
    const std::size_t fit = std::min(keys.size(), cap);
    if (dropped) *dropped = keys.size() - fit;
    const std::size_t blocks = std::max<std::size_t>(1, (fit + mad::pkey_block_size - 1) / mad::pkey_block_size);
    std::vector<mad::PKeyTable> out(blocks);
    for (std::size_t i = 0; i < fit; ++i) out[i / mad::pkey_block_size].keys[i % mad::pkey_block_size] = keys[i];
    return out;
}

} // namespace ibsm::partition
