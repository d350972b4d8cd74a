// Up*/Down*'s re-route: only the destinations whose trees a delta touched
// are routed again (updn_state.h says why that is sound).
//
// Data structures: the last run's orientation by GUID (UpdnMemory); per LID
// of both runs its delivery (delivering switch GUID, port, whether CA
// traffic); the links of the last fabric that this one lacks ("lost", by
// the old switch and port) and the switch links this one has anew ("new").
//
// Algorithm:
// 1. Orient this fabric (updn_order.h). When the roots, the rule that chose
//    them, the BFS rank of a switch both runs have, or the relative order
//    of those switches differ, or a switch is new (it has a place in the
//    order no tree knows), the orientation is another one: a full run that
//    says which. Otherwise every link both runs have points the same way,
//    so a kept tree is still up*down*, hence still deadlock-free.
// 2. A destination LID is routed again when it is new or its delivery
//    changed, when its last tree used a lost link (an entry of the old
//    table leaving through it: a lost switch's links are lost too), or when
//    a new link (a, b) could shorten it or add an equal-hop path: the hops
//    of a and b to it along the last tree differ (|h(a) - h(b)| >= 1 means
//    one of them could reach it in h + 1 through the other). A LID block
//    (LMC > 0) is routed again whole.
// 3. The channel counters of the kept trees are the last run's less the
//    re-routed trees' routes and with the sources that left or came
//    (touched_trees.h, kept_channel_loads); the touched destinations are
//    then routed as in a full run, in OpenSM's order, on top of them.
// Cost: orienting the fabric, copying the kept tables (S x LIDs bytes),
// O(lost links x LIDs + new links x LIDs x hops + touched x S), plus a full
// run's cost per touched destination.
#include "routing/updn.h"

#include "routing/touched_trees.h"
#include "routing/updn_state.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

namespace ibsm::routing {

using topology::Fabric;
using topology::PortRef;
using namespace updn;

namespace {

constexpr std::uint32_t gone = 0xffffffffu;

std::shared_ptr<UpdnMemory> remember(const Fabric& fabric, const Orientation& o, ChannelLoads&& loads)
{
    auto m = std::make_shared<UpdnMemory>();
    m->ca_ports = o.ca_ports;
    m->loads = std::move(loads);
    m->rule = o.rule;
    for (auto id : o.switches) m->order.push_back(fabric.node(id).guid);
    m->rank = o.rank;
    for (auto p : o.roots) m->roots.push_back(fabric.node(o.switches[p]).guid);
    return m;
}

// Why this orientation is not the remembered one, or "".
std::string orientation_changed(const Fabric& fabric, const Orientation& o, const UpdnMemory& m,
                                std::vector<std::uint32_t>& old_place)
{
    if (o.rule != m.rule) return std::string("Up*/Down* root rule changed to ") + to_string(o.rule);
    std::vector<Guid> roots;
    for (auto p : o.roots) roots.push_back(fabric.node(o.switches[p]).guid);
    if (roots != m.roots) return "Up*/Down* roots changed";
    std::unordered_map<std::uint64_t, std::uint32_t> place_of;
    for (std::uint32_t i = 0; i < m.order.size(); ++i) place_of.emplace(m.order[i].value(), i);
    old_place.assign(o.size(), gone);
    std::uint32_t last = 0;
    bool first = true;
    for (std::uint32_t p = 0; p < o.size(); ++p) {
        const auto it = place_of.find(fabric.node(o.switches[p]).guid.value());
        if (it == place_of.end()) return "switch " + fabric.node(o.switches[p]).guid.str() + " new in the Up*/Down* order";
        if (o.rank[p] != m.rank[it->second]) return "Up*/Down* rank of a switch changed";
        if (!first && it->second < last) return "Up*/Down* order of the switches changed";
        first = false;
        last = it->second;
        old_place[p] = it->second;
    }
    return "";
}


} // namespace

EngineRun UpdnEngine::compute_after(const Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                                    const Previous* previous) const
{
    auto oriented = orient(fabric, options.root_guids);
    if (auto* reason = std::get_if<std::string>(&oriented)) return EngineRun{Refusal{name(), *reason}, nullptr, "", false};
    const Orientation& o = std::get<Orientation>(oriented);
    const auto dests = destinations(fabric, lids, o);
    const auto order = routing_order(dests, o);
    const std::uint32_t lid_limit = static_cast<std::uint32_t>(lids.top().value()) + 1;
    std::vector<Lft> lfts(o.size());

    const auto* memory = previous ? dynamic_cast<const UpdnMemory*>(previous->state) : nullptr;
    std::vector<std::uint32_t> old_place;
    std::string why = previous ? (memory ? orientation_changed(fabric, o, *memory, old_place) : "no updn state kept")
                               : std::string();
    if (!previous || !why.empty()) {
        for (auto& lft : lfts) lft.port.assign(lid_limit, no_route);
        ChannelLoads loads;
        route_destinations(fabric, o, options.balancing, dests, order, std::vector<char>(dests.size(), 1), lfts,
                           loads);
        return EngineRun{tables_of(o, std::move(lfts), lids.top()), remember(fabric, o, std::move(loads)),
                         previous ? "full run (" + why + ")" : "full run", false};
    }

    // The last tables in this run's places.
    const Fabric& before = previous->fabric;
    for (std::uint32_t p = 0; p < o.size(); ++p) {
        const auto id = before.find_node(memory->order[old_place[p]]);
        const auto& kept = previous->tables.lfts.at(*id).port;
        lfts[p].port.assign(lid_limit, no_route);
        std::copy_n(kept.begin(), std::min<std::size_t>(kept.size(), lid_limit), lfts[p].port.begin());
    }

    // 2. The LIDs to route again.
    const TouchedTrees touched = touched_trees(fabric, lids, *previous);
    const auto& again_lid = touched.lid;
    std::vector<char> route_it(dests.size(), 0);
    std::size_t routed = 0, total = 0;
    for (std::size_t di = 0; di < dests.size(); ++di) {
        const auto& d = dests[di];
        for (std::uint16_t k = 0; k < d.count; ++k) route_it[di] |= again_lid[d.base + k];
        total += d.count;
        if (!route_it[di]) continue;
        routed += d.count;
        for (auto& lft : lfts)
            for (std::uint16_t k = 0; k < d.count; ++k) lft.port[d.base + k] = no_route;
    }
    // LIDs no port has any more.
    std::vector<char> live(lid_limit, 0);
    for (const auto& d : dests)
        for (std::uint16_t k = 0; k < d.count; ++k) live[d.base + k] = 1;
    for (auto& lft : lfts)
        for (std::uint32_t lid = 0; lid < lid_limit; ++lid)
            if (!live[lid]) lft.port[lid] = no_route;

    // 3. Kept trees load the channels; the rest are routed on top.
    // Whole blocks, and LIDs gone with their port.
    std::vector<char> again = touched.lid;
    for (std::size_t di = 0; di < dests.size(); ++di)
        if (route_it[di])
            for (std::uint16_t k = 0; k < dests[di].count; ++k) again[dests[di].base + k] = 1;
    std::vector<char> channel(o.size() * 256, 0);
    for (std::uint32_t p = 0; p < o.size(); ++p) {
        for (std::uint32_t i = o.up_first[p]; i < o.up_first[p + 1]; ++i) channel[std::size_t{p} * 256 + o.up[i].port] = 1;
        for (std::uint32_t j = o.down_first[p]; j < o.down_first[p + 1]; ++j)
            channel[std::size_t{p} * 256 + o.down[j].port] = 1;
    }
    ChannelLoads loads;
    const KeptTrees kept{memory->order, memory->ca_ports, old_place, o.ca_ports, touched.traffic_before,
                         touched.traffic_now, again};
    kept_channel_loads(fabric, o.switches, channel, *previous, touched, kept, memory->loads.load, &memory->loads.usage,
                       loads.load, &loads.usage);
    route_destinations(fabric, o, options.balancing, dests, order, route_it, lfts, loads);
    std::string how = "incremental (" + previous->delta.summary() + "; " + std::to_string(routed) + " of " +
                      std::to_string(total) + " destination LIDs re-routed: " + std::to_string(touched.delivery) +
                      " with a changed delivery, " + std::to_string(touched.on_lost) + " on a lost link, " + std::to_string(touched.by_new) +
                      " a new link may shorten)";
    return EngineRun{tables_of(o, std::move(lfts), lids.top()), remember(fabric, o, std::move(loads)), std::move(how),
                     true};
}

} // namespace ibsm::routing
