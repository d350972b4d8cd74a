// What D-Mod-K (dmodk.h) keeps from one run to the next so a re-route can
// re-decide only the LFT entries a delta may change (docs/routing.md,
// "Re-route").
//
// Why: every entry decide(s, i) of dmodk.cpp reads (a) the row's own data:
// switch s's level, up-port slots q -> port (seed 003 §II-B), parent digits
// and cables; (b) the column of the destination's attach switch A: which
// switches reach A going down (down(s)) or by an up*/down* path (reach(s)),
// s's first down port toward A, A's horizontal proxies; (c) the
// destination's own D-Mod-K index j (eq. 3) and chain, the single down path
// from its top switch. When (a) is unchanged for s and (b), (c) for i, the
// entry is what it was: only the other entries are computed again, and the
// D-Mod-K balance of the rest stays exactly as it was. A change of the
// tree's parameters (height, w_l, p_l) renumbers everything: full run.
//
// Data structures: everything by switch index of the run that made it, with
// the switches' GUIDs so a later run maps its own indices by GUID (nodes are
// numbered by GUID; one that leaves shifts the rest). `row_sig` is (a) as a
// flat list of numbers with peers named by GUID; `holes` are the entries
// D-Mod-K left empty, which sftree's Algorithm 2 then filled, and `pinned`
// the entries step 2a of sftree.h overwrote: the last tables with these put
// back are D-Mod-K's own. A re-route keeps the holes' Algorithm 2 entries
// when sftree's part below allows it (sftree.h, "Re-route"): the holes of a
// kept row are then the last ones outside the columns decided again. `digits` are the parents' digits (dmodk.h, "How
// up port index q maps"): kept by a re-route, so a lost top switch does not
// shift the digits of the parents after it. The tables then differ from a
// fresh run's (which numbers the smaller tree afresh and moves up to 40 %
// of the LFT blocks at 3 456 hosts) but keep D-Mod-K's balance on the tree
// as it was; once the switch is back they are a fresh run's again.
#pragma once

#include "mad/types.h"
#include "routing/incremental.h"
#include "topology/fabric.h"

#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibsm::routing::fattree {

// Rows of bits (one row per switch, one bit per switch).
class BitRows {
public:
    BitRows() = default;
    BitRows(std::size_t rows, std::size_t bits) : words_((bits + 63) / 64), data_(rows * words_, 0) {}
    bool test(std::size_t r, std::size_t b) const { return (data_[r * words_ + b / 64] >> (b % 64)) & 1u; }
    void set(std::size_t r, std::size_t b) { data_[r * words_ + b / 64] |= 1ull << (b % 64); }
    void merge(std::size_t into, std::size_t from)
    {
        for (std::size_t i = 0; i < words_; ++i) data_[into * words_ + i] |= data_[from * words_ + i];
    }
    // Row r's words, for comparing whole rows of two runs.
    const std::uint64_t* row(std::size_t r) const { return data_.data() + r * words_; }
    std::size_t words() const { return words_; }
    template <class F> void for_each(std::size_t r, F f) const
    {
        for (std::size_t i = 0; i < words_; ++i)
            for (auto w = data_[r * words_ + i]; w; w &= w - 1)
                f(i * 64 + static_cast<std::size_t>(__builtin_ctzll(w)));
    }

private:
    std::size_t words_ = 0;
    std::vector<std::uint64_t> data_;
};

// One destination LID: its attach switch (index), the port there (the CA's
// cable, 0 for the switch itself) and its D-Mod-K index j.
struct DmodkTarget {
    Lid lid;
    std::uint32_t attach = 0xFFFFFFFFu;
    std::uint8_t port = 0;
    std::uint64_t j = 0;
};

struct DmodkState final : EngineMemory {
    std::vector<Guid> switch_guids;             // switch index -> node GUID
    std::vector<topology::NodeId> switch_nodes; // switch index -> node of the fabric routed
    unsigned height = 0;
    std::vector<std::uint32_t> w, p;
    std::vector<std::vector<std::uint64_t>> row_sig;
    BitRows down, reach;
    std::vector<std::uint8_t> first_down; // [s * S + A]
    std::vector<std::vector<std::pair<std::uint32_t, std::uint8_t>>> proxies;
    std::vector<DmodkTarget> targets;
    std::vector<std::vector<std::uint32_t>> chain_node; // [level][target]
    std::vector<std::vector<std::uint8_t>> chain_port;  // [level][target]
    // Per switch index, D-Mod-K's empty entries toward assigned LIDs (in
    // LID order; none outside the tree): what Algorithm 2 of sftree.h fills.
    std::vector<std::vector<Lid>> holes;
    std::vector<std::tuple<std::uint32_t, Lid, std::uint8_t>> pinned;
    // The digit of every switch above the leaves any run of this chain
    // numbered, gone ones included: a re-route keeps them, so a lost top
    // switch moves only the routes that used it, and the tables are a full
    // run's again once it is back.
    std::unordered_map<Guid, std::uint32_t> digits;

    // sftree's part (sftree.cpp, "re-route"): whether the last tables'
    // Algorithm 2 entries may be kept by the next re-route (every pair
    // routed, no entry withdrawn, no gateway or pinned entry: the paper's
    // case), the subtree root and its sibling they were made for, and per
    // switch index the channel dependencies ([in port][out port] bits) of
    // every route, for the credit-loop safety net (empty: not kept), and
    // whether some Algorithm 2 path passes the switch after its first hop.
    bool alg2_kept = false;
    Guid alg2_root, alg2_sibling;
    std::vector<std::vector<std::uint64_t>> dependencies;
    std::vector<char> alg2_passes;
};

} // namespace ibsm::routing::fattree
