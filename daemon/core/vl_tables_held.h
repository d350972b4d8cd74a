// The SL2VL and VLArb tables one generation's VL programmer confirmed
// (program/vl_programmer.h), kept with the snapshot so the SA's
// SLtoVLMappingTableRecords and VLArbitrationTableRecords name what the
// ports hold, never a table nobody wrote.
//
// Why not the programmer's own memory: it keeps a 64-bit hash per table
// (25 MB of hashes at 3 456 hosts instead of the tables), and it changes
// while a sweep runs; a snapshot is immutable and read by the SA only once
// the outcome was up (every table of the plan confirmed).
//
// Data structures: two vectors sorted by (node GUID, port, modifier or
// block), searched by binary search. SL2VL entries keep the Set's
// attribute modifier: a switch programmed with one Set for every
// (input, output) pair (OptimizedSLtoVLMappingProgramming) has one entry
// with the all-ports bits, which `sl2vl_of` expands (IBA 14.2.5.8).
#pragma once

#include "mad/sl2vl_table.h"
#include "mad/types.h"
#include "mad/vl_arbitration.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ibsm::daemon {

struct VlTablesHeld {
    struct Sl2Vl {
        Guid node;
        std::uint8_t port = 0; // a CA's port; 0 for a switch (the modifier names the pair)
        std::uint32_t mod = 0; // the SMP's attribute modifier
        mad::Sl2VlTable table;
    };
    struct VlArb {
        Guid node;
        std::uint8_t port = 0;
        std::uint8_t block = 0; // 1..4 (mad::VlArbBlock)
        mad::VlArbitrationTable table;
    };
    std::vector<Sl2Vl> sl2vl; // sorted by (node, port, mod)
    std::vector<VlArb> vlarb; // sorted by (node, port, block)

    // Sorts both vectors (once, after filling them).
    void sort();
    // The SL2VL table a CA's `port` maps with (switch false), or the one a
    // switch applies from input `in` to output `out` (switch true).
    std::optional<mad::Sl2VlTable> sl2vl_of(Guid node, bool is_switch, std::uint8_t in, std::uint8_t out) const;
    // The arbitration blocks held for (node, port), in block order.
    std::span<const VlArb> vlarb_of(Guid node, std::uint8_t port) const;
};

} // namespace ibsm::daemon
