// Fabrics and independent checkers for the fat-tree engine tests.
//
// PGFTs are built straight from seed 003 §II-B (tuples, the connection rule
// with parallel ports), optionally with scrambled port numbers, GUIDs and
// node order, so the engines cannot lean on the generator's numbering; other
// shapes (multi-core trees) come from topology/'s generators and are rebuilt
// with the same scrambling. The
// checkers trace the LFTs themselves (paths, forwarding loops), build the
// channel dependency graph with or without switch-originated traffic and
// look for a cycle, and count link loads of shift permutations.
#pragma once

#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"
#include "topology/gen_ranger.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace ibsm::ftest {

using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

inline PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }

struct Pgft {
    unsigned h = 0;
    std::vector<unsigned> m, w, p; // index 1..h
};

inline Pgft pgft(std::vector<unsigned> m, std::vector<unsigned> w, std::vector<unsigned> p)
{
    Pgft g;
    g.h = static_cast<unsigned>(m.size());
    g.m = {0};
    g.w = {0};
    g.p = {0};
    g.m.insert(g.m.end(), m.begin(), m.end());
    g.w.insert(g.w.end(), w.begin(), w.end());
    g.p.insert(g.p.end(), p.begin(), p.end());
    return g;
}

// Node GUIDs for a built fabric: counting up, or random distinct ones when
// the build is scrambled (so GUID order says nothing about the structure).
struct GuidSource {
    bool scramble;
    std::mt19937& rng;
    std::set<std::uint64_t> used;
    std::uint64_t next = 0x10000;

    GuidSource(bool s, std::mt19937& r) : scramble(s), rng(r) {}
    Guid operator()()
    {
        if (!scramble) return Guid(++next);
        for (;;) {
            std::uint64_t v = (rng() & 0xFFFFFF) + 0x100;
            if (used.insert(v).second) return Guid(v);
        }
    }
};

struct Built {
    Fabric fabric;
    std::vector<std::vector<NodeId>> level; // level[l][tuple index]; level 0 = hosts
    std::vector<NodeId> hosts;
};

struct BuildOptions {
    bool scramble = false;        // random port numbers, GUIDs and node creation order
    std::uint32_t seed = 1;
    double host_fill = 1.0;        // fraction of host slots populated
};

// Tuple digits of node `idx` at level l: a_j for j = 1..h (digit j radix:
// w_j when j <= l, m_j when j > l); index is mixed radix with a_1 least
// significant.
inline std::vector<unsigned> digits(const Pgft& g, unsigned l, std::size_t idx)
{
    std::vector<unsigned> a(g.h + 1, 0);
    for (unsigned j = 1; j <= g.h; ++j) {
        unsigned radix = j <= l ? g.w[j] : g.m[j];
        a[j] = static_cast<unsigned>(idx % radix);
        idx /= radix;
    }
    return a;
}
inline std::size_t index_of(const Pgft& g, unsigned l, const std::vector<unsigned>& a)
{
    std::size_t idx = 0;
    for (unsigned j = g.h; j >= 1; --j) idx = idx * (j <= l ? g.w[j] : g.m[j]) + a[j];
    return idx;
}
inline std::size_t count_at(const Pgft& g, unsigned l)
{
    std::size_t n = 1;
    for (unsigned j = 1; j <= g.h; ++j) n *= j <= l ? g.w[j] : g.m[j];
    return n;
}

inline void make_healthy(Fabric& f)
{
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
}

// Seed 003 §II-B. Hosts are level 0 with w_1 = p_1 = 1 expected.
inline Built build_pgft(const Pgft& g, const BuildOptions& o = {})
{
    std::mt19937 rng(o.seed);
    Built b;
    b.level.resize(g.h + 1);
    // Creation order: optionally shuffled.
    std::vector<std::pair<unsigned, std::size_t>> order;
    for (unsigned l = 0; l <= g.h; ++l)
        for (std::size_t i = 0; i < count_at(g, l); ++i) order.push_back({l, i});
    if (o.scramble) std::shuffle(order.begin(), order.end(), rng);
    for (unsigned l = 0; l <= g.h; ++l) b.level[l].assign(count_at(g, l), NodeId{0xFFFFFFFFu});
    GuidSource guid(o.scramble, rng);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::vector<std::vector<bool>> host_present(1);
    for (auto [l, i] : order) {
        auto a = digits(g, l, i);
        std::string name = (l == 0 ? "host" : "sw") + std::to_string(l);
        for (unsigned j = g.h; j >= 1; --j) name += "_" + std::to_string(a[j]);
        unsigned ports = 0;
        if (l == 0) ports = 1;
        else ports = g.m[l] * g.p[l] + (l < g.h ? g.w[l + 1] * g.p[l + 1] : 0);
        if (l == 0 && o.host_fill < 1.0 && coin(rng) >= o.host_fill) continue;
        auto id = b.fabric.add_node(l == 0 ? NodeType::ca : NodeType::switch_node, guid(),
                                    static_cast<std::uint8_t>(ports), name);
        if (l == 0) b.fabric.set_port_guid(pr(id, 1), Guid(b.fabric.node(id).guid.value() + 0x100000000ull));
        b.level[l][i] = id;
    }
    // Physical port of logical down port r / up port q, possibly permuted.
    std::map<std::uint32_t, std::vector<unsigned>> perm;
    auto phys = [&](NodeId n, unsigned logical) {
        auto& pm = perm[n.value];
        if (pm.empty()) {
            pm.resize(b.fabric.node(n).num_ports());
            std::iota(pm.begin(), pm.end(), 1u);
            if (o.scramble) std::shuffle(pm.begin(), pm.end(), rng);
        }
        return pm[logical];
    };
    for (unsigned l = 0; l < g.h; ++l)
        for (std::size_t i = 0; i < count_at(g, l); ++i) {
            NodeId lo = b.level[l][i];
            if (lo.value == 0xFFFFFFFFu) continue;
            auto a = digits(g, l, i);
            for (unsigned x = 0; x < g.w[l + 1]; ++x) {
                auto bd = a;
                bd[l + 1] = x;
                NodeId hi = b.level[l + 1][index_of(g, l + 1, bd)];
                for (unsigned k = 0; k < g.p[l + 1]; ++k) {
                    unsigned q = x + k * g.w[l + 1];
                    unsigned r = a[l + 1] + k * g.m[l + 1];
                    unsigned lo_port = l == 0 ? 1 : phys(lo, g.m[l] * g.p[l] + q);
                    unsigned hi_port = phys(hi, r);
                    b.fabric.connect(pr(lo, lo_port), pr(hi, hi_port));
                }
            }
        }
    for (auto id : b.level[0])
        if (id.value != 0xFFFFFFFFu) b.hosts.push_back(id);
    make_healthy(b.fabric);
    return b;
}

// A fabric from one of the topology/ generators, rebuilt the way build_pgft
// builds: levels are the hop distance from the nearest CA (so a host's switch
// is level 1, whatever the generator calls it), level[l] keeps the
// generator's node order, and `o` scrambles node order, GUIDs and switch port
// numbers and drops hosts just as for a PGFT. With `tops` (the generator's
// top switches) levels are counted down from them instead (level = depth of
// the CAs - distance from the tops), which keeps host-less pods of a
// multi-core tree at their core levels rather than above the tops.
inline Built rebuild(const Fabric& g, const BuildOptions& o = {}, const std::vector<NodeId>& tops = {})
{
    std::mt19937 rng(o.seed);
    auto bfs = [&](bool from_cas) {
        std::vector<int> dist(g.node_count(), -1);
        std::vector<NodeId> queue;
        for (auto id : g.node_ids())
            if (from_cas ? !g.node(id).is_switch() : std::find(tops.begin(), tops.end(), id) != tops.end()) {
                dist[id.value] = 0;
                queue.push_back(id);
            }
        for (std::size_t i = 0; i < queue.size(); ++i)
            for (const auto& p : g.node(queue[i]).ports)
                if (p.remote && dist[p.remote->node.value] < 0) {
                    dist[p.remote->node.value] = dist[queue[i].value] + 1;
                    queue.push_back(p.remote->node);
                }
        return dist;
    };
    std::vector<int> dist = bfs(true);
    if (!tops.empty()) {
        const auto down = bfs(false);
        int depth = 0;
        for (auto id : g.node_ids())
            if (!g.node(id).is_switch() && down[id.value] > depth) depth = down[id.value];
        for (auto id : g.node_ids())
            if (dist[id.value] >= 0) dist[id.value] = depth - down[id.value];
    }
    std::vector<NodeId> order = g.node_ids();
    if (o.scramble) std::shuffle(order.begin(), order.end(), rng);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    GuidSource guid(o.scramble, rng);
    Built b;
    std::vector<NodeId> made(g.node_count(), NodeId{0xFFFFFFFFu});
    std::vector<std::vector<unsigned>> perm(g.node_count());
    for (auto id : order) {
        const auto& n = g.node(id);
        if (dist[id.value] < 0) continue; // not connected to any CA: not part of the tree
        if (!n.is_switch() && o.host_fill < 1.0 && coin(rng) >= o.host_fill) continue;
        auto copy = b.fabric.add_node(n.type, guid(), n.num_ports(), n.description);
        if (!n.is_switch())
            for (unsigned p = 1; p <= n.num_ports(); ++p)
                b.fabric.set_port_guid(pr(copy, p), Guid(b.fabric.node(copy).guid.value() + 0x100000000ull * p));
        made[id.value] = copy;
        auto& pm = perm[id.value];
        pm.resize(n.num_ports() + 1u);
        std::iota(pm.begin(), pm.end(), 0u);
        if (o.scramble && n.is_switch()) std::shuffle(pm.begin() + 1, pm.end(), rng);
    }
    for (const auto& l : g.links()) {
        auto a = made[l.a.node.value], c = made[l.b.node.value];
        if (a.value == 0xFFFFFFFFu || c.value == 0xFFFFFFFFu) continue;
        b.fabric.connect(pr(a, perm[l.a.node.value][l.a.port.value()]), pr(c, perm[l.b.node.value][l.b.port.value()]));
    }
    for (auto id : g.node_ids()) {
        if (dist[id.value] < 0 || made[id.value].value == 0xFFFFFFFFu) continue;
        const auto l = static_cast<std::size_t>(dist[id.value]);
        if (b.level.size() <= l) b.level.resize(l + 1);
        b.level[l].push_back(made[id.value]);
    }
    b.hosts = b.level.empty() ? std::vector<NodeId>{} : b.level[0];
    make_healthy(b.fabric);
    return b;
}

// Small Ranger-like fabrics (topology/gen_ranger.h): NEMs whose uplinks go to
// distinct leaves of every core, cores that share nothing above the NEMs.
// Not PGFTs: the core leaves above one NEM see only two (three) sets of tops.
inline std::vector<std::pair<const char*, topology::MulticoreParams>> multicore_kinds()
{
    topology::MulticoreParams two;
    two.cores = 2;
    two.core = {{2, 2, 4}, {1, 2, 2}, {1, 1, 1}, false}; // 8 leaves, 8 middles, 4 tops per core
    two.nems = 7;                                       // groups of 2 NEMs on 2 leaves per core; one partial
    two.hosts_per_nem = 3;
    two.uplinks_per_core = 2;
    topology::MulticoreParams three;
    three.cores = 3;
    three.core = {{4, 4}, {1, 2}, {1, 1}, false}; // 4 leaves, 2 tops per core
    three.nems = 8;
    three.hosts_per_nem = 2;
    three.uplinks_per_core = 2;
    return {{"2 cores of PGFT(3;2,2,4;1,2,2;1,1,1), 7 NEMs", two}, {"3 cores of PGFT(2;4,4;1,2;1,1), 8 NEMs", three}};
}

// Ranger-like fabrics whose last core leaves carry no NEM (topology/
// gen_ranger.h: core leaves 168..287 of Ranger), so whole core pods, or core
// leaves of a 2-level core, have no host below them.
inline std::vector<std::pair<const char*, topology::MulticoreParams>> multicore_hostless_kinds()
{
    auto kinds = multicore_kinds();
    kinds[0].first = "2 cores of PGFT(3;2,2,4;1,2,2;1,1,1), 3 NEMs: 2 of 4 pods per core host-less";
    kinds[0].second.nems = 3; // NEM groups 0, 1 use core leaves 0..3 (pods 0, 1)
    kinds[1].first = "3 cores of PGFT(2;4,4;1,2;1,1), 4 NEMs: core leaves 2, 3 host-less";
    kinds[1].second.nems = 4; // one group, on core leaves 0, 1: they alone join every NEM
    return kinds;
}

// The top switches of a topology/ multi-core fabric (descriptions "coreC-top-...").
inline std::vector<NodeId> generator_tops(const Fabric& f)
{
    std::vector<NodeId> tops;
    for (auto id : f.node_ids())
        if (f.node(id).description.find("-top-") != std::string::npos) tops.push_back(id);
    return tops;
}

// Every pair of leaves has a common ancestor (an up*/down* path): leaf sets
// below each switch, computed level by level from the tuple levels.
inline bool updown_connected(const Built& b, std::map<std::uint32_t, unsigned>& level)
{
    const Fabric& f = b.fabric;
    const auto& leaves = b.level[1];
    std::map<std::uint32_t, std::vector<bool>> below;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
        below[leaves[i].value].assign(leaves.size(), false);
        below[leaves[i].value][i] = true;
    }
    std::vector<std::vector<bool>> tops;
    for (unsigned l = 2; l < b.level.size(); ++l)
        for (auto id : b.level[l]) {
            auto& mine = below[id.value];
            mine.assign(leaves.size(), false);
            bool has_up = false;
            for (auto& p : f.node(id).ports) {
                if (!p.remote) continue;
                auto peer = p.remote->node.value;
                if (level[peer] == l - 1)
                    for (std::size_t i = 0; i < leaves.size(); ++i) mine[i] = mine[i] || below[peer][i];
                if (level[peer] == l + 1) has_up = true;
            }
            if (!has_up) tops.push_back(mine);
        }
    for (std::size_t i = 0; i < leaves.size(); ++i)
        for (std::size_t k = i + 1; k < leaves.size(); ++k) {
            bool common = false;
            for (auto& t : tops) common = common || (t[i] && t[k]);
            if (!common) return false;
        }
    return true;
}

// Removes `n` random switch-to-switch cables, never the last up or the last
// down cable of a switch (a degraded tree, not a broken one: a switch with
// no down link left looks like a top switch, one with no up link cannot
// take part in switch-to-switch routing without a U-turn outside sftree's
// subtree), and never one whose loss leaves two leaves without a common
// ancestor (then no up*/down* route exists at all).
inline void degrade(Built& b, unsigned n, std::uint32_t seed)
{
    Fabric& f = b.fabric;
    std::map<std::uint32_t, unsigned> level;
    for (unsigned l = 0; l < b.level.size(); ++l)
        for (auto id : b.level[l]) level[id.value] = l;
    std::mt19937 rng(seed);
    auto count = [&](NodeId node, bool up) {
        unsigned d = 0;
        for (auto& p : f.node(node).ports)
            if (p.remote && f.node(p.remote->node).is_switch() &&
                (level[p.remote->node.value] > level[node.value]) == up)
                ++d;
        return d;
    };
    for (unsigned done = 0, tries = 0; done < n && tries < 100000; ++tries) {
        std::vector<topology::Link> ss;
        for (auto& l : f.links())
            if (f.node(l.a.node).is_switch() && f.node(l.b.node).is_switch()) ss.push_back(l);
        if (ss.empty()) return;
        auto l = ss[rng() % ss.size()];
        NodeId lo = level[l.a.node.value] < level[l.b.node.value] ? l.a.node : l.b.node;
        NodeId hi = lo == l.a.node ? l.b.node : l.a.node;
        if (count(lo, true) <= 1 || count(hi, false) <= 1) continue;
        f.disconnect(l.a);
        if (!updown_connected(b, level)) {
            f.connect(l.a, l.b);
            continue;
        }
        ++done;
    }
    make_healthy(f);
}

inline lidassign::LidMap lids_for(Fabric& f, std::uint8_t lmc = 0)
{
    lidassign::BaseLidOptions o;
    o.lmc = lmc;
    auto r = lidassign::assign_base_lids(f, {}, o);
    lidassign::apply_lids(r.lids, f);
    return std::move(r.lids);
}

// ---- tracing -------------------------------------------------------------

struct Tracer {
    const Fabric& f;
    const lidassign::LidMap& lids;
    const routing::RoutingTables& t;

    // Channels (tail ports) from switch `s` to the port owning `lid`,
    // ending with the cable into a CA; empty + ok=false when not delivered.
    bool path(NodeId s, Lid lid, std::vector<PortRef>& out) const
    {
        out.clear();
        auto owner = lids.port_of(lid);
        if (!owner) return false;
        NodeId cur = s;
        for (std::size_t steps = 0; steps <= f.node_count(); ++steps) {
            if (!f.node(cur).is_switch()) return false;
            auto it = t.lfts.find(cur);
            if (it == t.lfts.end()) return false;
            auto port = it->second.at(lid);
            if (port == routing::no_route) return false;
            if (port == 0) return owner->node == cur;
            PortRef tail = pr(cur, port);
            if (port > f.node(cur).num_ports()) return false;
            auto rem = f.port(tail).remote;
            if (!rem) return false;
            out.push_back(tail);
            if (!f.node(rem->node).is_switch()) return *rem == *owner;
            cur = rem->node;
        }
        return false; // loop
    }
};

// Attach switch of a CA port (the switch its cable leads to).
inline std::optional<NodeId> leaf_of(const Fabric& f, PortRef ca)
{
    auto r = f.port(ca).remote;
    if (!r || !f.node(r->node).is_switch()) return std::nullopt;
    return r->node;
}

struct Addressable {
    std::vector<std::pair<PortRef, Lid>> cas;      // CA port, each of its LIDs
    std::vector<std::pair<NodeId, Lid>> switches;  // switch, each of its LIDs
};
inline Addressable addressable(const Fabric& f, const lidassign::LidMap& lids)
{
    Addressable a;
    for (auto& [port, pl] : lids.entries())
        for (std::uint16_t o = 0; o < pl.count(); ++o) {
            Lid l(static_cast<std::uint16_t>(pl.base.value() + o));
            if (f.node(port.node).is_switch()) a.switches.push_back({port.node, l});
            else a.cas.push_back({port, l});
        }
    return a;
}

struct Reach {
    std::size_t ca_ca = 0, ca_sw = 0, sw_ca = 0, sw_sw = 0; // failures (unreachable or loop)
    std::size_t pairs = 0;
};

inline Reach check_reach(const Fabric& f, const lidassign::LidMap& lids, const routing::RoutingTables& t)
{
    Tracer tr{f, lids, t};
    auto a = addressable(f, lids);
    Reach r;
    std::vector<PortRef> path;
    for (auto& [ca, l] : a.cas) {
        auto leaf = leaf_of(f, ca);
        for (auto& [src, sl] : a.cas) {
            if (src == ca) continue;
            ++r.pairs;
            auto sleaf = leaf_of(f, src);
            if (!sleaf || !tr.path(*sleaf, l, path)) ++r.ca_ca;
        }
        for (auto& [sw, sl] : a.switches) {
            ++r.pairs;
            if (!tr.path(sw, l, path)) ++r.sw_ca;
        }
        (void)leaf;
    }
    for (auto& [dsw, l] : a.switches) {
        for (auto& [src, sl] : a.cas) {
            ++r.pairs;
            auto sleaf = leaf_of(f, src);
            if (!sleaf || !tr.path(*sleaf, l, path)) ++r.ca_sw;
        }
        for (auto& [sw, sl] : a.switches) {
            if (sw == dsw) continue;
            ++r.pairs;
            if (!tr.path(sw, l, path)) ++r.sw_sw;
        }
    }
    return r;
}

// Channel dependency graph over switch-to-switch channels; true when a cycle
// exists. `switch_traffic`: switches are sources too.
inline bool has_credit_loop(const Fabric& f, const lidassign::LidMap& lids, const routing::RoutingTables& t,
                            bool switch_traffic)
{
    Tracer tr{f, lids, t};
    auto a = addressable(f, lids);
    std::map<PortRef, std::set<PortRef>> edges;
    std::vector<PortRef> path;
    auto add_path = [&](NodeId src, Lid l) {
        if (!tr.path(src, l, path)) return;
        for (std::size_t i = 0; i + 1 < path.size(); ++i) {
            auto next_head = f.port(path[i + 1]).remote;
            if (!next_head || !f.node(next_head->node).is_switch()) continue; // into a CA: cannot be on a cycle
            edges[path[i]].insert(path[i + 1]);
        }
    };
    std::vector<Lid> dests;
    for (auto& [ca, l] : a.cas) dests.push_back(l);
    for (auto& [sw, l] : a.switches) dests.push_back(l);
    std::set<NodeId> ca_leaves;
    for (auto& [ca, l] : a.cas)
        if (auto leaf = leaf_of(f, ca)) ca_leaves.insert(*leaf);
    for (auto l : dests) {
        for (auto leaf : ca_leaves) add_path(leaf, l);
        if (switch_traffic)
            for (auto& [sw, sl] : a.switches) add_path(sw, l);
    }
    // Iterative DFS, 0 white 1 grey 2 black.
    std::map<PortRef, int> colour;
    for (auto& [start, outs] : edges) {
        if (colour[start]) continue;
        std::vector<std::pair<PortRef, std::set<PortRef>::const_iterator>> stack;
        colour[start] = 1;
        stack.push_back({start, edges[start].cbegin()});
        while (!stack.empty()) {
            auto& [node, it] = stack.back();
            const auto& out = edges[node];
            if (it == out.cend()) {
                colour[node] = 2;
                stack.pop_back();
                continue;
            }
            PortRef next = *it++;
            int& c = colour[next];
            if (c == 1) return true;
            if (c == 0) {
                c = 1;
                stack.push_back({next, edges[next].cbegin()});
            }
        }
    }
    return false;
}

} // namespace ibsm::ftest
