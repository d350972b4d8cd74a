// The routing engine interface: pure computation over a Fabric and its LIDs,
// returning tables or a structured refusal. Engines do no I/O and hold no
// globals; equal input gives equal output.
#pragma once

#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "routing/analysis/progress.h"
#include "lidassign/path_configs.h"
#include "lidassign/path_lids.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ibsm::routing {

// How engines that balance routes over equal-cost paths weigh them (updn):
// `global` gives every channel the number of routes already on it and picks
// the least loaded path (SSSP's weights, seed 001 §III); `local` picks, at
// each switch, the least used of its equal-hop ports (OpenSM's rule).
enum class Balancing : std::uint8_t { global, local };

struct Options {
    std::vector<Guid> root_guids; // fat-tree / Up*Down* roots when configured (node GUIDs)
    std::uint8_t lmc = 0;
    // Port GUID of the SM's own port: engines that must avoid a node (sftree's
    // subtree root must not host the SM's CA) read it from here.
    Guid sm_port_guid;
    std::uint8_t max_vls = 8;
    // With a QoS policy the daemon gives the routing its share of one SL/VL
    // budget (qos/sl_vl_plan.h): `max_vls` is then the layers the routing may
    // take, and these two say what the QoS tables make of them (routing/
    // knows nothing of QoS). `budget_refusal`: the text an engine refusing for
    // lack of layers gives instead of its own, with the budget's numbers.
    // `vl_masks`: per routing SL, the VLs its pairs travel on between
    // switches once the SL2VL tables apply, for a routing on `vls_used` VLs;
    // the gate checks the credit loops of those VLs. Empty: no QoS, SL s on VL s.
    std::function<std::string(const std::string& engine, unsigned layers_needed)> budget_refusal;
    std::function<std::array<std::uint16_t, 16>(unsigned vls_used)> vl_masks;
    Balancing balancing = Balancing::global;
    // Told each stage of the chain ("route (ftree)", "verify (ftree)") and
    // how far it is, for a caller that shows progress (`ibsm route`);
    // routing itself does no I/O. Empty: nothing is reported. An engine may
    // report its own work through it (analysis::StageProgress, any stage
    // name: the chain shows it as "route (<engine>)"); minhop does, per switch.
    analysis::ProgressFn progress;
    // Per-pair path engines (routing/paths/path_stage.h): how the
    // LID-assignment stage partitions each destination's paths into
    // configurations (seed 002 §4), and whether LIDs come before routing
    // (fixed-lmc: `lmc` LIDs per CA port, refuse a destination needing more)
    // or after it (colour-first: per-port LMC, keeping `previous_lids`, the
    // persisted port GUID -> base LID map, where the blocks still fit).
    lidassign::ConfigHeuristic lid_assignment = lidassign::ConfigHeuristic::color_l;
    lidassign::LidOrder lid_order = lidassign::LidOrder::colour_first;
    lidassign::GuidLidMap previous_lids;
    std::uint16_t max_lid = Lid::max_unicast; // colour-first's highest LID (lowered in tests)
    // OpenSM's GUID files, as port GUIDs (routing/guid_roles.h says what
    // each engine makes of them). compute_nodes (cn_guid_file): when not
    // empty, only these CA ports are compute nodes; io_nodes (io_guid_file):
    // I/O nodes, never compute nodes; routing_order
    // (guid_routing_order_file): these destinations first, in this order.
    std::vector<Guid> compute_nodes;
    std::vector<Guid> io_nodes;
    std::vector<Guid> routing_order;
    // ftree/sftree (max_reverse_hops): how many times a CA's route to an
    // I/O node above the leaves may go down and then up again
    // (routing/fattree/reverse_hops.h); other non-compute nodes get none.
    std::uint16_t max_reverse_hops = 0;
};

// Why an engine will not route this fabric, e.g. engine "ftree",
// reason "not a fat-tree: switch 0x... has CAs at rank 2".
struct Refusal {
    std::string engine;
    std::string reason;
};

using Result = std::variant<RoutingTables, Refusal>;

class Engine {
public:
    virtual ~Engine() = default;
    virtual std::string name() const = 0;
    virtual Result compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                           const Options& options) const = 0;
};

} // namespace ibsm::routing
