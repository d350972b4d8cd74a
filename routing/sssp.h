// `sssp`: globally balanced single-source shortest-path routing, seed 001
// §III-A (P-SSSP, Fig. 2), with minimal paths enforced.
//
// Why: MinHop balances each switch's ports on its own, so on anything but a
// complete fat-tree several switches pile their routes onto the same links
// further on. P-SSSP routes one destination at a time over link weights that
// count the routes already placed, so later destinations avoid loaded links
// anywhere in the fabric. It needs no topology assumptions (random fabrics,
// tori, chained and degraded trees) and is the path source of dfsssp.
//
// Data structures: the dense switch graph (switch_graph.h); per channel a
// 64-bit weight, the number of (source port, destination LID) routes placed
// on it so far; per destination LID one column of the forwarding matrix
// out_port[lid * S + switch] (a destination's routes are one column, and
// dfsssp walks them by destination).
//
// Algorithm: destinations in OpenSM's order (CA ports grouped by the switch
// they hang off, switches with more CAs first, then node order, by port; then
// the switches' own LIDs), every LID of a port in turn, so with LMC > 0 each
// LID gets its own tree and the LIDs of one port spread over parallel links.
// Per LID, a reverse Dijkstra from the delivering switch t over the cost
// (hops, sum of weights), compared lexicographically, which is what the
// paper's initial weight P^2 achieves (a longer path always costs more):
// because every link adds one hop, it is a pass over the switches in BFS
// order from t where each switch takes, among its links to switches one hop
// nearer, the one with the least cost (lowest port on ties). Then every
// switch's CA count flows down the tree and each link's weight grows by the
// routes crossing it (CA sources only, as P-SSSP and OpenSM count them;
// routing/tree_flow.h, as dfsssp's escape layer, Nue and the layers count).
// O(LIDs x channels); the weight update makes destinations sequential.
// Every switch routes every LID it can reach (switch-to-switch included).
#pragma once

#include "routing/engine.h"
#include "routing/switch_graph.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing {

struct SsspRoutes {
    SwitchGraph graph;
    // out_port[lid * S + s]: where switch s forwards `lid` (no_route: nowhere).
    std::vector<std::uint8_t> out_port;

    std::uint8_t port(std::uint32_t lid, std::size_t s) const { return out_port[lid * graph.size() + s]; }
};

// The order sssp routes destinations in (indices into graph.destinations,
// connected ones only): CA ports grouped by their switch, switches with more
// CAs first, then the switches' own LIDs. nue routes each layer in it too.
// The options' GUID files change it as OpenSM's do (guid_roles.h): the
// routing-order file's ports first, then compute nodes, I/O nodes, the
// other CA ports, the switches.
std::vector<std::uint32_t> sssp_routing_order(const SwitchGraph& graph, const Options& options = {});

SsspRoutes compute_sssp(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options = {});

// The re-route's part of P-SSSP (sssp_reroute.cpp): the destinations of
// `order` (indices into r.graph.destinations) with route_it[i] set are routed
// into r.out_port as compute_sssp routes them, over channel weights that
// start at `weights` (by switch * 256 + port: the re-route's weights of the
// kept trees, touched_trees.h) when given and not empty, else at 0.
// `weights` holds the final weights afterwards.
void route_sssp_destinations(SsspRoutes& r, const std::vector<std::uint32_t>& order,
                             const std::vector<char>& route_it, std::vector<std::uint64_t>* weights = nullptr);

// The per-switch tables of `routes` (engine name, LinearFDBTop = top LID).
RoutingTables sssp_tables(const SsspRoutes& routes, std::string engine, Lid top);

class SsspEngine final : public Engine {
public:
    std::string name() const override { return "sssp"; }
    Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                   const Options& options) const override;
    // Routes again only the destinations whose trees a delta touched
    // (sssp_reroute.cpp).
    EngineRun compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids, const Options& options,
                            const Previous* previous) const override;
};

} // namespace ibsm::routing
