// What a routing engine produces: a linear forwarding table per switch, the
// LinearFDBTop to program, and for engines that use several virtual lanes the
// SL of each (source, destination) pair and the number of VLs needed.
#pragma once

#include "mad/types.h"
#include "routing/pair_dlids.h"
#include "routing/sl_table.h"
#include "topology/fabric.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::lidassign {
class LidMap;
}

namespace ibsm::routing {

inline constexpr std::uint8_t no_route = 255; // LFT entry meaning "drop"

struct Lft {
    // Index = destination LID (0..top), value = output port, or no_route.
    // Entry for a switch's own LIDs is 0 (deliver to the management port).
    std::vector<std::uint8_t> port;

    std::uint8_t at(Lid lid) const { return lid.value() < port.size() ? port[lid.value()] : no_route; }
};

struct RoutingTables {
    std::string engine;                         // name of the engine that produced them
    std::map<topology::NodeId, Lft> lfts;       // one per switch
    Lid linear_fdb_top;                         // highest LID routed
    // Engines with several VLs (dfsssp): SL per (source port, destination
    // LID), dense (see sl_table.h); empty means SL 0 everywhere. The SL of a
    // pair maps to VL = SL (identity SL2VL over vls_used VLs).
    SlTable sl;
    std::uint8_t vls_used = 1;
    // What the engine promises beyond what every engine owes, so the
    // verification gate (verify.h) holds it to that: every switch-to-switch
    // pair reachable and no credit loop once switch-originated traffic is
    // added (sftree, dfsssp, updn). Engines that leave switch pairs out
    // (ftree, minhop) keep false. Every engine owes CA<->CA, CA->switch and
    // switch->CA reachability, no forwarding loop and a CA-traffic channel
    // dependency graph without a cycle on each VL.
    bool switch_to_switch = false;
    // Deadlock-free layers the routes needed before the engine spread them
    // over its spare VLs (dfsssp); 1 for single-VL engines.
    std::uint8_t layers_needed = 1;
    // Per-pair path routing (routing/path_tables.h): the DLID each source
    // uses toward each CA destination. Set, the verification gate holds
    // CA-originated traffic to these pairs (the other LIDs of a block are
    // still delivered from everywhere, but no host is told to use them);
    // null for destination-based engines.
    std::shared_ptr<const PairDlids> pair_dlids;
    // Set when the engine assigned the LIDs itself (the colour-first order of
    // lidassign/path_lids.h: per-port LMC from the configurations): program
    // and persist these instead of the LIDs the engine was given.
    std::shared_ptr<const lidassign::LidMap> lids;
    // What that LID assignment reports for the log: ports whose block moved
    // (and why), and the LID count ("LIDs: 412 (CA 396, ...)").
    std::vector<std::string> lid_notes;
    // What the engine wants said about how it routed (logged at info, shown
    // by `ibsm route`): dfsssp's escape layer, nue's escape-path fallbacks.
    std::vector<std::string> notes;
};

} // namespace ibsm::routing
