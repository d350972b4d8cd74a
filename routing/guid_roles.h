// What OpenSM's GUID files make of each destination port, for the engines.
//
// Why: a site moving from OpenSM keeps its cn_guid_file, io_guid_file and
// guid_routing_order_file, and expects them to steer the routing as they did:
// - ftree (OpenSM's osm_ucast_ftree.c): with a compute-node file only the
//   listed CA ports are compute nodes; a port in the I/O file (and not in
//   the compute file) is an I/O node; without a compute-node file every CA
//   port not listed as I/O is one. Compute nodes are routed first and alone
//   decide the balance; the others are routed after them (dmodk.h).
// - sssp, dfsssp (osm_ucast_dfsssp.c, dfsssp_do_dijkstra_routing): the
//   destinations are routed compute nodes first, then I/O nodes, then the
//   other CA ports, then the switches, so the weights of earlier classes
//   are not skewed by later ones; within a class OpenSM's order by switch.
//   nue routes in the same order.
// - minhop (osm_ucast_mgr.c, ucast_mgr_build_lfts): the ports of the
//   guid_routing_order_file first, in the file's order, then its usual order.
//   sssp, dfsssp and nue put them first too (OpenSM's dfsssp ignores that
//   file; taking it lets a site order the destinations of every balancing
//   engine the same way).
//
// Data structures: sorted GUID vectors for membership, and a sorted
// (GUID, position) vector for the order. Header only: the fat-tree library
// sits below the routing library and uses it too.
#pragma once

#include "routing/engine.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace ibsm::routing {

class GuidRoles {
public:
    static constexpr std::size_t unlisted = std::numeric_limits<std::size_t>::max();

    explicit GuidRoles(const Options& o) : cn_(sorted(o.compute_nodes)), io_(sorted(o.io_nodes))
    {
        for (std::size_t i = 0; i < o.routing_order.size(); ++i) order_.emplace_back(o.routing_order[i], i);
        std::sort(order_.begin(), order_.end());
        // A GUID listed twice keeps its first position.
        order_.erase(std::unique(order_.begin(), order_.end(),
                                 [](const auto& a, const auto& b) { return a.first == b.first; }),
                     order_.end());
    }

    bool compute_file() const { return !cn_.empty(); }
    bool io_file() const { return !io_.empty(); }
    bool listed_compute(Guid port) const { return std::binary_search(cn_.begin(), cn_.end(), port); }
    bool listed_io(Guid port) const { return std::binary_search(io_.begin(), io_.end(), port); }

    // ftree's roles (see above).
    bool is_compute(Guid port) const
    {
        if (compute_file()) return listed_compute(port);
        return !listed_io(port);
    }
    bool is_io(Guid port) const { return !is_compute(port) && listed_io(port); }

    // sssp/dfsssp's class of a CA port: 0 compute (listed), 1 I/O (listed),
    // 2 the rest; with neither file every CA port is class 2.
    int class_of(Guid port) const
    {
        if (compute_file() && listed_compute(port)) return 0;
        if (io_file() && listed_io(port)) return 1;
        return 2;
    }

    // Position in guid_routing_order_file, or `unlisted`.
    std::size_t position(Guid port) const
    {
        auto it = std::lower_bound(order_.begin(), order_.end(), std::pair{port, std::size_t{0}});
        return it != order_.end() && it->first == port ? it->second : unlisted;
    }

private:
    static std::vector<Guid> sorted(std::vector<Guid> v)
    {
        std::sort(v.begin(), v.end());
        return v;
    }

    std::vector<Guid> cn_, io_;
    std::vector<std::pair<Guid, std::size_t>> order_;
};

} // namespace ibsm::routing
