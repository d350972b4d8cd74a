// Credit loops: cycles in the channel dependency graph (CDG) of the routes.
//
// Why: InfiniBand's credit-based flow control deadlocks when buffers wait on
// each other in a cycle (seed 001 §II-A); a routing is deadlock-free per VL
// iff the CDG of the routes on that VL is acyclic.
//
// Data structures: CDG nodes are directed switch-to-switch links (channels);
// CA links can never be on a cycle (a CA does not forward), so they are left
// out. A dependency c1 -> c2 always turns at the switch c1 enters, so the
// edges are stored per switch as a bit matrix [in port][out port], one per VL
// and one set with and one without switch-originated traffic.
//
// Algorithm: per destination LID, the routes to it form an in-tree; walking
// the delivered switches farthest-first, the set of VLs used by traffic
// leaving a switch is OR-ed into its next switch, and that next switch gets a
// dependency (arriving port -> its own output port) for those VLs. This is
// O(destinations x switches), not O(pairs x hops). VL = SL of the
// (source port, destination LID) pair (identity SL->VL; SL 0 when the tables
// give none), or with a QoS SL2VL every VL the SL's mask names: a pair whose
// SL may travel on two VLs adds its dependencies to both. Only delivered routes create dependencies; forwarding loops are
// reported separately. Cycles are found by an iterative depth-first search.
//
// Counting (the incremental gate, routing/incremental_gate.h): besides the
// bit, a 16-bit count per dependency of how many destination LIDs make it
// (one tree adds a dependency at most once per VL, and there are fewer than
// 65 536 LIDs), so remove() of a destination's old tree clears a bit exactly
// when its last user left. The incremental gate's workers each sum their
// trees' changes in a delta builder (counts modulo 2^16, no bits), applied
// to the remembered graph switch by switch where something changed.
#pragma once

#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ibsm::routing::analysis {

struct VlCreditResult {
    std::uint8_t vl = 0;
    std::uint64_t dependencies = 0;    // CDG edges on this VL
    std::vector<std::int32_t> cycle;   // channels c0 -> c1 -> ... -> c0; empty = acyclic
};

struct CreditLoops {
    bool computed = false;
    std::vector<VlCreditResult> vls;   // VLs that carry traffic
    bool has_loop() const
    {
        for (const auto& v : vls)
            if (!v.cycle.empty()) return true;
        return false;
    }
};

// SLs of the routes, read per destination LID for the per-destination pass.
// A copy of the tables' SlTable (4 bits a pair) with each row's endpoint,
// not a list of (source, SL) per LID: that list took 8 bytes a pair, 1.5 GB
// for nue's 8 layers at 11 664 hosts (issue 36), the table 88 MB. A copy,
// not a reference: the incremental gate keeps this lookup across tables.
class SlLookup {
public:
    // `vl_masks` (may be null: SL s on VL s): per SL, the VLs it travels on.
    SlLookup(const Network& net, const RoutingTables& tables, const std::array<std::uint16_t, 16>* vl_masks = nullptr);
    bool empty() const { return empty_; }
    // The VLs pairs on `sl` use (bit v = VL v).
    std::uint16_t vls_of(std::uint8_t sl) const { return masks_[sl & 0x0f]; }
    // f(source endpoint, SL) for every source with an SL other than 0 to
    // `lid`; sources not listed use SL 0.
    template <class F> void for_each_source(std::uint32_t lid, F&& f) const
    {
        if (lid >= table_.lid_limit()) return;
        for (std::size_t row = 0; row < endpoint_of_row_.size(); ++row) {
            if (endpoint_of_row_[row] < 0) continue;
            if (const std::uint8_t sl = table_.get(row, lid)) f(endpoint_of_row_[row], sl);
        }
    }
    std::uint8_t vl_count() const { return vls_; }

private:
    bool empty_ = true;
    std::uint8_t vls_ = 1;
    std::array<std::uint16_t, 16> masks_{};
    SlTable table_;
    std::vector<std::int32_t> endpoint_of_row_; // -1: no such endpoint
};

class CdgBuilder {
public:
    // mode 0 = CA-originated traffic only, mode 1 = CA and switch traffic.
    static constexpr int ca_only = 0, with_switches = 1;

    // switch_traffic false: only the CA-traffic graph is built (the gate
    // on tables that promise no switch pairs never asks for the other one),
    // half the dependency work; result(with_switches) then throws.
    CdgBuilder(const Network& net, const SlLookup& sls, bool switch_traffic = true);
    // Keeps a count per dependency from now on (empty graph only).
    void enable_counts();
    // A delta builder (the incremental gate's workers): counts only, no
    // bits, add() +1 and remove() -1 modulo 2^16, so a worker's sum over
    // the trees it took back and added is exact once applied.
    void enable_delta();
    // Adds a delta builder's counts to this counting builder and sets each
    // touched dependency's bit from its count.
    void apply_delta(const CdgBuilder& delta);
    bool counting() const { return !counts_.empty(); }
    // Points the builder at another view of the same switches and ports
    // (same switch count, same port count per switch; channels may differ):
    // the incremental gate removes old trees on the old view and adds new
    // ones on the new. The dependency layout is per (switch, port, port).
    void rebind(const Network& net, const SlLookup& sls);
    // Lays the graph out for `net`, a view with fewer switches than the one
    // it was built for (the incremental gate after a node left): new switch
    // s keeps the dependencies of old switch old_switch_of[s] (the same
    // port count), but for those arriving by an in-port cut_in[s] marks
    // (non-zero: its cable led to a node that left), which are dropped.
    // Counting builders only; `sls` must give as many VLs as before.
    void remap(const Network& net, const SlLookup& sls, const std::vector<std::int32_t>& old_switch_of,
               const std::vector<std::vector<std::uint8_t>>& cut_in);
    void add(const DestinationTree& tree);
    // Takes back what add(tree) added (counting builders only).
    void remove(const DestinationTree& tree);
    // As add(), but only these sources send to tree.lid, on VL 0 (a per-pair
    // path routing: the sources whose pair uses this DLID): ca_users[s] != 0
    // when a CA cabled to switch s does, switch_users[s] when switch s does.
    void add_users(const DestinationTree& tree, const std::vector<std::uint8_t>& ca_users,
                   const std::vector<std::uint8_t>& switch_users);
    // One turn of an explicit route (per-pair path routing, pair_routes.h):
    // traffic arriving at switch `sw` by `in_port` leaves by `out_port` on
    // `vl`; switch-originated traffic goes only into the graph with switches.
    void add_turn(std::int32_t sw, unsigned in_port, unsigned out_port, unsigned vl, bool from_switch);
    // The VLs pairs on `sl` use (SlLookup::vls_of).
    std::uint16_t vls_of(std::uint8_t sl) const { return sls_->vls_of(sl); }
    // Traffic on `vl` exists (in both graphs, or only with switches).
    void mark_used(unsigned vl, bool from_switch);
    void merge(const CdgBuilder& other);
    // Finds one cycle per VL for the given mode.
    CreditLoops result(int mode) const;

private:
    using Word = std::uint64_t;
    // Carries mask_ca_/mask_all_ down the tree, adding the dependencies.
    void propagate(const DestinationTree& tree);
    Word* row(int mode, unsigned vl, std::int32_t sw, unsigned in_port);
    const Word* row(int mode, unsigned vl, std::int32_t sw, unsigned in_port) const;
    // Sets (or, counting, counts by sign_) the dependency in_port -> out_port at sw.
    void depend(int mode, unsigned vl, std::int32_t sw, unsigned in_port, unsigned out_port);
    void add_tree(const DestinationTree& tree);
    // The per-view layout and masks (the constructor's and remap's): offsets,
    // strides, the CA count and base masks per switch; no bits or counts.
    void lay_out(const Network& net, const SlLookup& sls);

    const Network* net_;
    const SlLookup* sls_;
    unsigned vls_;
    bool switch_traffic_ = true;
    std::vector<std::size_t> sw_offset_; // first word of switch s in a (mode, vl) matrix
    std::vector<std::size_t> sw_stride_; // words per in-port row
    std::size_t words_ = 0;
    std::vector<std::vector<Word>> bits_; // [mode * vls + vl]
    std::vector<std::uint8_t> used_vls_;  // [mode * vls + vl] != 0 when some traffic uses it
    // Counting: [mode * vls + vl][cnt_offset_[s] + in_port * ports(s) + out_port].
    std::vector<std::vector<std::uint16_t>> counts_;
    std::vector<std::size_t> cnt_offset_;
    int sign_ = 1;
    bool delta_ = false;
    std::vector<std::uint8_t> touched_; // delta: per switch, some count of it changed
    // scratch for add()
    std::vector<std::uint16_t> mask_ca_, mask_all_;
    std::vector<std::uint32_t> listed_;
    std::vector<std::uint32_t> ca_at_;
    std::vector<std::uint16_t> base_ca_, base_all_; // add_tree's masks for a LID without listed SLs
};

} // namespace ibsm::routing::analysis
