// The routes of a per-pair path routing as packets take them: every
// (source, destination) pair of a PairDlids map (routing/pair_dlids.h)
// followed through the LFTs with the DLID that pair uses.
//
// Why: with a path routing the LIDs of one destination carry different
// configurations, and a host uses only its pair's DLID; tracing every LID
// from every source (the destination-tree passes) would count routes no
// packet takes — and the fill-in routes toward a LID a source never uses
// may turn in ways its real path does not, so the channel dependency graph
// of CA traffic must be built from the pairs' own routes.
//
// Data structures: the map's ports resolved to the Network's endpoints once.
// A route is the list of channels leaving switches (the first switch's
// output through the channel into the destination port).
//
// Algorithm: one walk per pair, O(pairs x hops); walks of different sources
// are independent.
#pragma once

#include "routing/analysis/credit_loops.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "routing/pair_dlids.h"

#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

class PairRoutes {
public:
    // Ports of `dlids` the Network does not know (no LID, not in the fabric)
    // are left out; their pairs are counted in missing().
    PairRoutes(const Network& net, const PairDlids& dlids);

    std::size_t source_count() const { return src_.size(); }
    std::size_t destination_count() const { return dst_.size(); }
    std::int32_t source(std::size_t s) const { return src_[s]; }           // endpoint or -1
    std::int32_t destination(std::size_t d) const { return dst_[d]; }      // endpoint or -1
    const PairDlids& dlids() const { return *dlids_; }
    std::uint64_t missing() const { return missing_; }

    // The route from endpoint `src` (CA port or switch) to `dlid`: channels
    // appended to `path` (cleared first). Delivered when it ends on the
    // port owning `dlid`.
    Reach walk(std::int32_t src, std::uint32_t dlid, std::vector<std::int32_t>& path) const;

    // Adds the turns of a delivered or partial route to `cdg` (switch
    // sources only to the graph with switch traffic).
    void add_turns(const std::vector<std::int32_t>& path, bool from_switch, CdgBuilder& cdg) const;

private:
    const Network* net_;
    const PairDlids* dlids_;
    std::vector<std::int32_t> src_, dst_;
    std::uint64_t missing_ = 0;
};

} // namespace ibsm::routing::analysis
