// Realising per-pair paths in LFTs (see header).
#include "routing/path_tables.h"

#include "common/parallel_for.h"
#include "lidassign/path_lids.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

namespace ibsm::routing {

namespace {

using topology::Fabric;
using topology::NodeId;
using topology::PortRef;

std::string pair_name(const Fabric& fabric, PortRef src, PortRef dst)
{
    return lidassign::describe_port(fabric, src) + " → " + lidassign::describe_port(fabric, dst);
}

// Why `path` is not a route from path.src to dst in `fabric`, or nothing.
std::optional<std::string> path_problem(const Fabric& fabric, const topology::PairPath& path, PortRef dst)
{
    const auto n = fabric.node_count();
    if (path.src.node.value >= n || path.src.port.value() >= fabric.node(path.src.node).ports.size())
        return "the source is not in the fabric";
    if (path.hops.empty()) return "the path has no switch";
    for (const auto& h : path.hops)
        if (h.sw.value >= n || !fabric.node(h.sw).is_switch() || h.out.value() == 0 ||
            h.out.value() > fabric.node(h.sw).num_ports())
            return "hop at node " + std::to_string(h.sw.value) + " port " + std::to_string(h.out.value()) +
                   " is not a switch port";
    if (fabric.node(path.src.node).is_switch()) {
        if (path.src.port.value() != 0 || path.hops.front().sw != path.src.node)
            return std::string("a switch's path must start at the switch itself (port 0)");
    } else {
        auto r = fabric.remote(path.src);
        if (!r || r->node != path.hops.front().sw) return std::string("the first switch is not the source's");
    }
    for (std::size_t i = 0; i < path.hops.size(); ++i) {
        auto r = fabric.remote(PortRef{path.hops[i].sw, path.hops[i].out});
        if (!r) return "port " + std::to_string(path.hops[i].out.value()) + " of hop " + std::to_string(i) + " is not cabled";
        if (i + 1 < path.hops.size() ? r->node != path.hops[i + 1].sw : *r != dst)
            return "hop " + std::to_string(i) + " does not lead to the " +
                   (i + 1 < path.hops.size() ? std::string("next hop's switch") : std::string("destination"));
    }
    return std::nullopt;
}

} // namespace

RealiseResult realise_paths(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const topology::PairPaths& paths, std::span<const lidassign::DestinationConfigs> configs,
                            const RoutingTables& base, const lidassign::LidMap& base_lids)
{
    // Every source port some path names, in port order.
    std::vector<PortRef> srcs;
    std::vector<bool> seen(fabric.node_count() * 256, false); // (node, port), paths name each source many times
    for (const auto& d : paths.destinations)
        for (const auto& p : d.paths) {
            const std::size_t key = std::size_t{p.src.node.value} * 256 + p.src.port.value();
            if (key < seen.size() && !seen[key]) {
                seen[key] = true;
                srcs.push_back(p.src);
            }
        }
    std::sort(srcs.begin(), srcs.end());
    topology::PairPathSource source;
    source.engine = paths.engine;
    source.roots = paths.roots;
    for (const auto& d : paths.destinations) source.destinations.push_back(d.dst);
    source.visit = [&paths](std::size_t i, const std::function<void(const topology::DestinationPaths&)>& fn) {
        fn(paths.destinations[i]);
    };
    return realise_paths(fabric, lids, source, srcs, configs, base, base_lids);
}

RealiseResult realise_paths(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const topology::PairPathSource& paths, std::span<const topology::PortRef> sources,
                            std::span<const lidassign::DestinationConfigs> configs, const RoutingTables& base,
                            const lidassign::LidMap& base_lids, unsigned threads)
{
    const std::string engine = paths.engine;
    auto refuse = [&](std::string why) { return Refusal{engine, std::move(why)}; };
    if (configs.size() != paths.destinations.size())
        return refuse("LID assignment: " + std::to_string(configs.size()) + " partitions for " +
                      std::to_string(paths.destinations.size()) + " destinations");

    // Switches, densely.
    std::vector<NodeId> switches;
    std::vector<std::int32_t> index_of(fabric.node_count(), -1);
    for (auto id : fabric.node_ids())
        if (fabric.node(id).is_switch()) {
            index_of[id.value] = static_cast<std::int32_t>(switches.size());
            switches.push_back(id);
        }
    const std::size_t nsw = switches.size();
    std::vector<const Lft*> base_lft(nsw, nullptr);
    for (std::size_t s = 0; s < nsw; ++s) {
        auto it = base.lfts.find(switches[s]);
        if (it == base.lfts.end())
            return refuse("no destination-based table for switch " + fabric.node(switches[s]).guid.str());
        base_lft[s] = &it->second;
    }

    PathRealisation out;
    RoutingTables& t = out.tables;
    t.engine = engine;
    t.linear_fdb_top = lids.top();
    t.vls_used = 1;
    t.switch_to_switch = base.switch_to_switch;
    const std::size_t lft_size = static_cast<std::size_t>(lids.top().value()) + 1;
    std::vector<Lft*> lft(nsw);
    for (std::size_t s = 0; s < nsw; ++s) {
        Lft& l = t.lfts[switches[s]];
        l.port.assign(lft_size, no_route);
        lft[s] = &l;
    }

    // Every addressable port: like the base tables (switch LIDs for good, CA
    // LIDs as the fill-in for untouched switches, overwritten below).
    for (const auto& [port, pl] : lids.entries()) {
        auto old = base_lids.lids_of(port);
        for (std::size_t s = 0; s < nsw; ++s) {
            std::uint8_t p = no_route;
            if (fabric.node(port.node).is_switch() && port.node == switches[s])
                p = 0;
            else if (old)
                p = base_lft[s]->at(old->base);
            for (std::uint32_t l = pl.base.value(); l < pl.base.value() + pl.count(); ++l) lft[s]->port[l] = p;
        }
    }

    // The pair -> DLID map's frame.
    PairDlids& dl = out.dlids;
    for (const auto& dst : paths.destinations) {
        auto pl = lids.lids_of(dst);
        if (!pl) return refuse("destination " + lidassign::describe_port(fabric, dst) + " has no LID");
        dl.destinations.push_back(PairDlids::Destination{dst, pl->base, pl->lmc});
    }
    if (!std::is_sorted(dl.destinations.begin(), dl.destinations.end(),
                        [](const auto& a, const auto& b) { return a.port < b.port; }))
        return refuse("destinations are not sorted");
    dl.sources.assign(sources.begin(), sources.end());
    dl.offset.assign(dl.sources.size() * dl.destinations.size(), PairDlids::no_path);

    // One destination's paths into its configurations' LFT entries; the
    // reason to refuse, if any. Destinations write disjoint entries (their
    // own LIDs' LFT entries, their own column of the DLID map), so workers
    // share the tables; out_port, configuration c of the destination at each
    // switch ([c * nsw + switch]), is a worker's own.
    using Why = std::optional<std::string>;
    auto realise = [&](std::size_t d, const topology::DestinationPaths& dest,
                       std::vector<std::uint8_t>& out_port) -> Why {
        const auto& part = configs[d];
        const auto& blk = dl.destinations[d];
        const std::uint32_t count = 1u << blk.lmc;
        if (part.of_path.size() != dest.paths.size())
            return Why("LID assignment: partition of " + lidassign::describe_port(fabric, dest.dst) +
                       " does not cover its paths");
        if (dest.paths.empty()) return std::nullopt;
        if (part.count == 0 || part.count > count)
            return Why(lidassign::describe_port(fabric, dest.dst) + " has " + std::to_string(part.count) +
                       " configurations but " + std::to_string(count) + " LIDs");
        out_port.assign(static_cast<std::size_t>(part.count) * nsw, no_route);
        for (std::size_t i = 0; i < dest.paths.size(); ++i) {
            const auto& path = dest.paths[i];
            if (auto why = path_problem(fabric, path, dest.dst))
                return Why("path " + pair_name(fabric, path.src, dest.dst) + ": " + *why);
            const std::uint16_t c = part.of_path[i];
            if (c >= part.count) return Why("LID assignment: configuration out of range");
            for (const auto& h : path.hops) {
                std::uint8_t& slot = out_port[c * nsw + static_cast<std::size_t>(index_of[h.sw.value])];
                if (slot != no_route && slot != h.out.value())
                    return Why("configuration " + std::to_string(c) + " of " +
                               lidassign::describe_port(fabric, dest.dst) + " splits at switch " +
                               fabric.node(h.sw).guid.str() + " (path from " +
                               lidassign::describe_port(fabric, path.src) + ")");
                slot = h.out.value();
            }
            dl.set(*dl.source_index(path.src), d, static_cast<std::uint8_t>(c));
        }
        for (std::uint32_t o = 0; o < count; ++o) {
            const std::uint32_t c = o % part.count;
            const std::uint32_t lid = blk.base.value() + o;
            for (std::size_t s = 0; s < nsw; ++s) {
                const std::uint8_t p = out_port[c * nsw + s];
                if (p != no_route) lft[s]->port[lid] = p;
            }
        }
        return std::nullopt;
    };
    // A refusal stops the loop like an exception, so parallel_for's rule
    // (the lowest index that threw wins) reports the first destination's
    // problem, refusal or exception, whatever the thread count.
    struct Unrealisable {
        std::string why;
    };
    std::vector<std::vector<std::uint8_t>> out_port(common::worker_count(threads));
    try {
        common::parallel_for(paths.destinations.size(), threads, [&](std::size_t d, unsigned w) {
            paths.visit(d, [&](const topology::DestinationPaths& dest) {
                if (auto why = realise(d, dest, out_port[w])) throw Unrealisable{std::move(*why)};
            });
        });
    } catch (Unrealisable& u) {
        return refuse(std::move(u.why));
    }
    t.pair_dlids = std::make_shared<const PairDlids>(dl);
    return out;
}

} // namespace ibsm::routing
