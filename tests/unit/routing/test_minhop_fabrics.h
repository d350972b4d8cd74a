// Synthetic fabrics and an independent route checker for the MinHop and
// chain tests. Built straight on the Fabric API so the tests do not depend
// on the net-file reader or the generators.
#pragma once

#include "lidassign/lid_map.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace ibsm::test {

using topology::Fabric;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

inline PortRef pr(NodeId n, unsigned p) { return PortRef{n, PortNum(static_cast<std::uint8_t>(p))}; }

// Every cabled port answered and is ACTIVE.
inline void make_healthy(Fabric& f)
{
    for (auto id : f.node_ids())
        for (auto& port : f.node(id).ports) {
            port.known = true;
            port.state = port.remote ? topology::PortState::active : topology::PortState::down;
        }
}

struct Tree {
    Fabric fabric;
    std::vector<NodeId> leaves, spines, hosts;
};

// Two-level tree: `leaves` leaf switches with `hosts` CAs each (ports
// 1..hosts), each leaf cabled to every one of `spines` spines with `width`
// parallel links (leaf ports hosts+1...).
inline Tree two_level(unsigned leaves, unsigned spines, unsigned hosts, unsigned width = 1)
{
    Tree t;
    std::uint64_t guid = 0x1000;
    for (unsigned s = 0; s < spines; ++s)
        t.spines.push_back(t.fabric.add_node(NodeType::switch_node, Guid(++guid),
                                             static_cast<std::uint8_t>(leaves * width), "spine" + std::to_string(s)));
    for (unsigned l = 0; l < leaves; ++l)
        t.leaves.push_back(t.fabric.add_node(NodeType::switch_node, Guid(++guid),
                                             static_cast<std::uint8_t>(hosts + spines * width),
                                             "leaf" + std::to_string(l)));
    for (unsigned l = 0; l < leaves; ++l)
        for (unsigned s = 0; s < spines; ++s)
            for (unsigned w = 0; w < width; ++w)
                t.fabric.connect(pr(t.leaves[l], hosts + 1 + s * width + w), pr(t.spines[s], 1 + l * width + w));
    for (unsigned l = 0; l < leaves; ++l)
        for (unsigned h = 0; h < hosts; ++h) {
            const Guid g(++guid);
            auto ca = t.fabric.add_node(NodeType::ca, g, 1, "host" + std::to_string(l) + "-" + std::to_string(h));
            t.fabric.set_port_guid(pr(ca, 1), Guid(g.value() | 0x8000000000000000ull));
            t.fabric.connect(pr(ca, 1), pr(t.leaves[l], 1 + h));
            t.hosts.push_back(ca);
        }
    make_healthy(t.fabric);
    return t;
}

// Ring of n switches (port 1 -> next, port 2 -> previous), each with `hosts` CAs.
inline Fabric ring(unsigned n, unsigned hosts)
{
    Fabric f;
    std::vector<NodeId> sw;
    std::uint64_t guid = 0x2000;
    for (unsigned i = 0; i < n; ++i)
        sw.push_back(f.add_node(NodeType::switch_node, Guid(++guid), static_cast<std::uint8_t>(2 + hosts)));
    for (unsigned i = 0; i < n; ++i) f.connect(pr(sw[i], 1), pr(sw[(i + 1) % n], 2));
    for (unsigned i = 0; i < n; ++i)
        for (unsigned h = 0; h < hosts; ++h) {
            auto ca = f.add_node(NodeType::ca, Guid(++guid), 1);
            f.set_port_guid(pr(ca, 1), Guid(guid | 0x4000000000000000ull));
            f.connect(pr(ca, 1), pr(sw[i], 3 + h));
        }
    make_healthy(f);
    return f;
}

// Random connected-or-not switch graph: n switches of `ports` ports, `links`
// random cables (parallel links allowed), one CA on each of the first
// `hosts` free ports of every switch. Seeded, so reproducible.
inline Fabric random_fabric(unsigned n, unsigned ports, unsigned links, unsigned hosts, std::uint32_t seed)
{
    Fabric f;
    std::mt19937 rng(seed);
    std::vector<NodeId> sw;
    std::vector<unsigned> next_free(n, 1 + hosts);
    std::uint64_t guid = 0x3000;
    for (unsigned i = 0; i < n; ++i) sw.push_back(f.add_node(NodeType::switch_node, Guid(++guid), static_cast<std::uint8_t>(ports)));
    std::uniform_int_distribution<unsigned> pick(0, n - 1);
    for (unsigned k = 0; k < links; ++k) {
        unsigned a = pick(rng), b = pick(rng);
        if (a == b || next_free[a] > ports || next_free[b] > ports) continue;
        f.connect(pr(sw[a], next_free[a]++), pr(sw[b], next_free[b]++));
    }
    for (unsigned i = 0; i < n; ++i)
        for (unsigned h = 0; h < hosts; ++h) {
            auto ca = f.add_node(NodeType::ca, Guid(++guid), 1);
            f.set_port_guid(pr(ca, 1), Guid(guid | 0x4000000000000000ull));
            f.connect(pr(ca, 1), pr(sw[i], 1 + h));
        }
    make_healthy(f);
    return f;
}

// Simple sequential LIDs with LMC for CA ports (switches get one LID).
// ibsim's net.2sw2path4hca as the routing fixtures (OpenSM's dump_fts and
// guid2lid of it) see it: Switch2 first, as dump_fts lists the switches.
struct Ibsim2sw2path4hca {
    Fabric f;
    NodeId sw1, sw2, hca[4];
};

inline Ibsim2sw2path4hca ibsim_2sw2path4hca()
{
    Ibsim2sw2path4hca e;
    e.sw2 = e.f.add_node(NodeType::switch_node, Guid(0x200001), 8, "Switch2");
    e.sw1 = e.f.add_node(NodeType::switch_node, Guid(0x200000), 8, "Switch1");
    const std::uint64_t node_guid[4] = {0x100000, 0x100003, 0x100006, 0x100009};
    for (int i = 0; i < 4; ++i) {
        e.hca[i] = e.f.add_node(NodeType::ca, Guid(node_guid[i]), 2, "Hca" + std::to_string(i + 1));
        e.f.set_port_guid(pr(e.hca[i], 1), Guid(node_guid[i] + 1));
    }
    e.f.connect(pr(e.sw1, 1), pr(e.hca[0], 1));
    e.f.connect(pr(e.sw1, 2), pr(e.hca[2], 1));
    e.f.connect(pr(e.sw1, 3), pr(e.sw2, 3));
    e.f.connect(pr(e.sw1, 5), pr(e.sw2, 5));
    e.f.connect(pr(e.sw2, 1), pr(e.hca[1], 1));
    e.f.connect(pr(e.sw2, 2), pr(e.hca[3], 1));
    make_healthy(e.f);
    return e;
}

// The LIDs OpenSM gave 2sw2path4hca on ibsim when the fixture dumps
// (2sw2path4hca.dump_fts, 2sw2path4hca_lmc2.dump_fts) were captured, so our
// tables can be compared with its entry by entry.
inline lidassign::LidMap opensm_lids_lmc0(const Ibsim2sw2path4hca& e)
{
    lidassign::LidMap lids;
    lids.assign(pr(e.sw1, 0), Lid(1), 0);
    lids.assign(pr(e.hca[0], 1), Lid(2), 0);
    lids.assign(pr(e.sw2, 0), Lid(3), 0);
    lids.assign(pr(e.hca[1], 1), Lid(4), 0);
    lids.assign(pr(e.hca[2], 1), Lid(5), 0);
    lids.assign(pr(e.hca[3], 1), Lid(6), 0);
    return lids;
}

inline lidassign::LidMap opensm_lids_lmc2(const Ibsim2sw2path4hca& e)
{
    lidassign::LidMap lids;
    lids.assign(pr(e.sw1, 0), Lid(1), 0);
    lids.assign(pr(e.sw2, 0), Lid(3), 0);
    lids.assign(pr(e.hca[1], 1), Lid(4), 2);
    lids.assign(pr(e.hca[0], 1), Lid(8), 2);
    lids.assign(pr(e.hca[2], 1), Lid(12), 2);
    lids.assign(pr(e.hca[3], 1), Lid(16), 2);
    return lids;
}

inline lidassign::LidMap simple_lids(const Fabric& f, std::uint8_t lmc = 0)
{
    lidassign::LidMap m;
    std::uint32_t next = 1;
    for (auto id : f.node_ids()) {
        const auto& n = f.node(id);
        if (n.is_switch()) {
            m.assign(pr(id, 0), Lid(static_cast<std::uint16_t>(next++)), 0);
            continue;
        }
        for (unsigned p = 1; p < n.ports.size(); ++p) {
            if (!n.ports[p].remote) continue;
            const std::uint32_t count = 1u << lmc;
            next = (next + count - 1) / count * count;
            m.assign(pr(id, p), Lid(static_cast<std::uint16_t>(next)), lmc);
            next += count;
        }
    }
    return m;
}

inline bool usable_end(const topology::Port& p) { return p.known && p.state != topology::PortState::down; }

// Switch-to-switch hop counts by plain BFS over usable links (independent of
// the engine's own implementation). -1 = unreachable.
inline std::vector<int> switch_distances(const Fabric& f, NodeId from)
{
    std::vector<int> dist(f.node_count(), -1);
    std::vector<NodeId> queue{from};
    dist[from.value] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
        const auto& node = f.node(queue[i]);
        for (const auto& port : node.ports) {
            if (!port.remote || !usable_end(port) || !usable_end(f.port(*port.remote))) continue;
            const NodeId next = port.remote->node;
            if (!f.node(next).is_switch() || dist[next.value] >= 0) continue;
            dist[next.value] = dist[queue[i].value] + 1;
            queue.push_back(next);
        }
    }
    return dist;
}

struct RouteCheck {
    std::size_t routes = 0;        // (switch, LID) pairs walked
    std::size_t unreachable = 0;   // expected reachable but no route
    std::size_t loops = 0;
    std::size_t wrong_end = 0;     // delivered to the wrong port / bad port
    std::size_t not_shortest = 0;
    std::size_t routed_unreachable = 0; // a route where none can exist
    std::string first_problem;
};

// Walks every (switch, LID) through the LFTs and checks delivery, loops and
// least-hop length against switch_distances.
inline RouteCheck check_routes(const Fabric& f, const lidassign::LidMap& lids, const routing::RoutingTables& t)
{
    RouteCheck r;
    auto problem = [&](std::size_t& counter, const std::string& what) {
        ++counter;
        if (r.first_problem.empty()) r.first_problem = what;
    };
    for (auto s : f.node_ids()) {
        if (!f.node(s).is_switch()) continue;
        const auto dist = switch_distances(f, s);
        for (const auto& [dest, pl] : lids.entries()) {
            // Where the destination hangs: its switch, or the CA's usable peer switch.
            std::optional<NodeId> target;
            if (f.node(dest.node).is_switch()) {
                target = dest.node;
            } else {
                const auto& p = f.port(dest);
                if (p.remote && usable_end(p) && usable_end(f.port(*p.remote)) && f.node(p.remote->node).is_switch())
                    target = p.remote->node;
            }
            const bool reachable = target && dist[target->value] >= 0;
            for (std::uint32_t k = 0; k < pl.count(); ++k) {
                const Lid lid(static_cast<std::uint16_t>(pl.base.value() + k));
                ++r.routes;
                const std::string tag = "switch " + std::to_string(s.value) + " LID " + std::to_string(lid.value());
                NodeId cur = s;
                int hops = 0;
                bool delivered = false;
                while (true) {
                    auto it = t.lfts.find(cur);
                    const std::uint8_t out = it == t.lfts.end() ? routing::no_route : it->second.at(lid);
                    if (out == routing::no_route) {
                        if (reachable) problem(r.unreachable, tag + ": no route at node " + std::to_string(cur.value));
                        break;
                    }
                    if (out == 0) {
                        if (dest.node == cur) delivered = true;
                        else problem(r.wrong_end, tag + ": port 0 at a switch that does not own the LID");
                        break;
                    }
                    if (out >= f.node(cur).ports.size()) {
                        problem(r.wrong_end, tag + ": port beyond the switch");
                        break;
                    }
                    const auto& port = f.node(cur).ports[out];
                    if (!port.remote || !usable_end(port) || !usable_end(f.port(*port.remote))) {
                        problem(r.wrong_end, tag + ": route over an unusable port");
                        break;
                    }
                    const PortRef next = *port.remote;
                    if (!f.node(next.node).is_switch()) {
                        if (next == dest) delivered = true;
                        else problem(r.wrong_end, tag + ": delivered to the wrong CA");
                        break;
                    }
                    cur = next.node;
                    if (++hops > static_cast<int>(f.node_count())) {
                        problem(r.loops, tag + ": forwarding loop");
                        break;
                    }
                }
                if (delivered && !reachable) problem(r.routed_unreachable, tag + ": routed although unreachable");
                if (delivered && reachable && hops != dist[target->value])
                    problem(r.not_shortest, tag + ": " + std::to_string(hops) + " hops, shortest " +
                                                std::to_string(dist[target->value]));
            }
        }
    }
    return r;
}

} // namespace ibsm::test
