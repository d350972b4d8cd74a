#include "daemon/sa/sa_paths.h"

#include "daemon/sa/path_dlids.h"
#include "daemon/sa/path_qos.h"
#include "mad/link_speed.h"
#include "mad/sa/component_mask.h"

#include <algorithm>
#include <array>
#include <memory>
#include <vector>

namespace ibsm::daemon {

namespace sa = mad::sa;
using topology::PortRef;

namespace {

// Bandwidth of a port's link in Mb/s (0 when its width or speed is unknown).
unsigned link_mbps(const topology::Port& p)
{
    return mad::lanes(p.link_width_active) *
           mad::lane_mbps(mad::active_speed(p.link_speed_active, p.link_speed_ext_active, p.link_speed_ext_active2));
}

// What every query looks up again: each switch's LFT by node index (the
// routing result keeps them in a map) and the subnet's GID prefix (the SM
// sets the one of its own port on every port). Rebuilt when a query names
// another snapshot; the SA runs on the loop thread, one snapshot at a time.
// Halved the handler's share of a 3 456-host PathRecord load in `perf`.
// The index holds the tables it points into, so they outlive it and no
// later snapshot can reuse their address while it is cached.
struct SnapshotIndex {
    const SubnetSnapshot* snap = nullptr;
    std::uint64_t generation = 0;
    std::shared_ptr<const routing::RoutingTables> tables;
    std::vector<const routing::Lft*> lft;
    std::uint64_t prefix = sa::default_gid_prefix;
};

const SnapshotIndex& index_of(const SubnetSnapshot& s)
{
    thread_local SnapshotIndex ix;
    if (ix.snap == &s && ix.generation == s.generation && ix.tables == s.tables) return ix;
    ix = SnapshotIndex{&s, s.generation, s.tables, {}, sa::default_gid_prefix};
    ix.lft.assign(s.found.fabric.node_count(), nullptr);
    if (s.tables)
        for (const auto& [node, lft] : s.tables->lfts)
            if (node.value < ix.lft.size()) ix.lft[node.value] = &lft;
    auto sm = s.found.port_info.find(s.found.sm_port);
    if (sm != s.found.port_info.end() && sm->second.gid_prefix != 0) ix.prefix = sm->second.gid_prefix;
    return ix;
}

struct Walk {
    bool ok = false;
    std::uint8_t mtu = 0;  // IBA MTU enum
    unsigned rate = 0;     // Mb/s
};

// Follows the LFTs from `src` (endport) towards `dlid` until it reaches
// `dst`; the smallest MTU and rate of the links it crosses.
Walk walk(const SubnetSnapshot& s, PortRef src, PortRef dst, Lid dlid)
{
    const auto& f = s.found.fabric;
    Walk w;
    w.mtu = 0xff;
    w.rate = ~0u;
    auto cross = [&](PortRef a, PortRef b) {
        const auto& pa = f.port(a);
        const auto& pb = f.port(b);
        w.mtu = std::min({w.mtu, pa.mtu_cap, pb.mtu_cap});
        w.rate = std::min(w.rate, link_mbps(pa));
    };
    if (src == dst) {
        const auto& p = f.port(src);
        w.ok = true;
        w.mtu = p.mtu_cap;
        w.rate = link_mbps(p);
        return w;
    }
    // A switch's port 0 at either end has an MtuCap of its own (often below
    // its external ports': 1024 on ibsim's switches) and a rate as its
    // PortInfo gives it; the path can carry no more than the end that
    // sends or takes its packets (IBA 15.2.5.16: MTU and rate are the
    // path's minimum, endports included, as OpenSM's
    // pr_rcv_get_path_parms counts them). What was not read (0) caps nothing.
    auto endport = [&](PortRef p) {
        if (p.port.value() != 0) return;
        const auto& pp = f.port(p);
        if (pp.mtu_cap) w.mtu = std::min(w.mtu, pp.mtu_cap);
        if (const unsigned r = link_mbps(pp)) w.rate = std::min(w.rate, r);
    };
    endport(src);
    endport(dst);
    topology::NodeId at = src.node;
    if (!f.node(src.node).is_switch()) {
        auto far = f.remote(src);
        if (!far) return w;
        cross(src, *far);
        if (*far == dst) return w.ok = true, w;
        at = far->node;
    }
    for (unsigned hop = 0; hop < 64; ++hop) {
        const auto& n = f.node(at);
        if (!n.is_switch()) return w; // reached a CA that is not the destination
        const auto& lfts = index_of(s).lft;
        const routing::Lft* lft = at.value < lfts.size() ? lfts[at.value] : nullptr;
        if (!lft) return w;
        const std::uint8_t out = lft->at(dlid);
        if (out == 0) {
            w.ok = dst == PortRef{at, PortNum(0)};
            return w;
        }
        if (out == routing::no_route || out > n.num_ports()) return w;
        const PortRef exit{at, PortNum(out)};
        auto far = f.remote(exit);
        if (!far) return w;
        cross(exit, *far);
        if (*far == dst) return w.ok = true, w;
        at = far->node;
    }
    return w;
}

std::uint64_t prefix_of(const SubnetSnapshot& s, PortRef)
{
    return index_of(s).prefix;
}

Guid guid_of(const SubnetSnapshot& s, PortRef endport)
{
    const auto& n = s.found.fabric.node(endport.node);
    return n.is_switch() ? n.guid : n.port(endport.port).guid;
}

// An end of the query: a port, none (not asked), or asked but unknown.
struct End {
    bool asked = false;
    std::optional<PortRef> port;
    std::optional<Lid> lid; // a specific LID asked for
};

// The selector rules of IBA 15.2.5.16 for a value the SA can only lower
// (MTU, packet lifetime): 0 greater than, 1 less than, 2 exactly, 3 the
// largest available. nullopt: the path cannot satisfy it.
std::optional<std::uint8_t> select(std::uint8_t have, std::uint8_t selector, std::uint8_t want)
{
    switch (selector) {
    case 0: return have > want ? std::optional<std::uint8_t>(have) : std::nullopt;
    case 1:
        if (have < want) return have;
        return want > 1 ? std::optional<std::uint8_t>(static_cast<std::uint8_t>(want - 1)) : std::nullopt;
    case 2: return have >= want ? std::optional<std::uint8_t>(want) : std::nullopt;
    default: return have;
    }
}

class PathQuery {
public:
    PathQuery(const SaRequest& req, sa::PathRecord q, std::uint64_t mask, unsigned limit)
        : s_(req.snapshot), q_(q), mask_(mask), limit_(limit)
    {
        // ServiceID is two components (8 + 56 bits), either names it.
        if (mask & sa::pr_mask::service_id) ask_.service_id = q.service_id;
        if (mask & sa::pr_mask::qos_class) ask_.qos_class = q.qos_class;
    }

    // Paths of one pair, at most limit_ of them, appended to `out`.
    void pair(PortRef src, PortRef dst, std::optional<Lid> want_slid, std::optional<Lid> want_dlid,
              std::vector<std::vector<std::uint8_t>>& out, unsigned& budget) const
    {
        const unsigned n = path_count(s_, src, dst);
        unsigned taken = 0;
        for (unsigned i = 0; i < n && taken < limit_ && budget > 0; ++i) {
            auto slid = slid_for(s_, src, dst, i);
            auto dlid = dlid_for(s_, src, dst, i);
            if (!slid || !dlid) continue;
            if (want_slid && *slid != *want_slid) continue;
            if (want_dlid && *dlid != *want_dlid) continue;
            auto pr = build_path_record(s_, src, dst, i);
            if (!pr || !accept(*pr)) continue;
            out.push_back(sa::encode(*pr));
            ++taken;
            --budget;
        }
    }

private:
    bool has(std::uint64_t bit) const { return (mask_ & bit) != 0; }

    bool accept(sa::PathRecord& pr) const
    {
        if (has(sa::pr_mask::pkey)) {
            // The partition asked for, if both ends share it (partition/partitions.h).
            if (s_.partitions) {
                auto k = s_.partitions->path_pkey(sa::gid_guid(pr.sgid), sa::gid_guid(pr.dgid), q_.pkey);
                if (!k) return false;
                pr.pkey = *k;
            } else if ((q_.pkey & 0x7fff) != (pr.pkey & 0x7fff)) {
                return false;
            }
        }
        // The QoS level of the pair, before the query's SL and selectors:
        // a level they exclude is no path (path_qos.h).
        apply_path_qos(s_, pr, ask_);
        if (has(sa::pr_mask::sl) && pr.sl != q_.sl) return false;
        if (has(sa::pr_mask::mtu)) {
            auto m = select(pr.mtu & 0x3f, q_.mtu_selector, q_.mtu);
            if (!m) return false;
            pr.mtu = static_cast<std::uint8_t>(0x80 | *m);
        }
        if (has(sa::pr_mask::rate)) {
            // By bandwidth, not by code (IBA 15.2.5.16: 3 = 10 Gb/s is
            // above 5 = 5 Gb/s).
            const int cmp = mad::compare_rate_codes(pr.rate & 0x3f, q_.rate);
            const bool ok = q_.rate_selector == 0   ? cmp > 0
                            : q_.rate_selector == 1 ? cmp < 0
                            : q_.rate_selector == 2 ? cmp == 0
                                                    : true;
            if (!ok) return false;
        }
        if (has(sa::pr_mask::packet_life)) {
            auto l = select(pr.packet_life & 0x3f, q_.packet_life_selector, q_.packet_life);
            if (!l) return false;
            pr.packet_life = static_cast<std::uint8_t>(0x80 | *l);
        }
        // Echoed from the query when it names them (OpenSM does the same).
        if (has(sa::pr_mask::service_id)) pr.service_id = q_.service_id;
        if (mask_ & (1ull << 8)) pr.flow_label = q_.flow_label;
        if (mask_ & (1ull << 10)) pr.tclass = q_.tclass;
        if (mask_ & (1ull << 6)) pr.raw_traffic = q_.raw_traffic;
        if (has(sa::pr_mask::sgid)) pr.sgid = q_.sgid;
        if (has(sa::pr_mask::dgid)) pr.dgid = q_.dgid;
        if (has(sa::pr_mask::qos_class)) pr.qos_class = q_.qos_class;
        return true;
    }

    const SubnetSnapshot& s_;
    sa::PathRecord q_;
    std::uint64_t mask_;
    unsigned limit_;
    QosAsk ask_;
};

std::vector<PortRef> all_endports(const SubnetSnapshot& s)
{
    std::vector<PortRef> out;
    for (const auto& [port, range] : s.lids.lids.entries()) out.push_back(port);
    return out;
}

// Resolves a GID (by its GUID; the prefix must be the port's) to an endport.
std::optional<PortRef> port_of_gid(const SubnetSnapshot& s, const mad::Gid& g)
{
    auto p = s.found.fabric.find_port(sa::gid_guid(g));
    if (!p) return std::nullopt;
    const PortRef e = endport_of(s, *p);
    if (sa::gid_prefix(g) != prefix_of(s, e)) return std::nullopt;
    return e;
}

} // namespace

std::optional<sa::PathRecord> build_path_record(const SubnetSnapshot& s, PortRef src, PortRef dst, unsigned index)
{
    if (!s.tables) return std::nullopt;
    const auto slid = slid_for(s, src, dst, index);
    const auto dlid = dlid_for(s, src, dst, index);
    if (!slid || !dlid) return std::nullopt;
    const auto w = walk(s, src, dst, *dlid);
    if (!w.ok || w.mtu == 0 || w.rate == 0) return std::nullopt;
    sa::PathRecord pr;
    pr.sgid = sa::make_gid(prefix_of(s, src), guid_of(s, src));
    pr.dgid = sa::make_gid(prefix_of(s, dst), guid_of(s, dst));
    pr.slid = *slid;
    pr.dlid = *dlid;
    pr.reversible = true;
    pr.numb_path = 0;
    // Ports that share no partition get no path (IBA 15.2.5.16: a path
    // exists only within a partition); without a partition model every
    // port is in the default one.
    if (s.partitions) {
        auto k = s.partitions->path_pkey(guid_of(s, src), guid_of(s, dst));
        if (!k) return std::nullopt;
        pr.pkey = *k;
    } else {
        pr.pkey = 0xffff;
    }
    pr.sl = s.tables->sl.at(src, *dlid);
    pr.mtu_selector = 2;
    pr.mtu = w.mtu;
    pr.rate_selector = 2;
    pr.rate = mad::rate_code_for(w.rate).value_or(2);
    pr.packet_life_selector = 2;
    pr.packet_life = src == dst ? 0 : default_packet_life;
    pr.preference = 0;
    return pr;
}

SaAnswer sa_path_records(const SaRequest& req)
{
    const auto mask = req.header.component_mask;
    if (!sa::mask_valid(sa::path_record_components(), mask)) return SaAnswer::error(sa::status::req_invalid);
    const auto q = sa::decode_path_record(req.record);
    if (!q) return SaAnswer::error(sa::status::req_invalid);
    const auto& s = req.snapshot;
    auto end = [&](std::uint64_t gid_bit, const mad::Gid& gid, std::uint64_t lid_bit, Lid lid) -> std::optional<End> {
        End e;
        if (mask & gid_bit) {
            e.asked = true;
            e.port = port_of_gid(s, gid);
            if (!e.port) return std::nullopt; // an unknown GID: ERR_REQ_INVALID_GID
        }
        if (mask & lid_bit) {
            auto p = s.lids.lids.port_of(lid);
            e.lid = lid;
            if (!p || (e.port && *e.port != *p)) {
                e.asked = true;
                e.port.reset();
                return e; // no such LID, or not the GID's: no paths
            }
            e.asked = true;
            e.port = *p;
        }
        return e;
    };
    const auto src = end(sa::pr_mask::sgid, q->sgid, sa::pr_mask::slid, q->slid);
    const auto dst = end(sa::pr_mask::dgid, q->dgid, sa::pr_mask::dlid, q->dlid);
    if (!src || !dst) return SaAnswer::error(sa::status::invalid_gid);
    const bool get = req.header.method == sa::method::get;
    if (get && (!src->asked || !dst->asked)) return SaAnswer::error(sa::status::insufficient_components);
    if ((src->asked && !src->port) || (dst->asked && !dst->port)) return SaAnswer{};
    // Neither end: every pair of endports (`saquery -p`; OpenSM's
    // pr_rcv_process_world). The answer is built whole before its RMPP
    // transfer starts (~100 bytes a record), so a subnet with more pairs
    // than world_paths_max gets ERR_NO_RESOURCES instead of gigabytes.
    if (!src->asked && !dst->asked) {
        const std::size_t n = s.lids.lids.entries().size();
        if (n * n > world_paths_max) return SaAnswer::error(sa::status::no_resources);
    }
    unsigned limit = ~0u;
    if (get) limit = 1;
    else if (mask & sa::pr_mask::numb_path) limit = q->numb_path;
    const PathQuery pq(req, *q, mask, limit);
    SaAnswer out;
    unsigned budget = ~0u;
    const auto srcs = src->port ? std::vector<PortRef>{*src->port} : all_endports(s);
    const auto dsts = dst->port ? std::vector<PortRef>{*dst->port} : all_endports(s);
    for (const auto& a : srcs)
        for (const auto& b : dsts) pq.pair(a, b, src->lid, dst->lid, out.records, budget);
    return out;
}

SaAnswer sa_multipath_records(const SaRequest& req)
{
    const auto mask = req.header.component_mask;
    if (!sa::mask_valid(sa::multipath_record_components(), mask)) return SaAnswer::error(sa::status::req_invalid);
    if (!(mask & sa::mpr_mask::sgid_count) || !(mask & sa::mpr_mask::dgid_count))
        return SaAnswer::error(sa::status::insufficient_components);
    const auto q = sa::decode_multipath_record(req.record);
    if (!q || q->sgids.empty() || q->dgids.empty()) return SaAnswer::error(sa::status::req_invalid);
    const auto& s = req.snapshot;
    // The PathRecord selectors of the query, in PathRecord form.
    sa::PathRecord pq_rec;
    pq_rec.sl = q->sl;
    pq_rec.mtu_selector = q->mtu_selector;
    pq_rec.mtu = q->mtu;
    pq_rec.rate_selector = q->rate_selector;
    pq_rec.rate = q->rate;
    pq_rec.packet_life_selector = q->packet_life_selector;
    pq_rec.packet_life = q->packet_life;
    pq_rec.pkey = q->pkey;
    pq_rec.qos_class = q->qos_class;
    pq_rec.service_id = q->service_id;
    std::uint64_t pr_bits = 0;
    // ServiceID (8 MSBs, 56 LSBs) and QoSClass select the QoS level.
    if (mask & sa::mpr_mask::service_id) pr_bits |= sa::pr_mask::service_id;
    if (mask & sa::mpr_mask::qos_class) pr_bits |= sa::pr_mask::qos_class;
    if (mask & sa::mpr_mask::sl) pr_bits |= sa::pr_mask::sl;
    if (mask & (1ull << 7)) pr_bits |= sa::pr_mask::pkey;
    if (mask & (1ull << 11)) pr_bits |= sa::pr_mask::mtu;
    if (mask & (1ull << 13)) pr_bits |= sa::pr_mask::rate;
    if (mask & (1ull << 15)) pr_bits |= sa::pr_mask::packet_life;
    const PathQuery pq(req, pq_rec, pr_bits, ~0u);
    unsigned budget = (mask & sa::mpr_mask::numb_path) ? q->numb_path : ~0u;
    SaAnswer out;
    for (const auto& sg : q->sgids) {
        auto a = port_of_gid(s, sg);
        if (!a) return SaAnswer::error(sa::status::invalid_gid);
        for (const auto& dg : q->dgids) {
            auto b = port_of_gid(s, dg);
            if (!b) return SaAnswer::error(sa::status::invalid_gid);
            pq.pair(*a, *b, std::nullopt, std::nullopt, out.records, budget);
        }
    }
    return out;
}

void register_path_records(SaAgent& agent)
{
    using namespace sa::method;
    agent.handle(sa::attr::path_record, sa::path_record_size, {get, get_table}, sa_path_records);
    // GetMulti answers with PathRecords.
    agent.handle(sa::attr::multipath_record, sa::path_record_size, {get_multi}, sa_multipath_records);
}

} // namespace ibsm::daemon
