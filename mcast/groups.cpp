#include "mcast/groups.h"

#include "mad/multicast_forwarding_table.h"
#include "mad/pkey_table.h"
#include "mcast/link_rates.h"

#include <algorithm>

namespace ibsm::mcast {

namespace m = mad::mcr_mask;
namespace js = mad::join_state;

const char* to_string(SaStatus s)
{
    switch (s) {
    case SaStatus::ok: return "ok";
    case SaStatus::no_resources: return "ERR_NO_RESOURCES";
    case SaStatus::req_invalid: return "ERR_REQ_INVALID";
    case SaStatus::no_records: return "ERR_NO_RECORDS";
    case SaStatus::too_many_records: return "ERR_TOO_MANY_RECORDS";
    case SaStatus::invalid_gid: return "ERR_REQ_INVALID_GID";
    case SaStatus::insufficient_components: return "ERR_REQ_INSUFFICIENT_COMPONENTS";
    case SaStatus::denied: return "ERR_REQ_DENIED";
    }
    return "?";
}

bool PortFacts::has_partition(std::uint16_t pkey) const
{
    const auto base = mad::pkey_base(pkey);
    if (base == 0) return false;
    return std::any_of(pkeys.begin(), pkeys.end(), [&](std::uint16_t k) { return mad::pkey_base(k) == base; });
}

bool PortFacts::shares_partition(const PortFacts& other) const
{
    for (auto a : pkeys) {
        if (mad::pkey_empty(a)) continue;
        for (auto b : other.pkeys)
            if (mad::pkey_base(a) == mad::pkey_base(b) && (mad::pkey_full(a) || mad::pkey_full(b))) return true;
    }
    return false;
}

std::size_t Group::full_members() const
{
    return static_cast<std::size_t>(std::count_if(members.begin(), members.end(), [](const auto& m) {
        return (m.second.join_state & (js::full_member | js::send_only_full_member)) != 0;
    }));
}

mad::McMemberRecord ipoib_broadcast_params(std::uint16_t pkey, std::uint8_t scope, std::uint8_t packet_life_time)
{
    mad::McMemberRecord r;
    r.mgid = mad::Gid128{0xff10401b00000000ull | (std::uint64_t{scope & 0xfu} << 48) | (std::uint64_t{pkey} << 16),
                      0x00000000ffffffffull};
    r.q_key = 0x0b1b;
    r.p_key = pkey;
    r.mtu_selector = static_cast<std::uint8_t>(mad::Selector::exactly);
    r.mtu = 4; // 2048
    r.rate_selector = static_cast<std::uint8_t>(mad::Selector::exactly);
    r.rate = 3; // 10 Gb/s
    r.packet_life_time_selector = static_cast<std::uint8_t>(mad::Selector::exactly);
    r.packet_life_time = packet_life_time & 0x3f;
    r.sl = 0;
    r.scope = scope;
    r.hop_limit = scope == 2 ? 0 : 0xff; // link-local traffic never crosses a router
    return r;
}

namespace {

constexpr std::uint64_t join_mask = m::mgid | m::port_gid | m::join_state;
constexpr std::uint64_t create_mask = join_mask | m::q_key | m::traffic_class | m::p_key | m::flow_label | m::sl;
constexpr std::uint64_t default_prefix = 0xfe80000000000000ULL;

JoinOutcome refuse(SaStatus s, std::string why)
{
    JoinOutcome o;
    o.status = s;
    o.why = std::move(why);
    return o;
}

// A value against a selector (0 greater, 1 less, 2 exactly, 3 largest).
bool selector_holds(std::uint8_t selector, int cmp_group_vs_asked)
{
    switch (selector) {
    case 0: return cmp_group_vs_asked > 0;
    case 1: return cmp_group_vs_asked < 0;
    case 2: return cmp_group_vs_asked == 0;
    default: return true;
    }
}

int cmp(unsigned a, unsigned b) { return a < b ? -1 : a > b ? 1 : 0; }

// MTU and rate with their selectors against the group (given both halves).
bool selectors_match(const mad::McMemberRecord& group, const mad::McMemberRecord& req, std::uint64_t mask)
{
    if ((mask & m::mtu_selector) && (mask & m::mtu) && !selector_holds(req.mtu_selector, cmp(group.mtu, req.mtu)))
        return false;
    if ((mask & m::rate_selector) && (mask & m::rate) &&
        !selector_holds(req.rate_selector, compare_rates(group.rate, req.rate)))
        return false;
    if ((mask & m::packet_life_time_selector) && (mask & m::packet_life_time) &&
        !selector_holds(req.packet_life_time_selector, cmp(group.packet_life_time, req.packet_life_time)))
        return false;
    return true;
}

// Q_Key, P_Key, TClass, SL, FlowLabel, HopLimit: what must equal the group's.
std::optional<std::string> other_components_differ(const mad::McMemberRecord& group, const mad::McMemberRecord& req,
                                                   std::uint64_t mask)
{
    if ((mask & m::q_key) && req.q_key != group.q_key) return "Q_Key differs from the group's";
    if (mask & m::p_key) {
        if (mad::pkey_base(req.p_key) != mad::pkey_base(group.p_key)) return "P_Key differs from the group's";
        if (!mad::pkey_full(req.p_key) && !mad::pkey_full(group.p_key)) return "both P_Keys are limited";
    }
    if ((mask & m::traffic_class) && req.traffic_class != group.traffic_class) return "TClass differs from the group's";
    if ((mask & m::sl) && req.sl != group.sl) return "SL differs from the group's";
    if ((mask & m::flow_label) && req.flow_label != group.flow_label) return "FlowLabel differs from the group's";
    if ((mask & m::hop_limit) && req.hop_limit != group.hop_limit) return "HopLimit differs from the group's";
    return std::nullopt;
}

// o15-0.1.5: a requested MGID must be a multicast GID with reserved flags
// clear; the SA's own signature 0xA01B with link-local scope is reserved
// to MGIDs the SA assigns. IPoIB MGIDs (signature 0x401B / 0x601B) pass.
std::optional<std::string> mgid_invalid(const mad::Gid128& g)
{
    if (!g.is_multicast()) return "MGID does not start with 0xFF";
    const auto signature = static_cast<std::uint16_t>(g.prefix >> 32);
    if (signature == 0x401b || signature == 0x601b) return std::nullopt;
    const auto flags = static_cast<std::uint8_t>((g.prefix >> 52) & 0xf);
    if (flags & 0xe) return "MGID uses reserved flag bits";
    if (signature == 0xa01b && g.multicast_scope() == 2) return "MGID has the SA's signature with link-local scope";
    return std::nullopt;
}

// Fills in what the creator left to the SA and checks the rest can be
// carried by the creating port (o15-0.2.3). Returns why not.
std::optional<std::string> realise(mad::McMemberRecord& g, std::uint64_t mask, const PortFacts& port,
                                   std::uint8_t packet_life_time)
{
    const bool mtu_given = (mask & m::mtu) && (mask & m::mtu_selector) && g.mtu_selector != 3;
    if (!mtu_given) {
        g.mtu = port.mtu;
    } else {
        std::uint8_t mtu = g.mtu;
        switch (g.mtu_selector) {
        case 0:
            if (mtu >= port.mtu) return "no MTU above the one asked fits the port";
            mtu = port.mtu;
            break;
        case 1: mtu = std::min<std::uint8_t>(static_cast<std::uint8_t>(mtu - 1), port.mtu); break;
        default:
            if (mtu > port.mtu) return "the MTU asked is above the port's";
            break;
        }
        if (!mtu_valid(mtu)) return "no valid MTU fits the request";
        g.mtu = mtu;
    }
    const bool rate_given = (mask & m::rate) && (mask & m::rate_selector) && g.rate_selector != 3;
    if (!rate_given) {
        g.rate = port.rate;
    } else {
        switch (g.rate_selector) {
        case 0:
            if (compare_rates(g.rate, port.rate) >= 0) return "no rate above the one asked fits the port";
            g.rate = port.rate;
            break;
        case 1:
            if (compare_rates(g.rate, port.rate) > 0) {
                g.rate = port.rate;
            } else {
                // The next slower code that exists.
                std::optional<std::uint8_t> best;
                for (std::uint8_t c = 2; c <= 24; ++c)
                    if (rate_valid(c) && compare_rates(c, g.rate) < 0 && (!best || compare_rates(c, *best) > 0))
                        best = c;
                if (!best) return "no rate below the one asked";
                g.rate = *best;
            }
            break;
        default:
            if (compare_rates(g.rate, port.rate) > 0) return "the rate asked is above the port's";
            break;
        }
    }
    // PacketLifeTime with its selector, as MTU and rate: the SA's own
    // value where it satisfies the selector, else the nearest one that does
    // (osmtest creates with "greater than 0" and then joins with the same
    // selector, which the group's life time must then satisfy).
    const std::uint8_t own = packet_life_time & 0x3f;
    if (!(mask & m::packet_life_time)) {
        g.packet_life_time = own;
    } else if (mask & m::packet_life_time_selector) {
        const std::uint8_t asked = g.packet_life_time & 0x3f;
        switch (g.packet_life_time_selector) {
        case 0:
            if (asked >= 0x3f) return "no packet life time above the one asked";
            g.packet_life_time = own > asked ? own : static_cast<std::uint8_t>(asked + 1);
            break;
        case 1:
            if (asked == 0) return "no packet life time below 0";
            g.packet_life_time = own < asked ? own : static_cast<std::uint8_t>(asked - 1);
            break;
        case 2: g.packet_life_time = asked; break;
        default: g.packet_life_time = own; break;
        }
    }
    g.mtu_selector = g.rate_selector = g.packet_life_time_selector = static_cast<std::uint8_t>(mad::Selector::exactly);
    return std::nullopt;
}

// o15-0.2.1: who may change an existing membership.
bool may_modify(const Member& member, Guid member_guid, Guid requester, const Group& group, const PortLookup& ports)
{
    if (!member.proxy_join) return requester == member_guid;
    const PortFacts* r = ports(requester);
    return r && r->has_partition(group.params.p_key);
}

mad::McMemberRecord answer(const Group& g, const Member& m)
{
    mad::McMemberRecord r = g.params;
    r.port_gid = m.port_gid;
    r.join_state = m.join_state;
    r.proxy_join = m.proxy_join;
    r.mtu_selector = r.rate_selector = r.packet_life_time_selector =
        static_cast<std::uint8_t>(mad::Selector::exactly);
    return r;
}

} // namespace

const Group* GroupTable::find(const mad::Gid128& mgid) const
{
    auto it = groups_.find(mgid);
    return it == groups_.end() ? nullptr : &it->second;
}

const Group* GroupTable::find(Lid mlid) const
{
    auto it = by_mlid_.find(mlid.value());
    return it == by_mlid_.end() ? nullptr : find(it->second);
}

std::optional<Lid> GroupTable::free_mlid(Lid wanted) const
{
    if (wanted.value() >= mad::multicast_lid_base && wanted.value() <= settings_.mlid_top &&
        !by_mlid_.count(wanted.value()))
        return wanted;
    for (std::uint32_t l = mad::multicast_lid_base; l <= settings_.mlid_top; ++l)
        if (!by_mlid_.count(static_cast<std::uint16_t>(l))) return Lid(static_cast<std::uint16_t>(l));
    return std::nullopt;
}

std::optional<mad::Gid128> GroupTable::new_mgid(std::uint8_t scope)
{
    // ff1<scope>:a01b:<subnet prefix>:<32-bit counter>: unique on this
    // subnet by the counter, and across subnets by the prefix.
    for (int tries = 0; tries < 1000; ++tries) {
        mad::Gid128 g{0xff10a01b00000000ull | (std::uint64_t{scope & 0xfu} << 48) | (settings_.subnet_prefix >> 32),
                   (settings_.subnet_prefix << 32) | next_mgid_++};
        if (!groups_.count(g)) return g;
    }
    return std::nullopt;
}

void GroupTable::erase_group(std::map<mad::Gid128, Group>::iterator it)
{
    // A group whose membership ended has said so already (67 below).
    if (it->second.permanent || it->second.full_members() > 0) notices_.push_back({false, it->first});
    by_mlid_.erase(it->second.params.mlid.value());
    groups_.erase(it);
}

std::optional<Lid> GroupTable::remove(const mad::Gid128& mgid)
{
    auto it = groups_.find(mgid);
    if (it == groups_.end()) return std::nullopt;
    const Lid mlid = it->second.params.mlid;
    erase_group(it);
    ++version_;
    return mlid;
}

JoinOutcome GroupTable::create_permanent(mad::McMemberRecord params)
{
    if (groups_.count(params.mgid)) return refuse(SaStatus::req_invalid, "group " + params.mgid.str() + " exists");
    auto mlid = free_mlid(params.mlid);
    if (!mlid) return refuse(SaStatus::no_resources, "no free MLID");
    params.mlid = *mlid;
    params.port_gid = {};
    params.join_state = 0;
    params.proxy_join = false;
    Group g;
    g.params = params;
    g.permanent = true;
    by_mlid_[mlid->value()] = params.mgid;
    groups_.emplace(params.mgid, std::move(g));
    ++version_;
    JoinOutcome o;
    o.record = params;
    o.created = true;
    return o;
}

JoinOutcome GroupTable::join(const mad::McMemberRecord& in, std::uint64_t mask, Guid requester,
                             const PortLookup& ports)
{
    if ((mask & join_mask) != join_mask)
        return refuse(SaStatus::insufficient_components, "a join needs MGID, PortGID and JoinState");
    if (((mask & m::rate) && (mask & m::rate_selector) && !rate_valid(in.rate)) ||
        ((mask & m::mtu) && (mask & m::mtu_selector) && !mtu_valid(in.mtu)))
        return refuse(SaStatus::req_invalid, "invalid rate or MTU code");
    mad::McMemberRecord req = in;
    if (req.port_gid.prefix == default_prefix) req.port_gid.prefix = settings_.subnet_prefix;
    if (req.port_gid.prefix != settings_.subnet_prefix)
        return refuse(SaStatus::invalid_gid, "PortGID prefix is not the subnet's");
    const Guid port_guid = req.port_gid.guid();
    const PortFacts* port = ports(port_guid);
    if (!port) return refuse(SaStatus::req_invalid, "unknown port " + port_guid.str());
    const bool proxy = requester != port_guid;
    if (proxy) {
        const PortFacts* r = ports(requester);
        if (!r || !r->shares_partition(*port))
            return refuse(SaStatus::req_invalid, "requester " + requester.str() + " shares no partition with " +
                                                     port_guid.str());
    }
    if ((mask & m::p_key) && mad::pkey_empty(req.p_key)) return refuse(SaStatus::req_invalid, "invalid P_Key");

    JoinOutcome o;
    auto it = groups_.find(req.mgid);
    if (it == groups_.end() || req.mgid.is_zero()) {
        if (!(req.join_state & (js::full_member | js::send_only_full_member)))
            return refuse(SaStatus::req_invalid, "creating a group needs JoinState FullMember");
        if ((mask & create_mask) != create_mask)
            return refuse(SaStatus::insufficient_components,
                          "creating a group needs Q_Key, TClass, P_Key, FlowLabel and SL");
        mad::McMemberRecord g = req;
        if (req.mgid.is_zero()) {
            auto mgid = new_mgid((mask & m::scope) ? req.scope : 2);
            if (!mgid) return refuse(SaStatus::no_resources, "no MGID left");
            g.mgid = *mgid;
        } else if (auto why = mgid_invalid(req.mgid)) {
            return refuse(SaStatus::req_invalid, *why);
        }
        g.scope = g.mgid.multicast_scope();
        if (auto why = realise(g, mask, *port, settings_.packet_life_time))
            return refuse(SaStatus::req_invalid, *why);
        auto mlid = free_mlid((mask & m::mlid) ? req.mlid : Lid());
        if (!mlid) return refuse(SaStatus::no_resources, "no free MLID");
        g.mlid = *mlid;
        if (!port->has_partition(g.p_key))
            return refuse(SaStatus::req_invalid, "port " + port_guid.str() + " is not in partition " + hex16(g.p_key));
        g.port_gid = {};
        g.join_state = 0;
        g.proxy_join = false;
        Group group;
        group.params = g;
        by_mlid_[mlid->value()] = g.mgid;
        it = groups_.emplace(g.mgid, std::move(group)).first;
        o.created = true;
    } else {
        const Group& g = it->second;
        if (auto why = other_components_differ(g.params, req, mask)) return refuse(SaStatus::req_invalid, *why);
        if (!selectors_match(g.params, req, mask))
            return refuse(SaStatus::req_invalid, "MTU, rate or packet life time do not match the group's");
        if (port->mtu < g.params.mtu) return refuse(SaStatus::req_invalid, "the port's MTU is below the group's");
        if (compare_rates(port->rate, g.params.rate) < 0)
            return refuse(SaStatus::req_invalid, "the port's rate is below the group's");
        if (req.join_state == 0) return refuse(SaStatus::req_invalid, "JoinState 0");
        if (!port->has_partition(g.params.p_key))
            return refuse(SaStatus::req_invalid,
                          "port " + port_guid.str() + " is not in partition " + hex16(g.params.p_key));
        if (auto m = g.members.find(port_guid); m != g.members.end() && !may_modify(m->second, port_guid, requester, g, ports))
            return refuse(SaStatus::req_invalid, "membership of " + port_guid.str() + " belongs to another port");
    }

    Group& g = it->second;
    const bool had_full = g.full_members() > 0;
    auto [mit, fresh] = g.members.try_emplace(port_guid);
    Member& member = mit->second;
    const bool received = !fresh && member.receives();
    const std::uint8_t before = fresh ? 0 : member.join_state;
    member.port_gid = req.port_gid;
    member.join_state = static_cast<std::uint8_t>(before | (req.join_state & 0xf));
    // A join for another port is a proxy join whatever the record's
    // ProxyJoin bit says (OpenSM's mcmr_rcv_join_mgrp: osmtest joins for a
    // remote port without it and then leaves for it).
    if (fresh) member.proxy_join = proxy;
    o.members_changed = fresh || received != member.receives();
    if (!had_full && g.full_members() > 0) notices_.push_back({true, g.params.mgid});
    if (o.members_changed || o.created) ++version_;
    o.record = answer(g, member);
    o.record.port_gid.prefix = in.port_gid.prefix; // answered with the prefix the request used
    return o;
}

JoinOutcome GroupTable::leave(const mad::McMemberRecord& in, std::uint64_t mask, Guid requester,
                              const PortLookup& ports)
{
    if ((mask & join_mask) != join_mask)
        return refuse(SaStatus::insufficient_components, "a leave needs MGID, PortGID and JoinState");
    mad::McMemberRecord req = in;
    if (req.port_gid.prefix == default_prefix) req.port_gid.prefix = settings_.subnet_prefix;
    if (req.port_gid.prefix != settings_.subnet_prefix)
        return refuse(SaStatus::invalid_gid, "PortGID prefix is not the subnet's");
    auto it = groups_.find(req.mgid);
    if (it == groups_.end()) return refuse(SaStatus::req_invalid, "no group " + req.mgid.str());
    Group& g = it->second;
    const Guid port_guid = req.port_gid.guid();
    auto mit = g.members.find(port_guid);
    if (mit == g.members.end()) return refuse(SaStatus::req_invalid, port_guid.str() + " is not a member");
    Member& member = mit->second;
    const std::uint8_t asked = req.join_state & 0xf;
    if ((asked & member.join_state) == 0 || (asked | member.join_state) != member.join_state)
        return refuse(SaStatus::req_invalid, "JoinState is not a non-empty subset of the member's");
    if (!may_modify(member, port_guid, requester, g, ports))
        return refuse(SaStatus::req_invalid, "membership of " + port_guid.str() + " belongs to another port");

    JoinOutcome o;
    o.record = answer(g, member);
    o.record.port_gid.prefix = in.port_gid.prefix;
    const bool received = member.receives();
    const bool had_full = g.full_members() > 0;
    member.join_state = static_cast<std::uint8_t>(member.join_state & ~asked);
    o.record.join_state = member.join_state;
    if (member.join_state == 0) {
        g.members.erase(mit);
        o.members_changed = true;
    } else {
        o.members_changed = received != member.receives();
    }
    if (g.full_members() == 0 && !g.members.empty()) {
        // The last full member left: the group ends for everyone (o15-0.1.x).
        g.members.clear();
        o.members_changed = true;
    }
    if (had_full && g.full_members() == 0) notices_.push_back({false, g.params.mgid});
    if (g.members.empty() && !g.permanent) erase_group(it);
    if (o.members_changed) ++version_;
    return o;
}

std::vector<mad::McMemberRecord> GroupTable::query(const mad::McMemberRecord& req, std::uint64_t mask,
                                                   Guid requester, bool trusted, const PortLookup& ports) const
{
    std::vector<mad::McMemberRecord> out;
    const PortFacts* who = ports(requester);
    for (const auto& [mgid, g] : groups_) {
        if ((mask & m::mgid) && req.mgid != mgid) continue;
        if ((mask & m::mlid) && req.mlid != g.params.mlid) continue;
        if (!who || !who->has_partition(g.params.p_key)) continue;
        if (other_components_differ(g.params, req, mask)) continue;
        if (!selectors_match(g.params, req, mask)) continue;
        if ((mask & m::scope) && req.scope != g.params.scope) continue;
        auto state_matches = [&](std::uint8_t s) { return !(mask & m::join_state) || (req.join_state & 0xf) == s; };
        if (mask & m::port_gid) {
            auto mit = g.members.find(req.port_gid.guid());
            if (mit == g.members.end() || !state_matches(mit->second.join_state)) continue;
            if ((mask & m::proxy_join) && req.proxy_join != mit->second.proxy_join) continue;
            out.push_back(answer(g, mit->second));
        } else if (trusted) {
            for (const auto& [guid, member] : g.members) {
                if (!state_matches(member.join_state)) continue;
                if ((mask & m::proxy_join) && req.proxy_join != member.proxy_join) continue;
                out.push_back(answer(g, member));
            }
        } else {
            if (!state_matches(js::full_member)) continue;
            out.push_back(answer(g, Member{{}, js::full_member, false}));
        }
    }
    if (!trusted)
        for (auto& r : out) {
            r.port_gid = {};
            r.join_state = 0;
            r.proxy_join = false;
        }
    return out;
}

std::vector<Lid> GroupTable::drop_ports(const std::function<bool(Guid)>& gone)
{
    std::vector<Lid> changed;
    for (auto it = groups_.begin(); it != groups_.end();) {
        Group& g = it->second;
        const auto before = g.members.size();
        const bool had_full = g.full_members() > 0;
        std::erase_if(g.members, [&](const auto& m) { return gone(m.first); });
        if (g.members.size() == before) {
            ++it;
            continue;
        }
        changed.push_back(g.params.mlid);
        if (g.full_members() == 0) g.members.clear();
        if (had_full && g.full_members() == 0) notices_.push_back({false, g.params.mgid});
        if (g.members.empty() && !g.permanent) {
            auto next = std::next(it);
            erase_group(it);
            it = next;
        } else {
            ++it;
        }
    }
    if (!changed.empty()) ++version_;
    return changed;
}

} // namespace ibsm::mcast
