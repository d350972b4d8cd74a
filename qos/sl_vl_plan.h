// One SL/VL budget for QoS and routing: the SL every host uses, the VL each
// SL travels on, and the VL arbitration tables, from the QoS policy and the
// layers the routing engine took.
//
// Why: deadlock-free engines (dfsssp) put routes on virtual layers, one VL
// each; QoS puts services on their own VLs. Both draw on the same 15 data
// VLs and 16 SLs. Combined without a plan they collide: a QoS SL whose VL is
// also a routing layer's merges two layers into one VL and can close a
// credit loop nobody checked. Here the two combine by construction, or the
// plan is refused with the numbers.
//
// The combination: the policy's SL2VL maps SLs to QoS VLs ("bands"); bands
// = highest QoS VL + 1 (1 without a policy). The routing may use
// min(max_vls / bands, 16 / classes) layers, where classes = the distinct
// SLs the policy uses plus SL 0 (unmatched traffic). With a routing on L
// layers and a pair on routing layer l (routing::SlTable):
//  - L = 1: SL = the level's SL (routing's SL 0 without a level); VL through
//    the configured tables unchanged.
//  - L > 1: SL = class(level SL) * L + l, where class() numbers the classes
//    0.. in SL order (SL 0 first); VL = band(level SL) * L + l. The
//    configured SL2VL is widened the same way (each band becomes L VLs,
//    one per layer), and each VLArb entry for band b becomes L entries of
//    the same weight, VLs b*L .. b*L+L-1.
// Port groups' SL2VL and VLArb tables apply to CA ports only: a VL change
// between two switch hops is a dependency the per-VL check cannot see, so
// the switch-external table is one for the whole fabric.
#pragma once

#include "config/qos_config.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ibsm::qos {

// The routing's share of the budget before routing runs.
struct RoutingBudget {
    unsigned layers = 1; // max_vls the engines are given
    unsigned bands = 1;  // QoS VLs (highest VL in the QoS SL2VL tables + 1)
    unsigned classes = 1; // distinct SLs in use: level SLs and SL 0
    unsigned levels = 0;  // QoS levels configured (for messages)
    std::string explain; // "qos has 4 levels in 2 VL bands, ports carry 8 VLs: routing gets 4 layers"
};

// nullopt with `why` filled when even one layer does not fit (config-time
// refusal: a QoS SL2VL naming VL 9 with max_vls 8).
std::optional<RoutingBudget> routing_budget(const config::QosConfig& qos, unsigned max_vls, std::string* why);

// The text an engine refusal gives when its layers do not fit next to QoS,
// e.g. "dfsssp needs 3 layers, qos has 4 levels, ports carry 8 VLs: 12 > 8".
std::string budget_refusal(const std::string& engine, unsigned layers_needed, const RoutingBudget& budget,
                           unsigned max_vls);

// Tables for one class of port, as they are programmed.
struct PortVlTables {
    std::array<std::uint8_t, 16> sl2vl{}; // SL -> VL (15 = drop)
    std::vector<config::QosVlArbEntry> high, low;
    std::uint8_t high_limit = 0;
};

struct SlVlPlan {
    unsigned layers = 1;                  // L: the routing's VLs in use (RoutingTables::vls_used)
    unsigned vls = 1;                     // VLs the plan uses (bands * L)
    // False without a qos: section: the tables are today's defaults (SL s ->
    // VL s mod L capped per port, every operational VL weight 64 in the low
    // table), which the VL programmer derives per port itself.
    bool from_policy = false;
    PortVlTables ca, switch_external, switch_port0;
    std::vector<std::pair<std::size_t, PortVlTables>> ca_groups; // group index (QosPolicy) -> CA tables
    // The SL a host uses for a pair on routing layer `routing_sl` with the
    // given level's SL (nullopt: no level matched).
    std::uint8_t host_sl(std::optional<std::uint8_t> level_sl, std::uint8_t routing_sl) const
    {
        if (layers <= 1) return level_sl ? *level_sl : routing_sl;
        const unsigned cls = level_sl ? class_of_sl[*level_sl & 0x0f] : 0;
        return static_cast<std::uint8_t>(cls * layers + routing_sl);
    }
    // For the gate: per routing SL (layer), the VLs its pairs may travel on
    // across switch-to-switch links (every class they can be given).
    std::array<std::uint16_t, 16> vl_mask_of_routing_sl{};
    // Level SL -> class (0 for SL 0; the policy's other SLs 1.. in SL order).
    std::array<std::uint8_t, 16> class_of_sl{};
};

// The plan for a routing on `layers` layers (>= 1) with at most `max_vls`
// VLs per port; a string with the numbers when it does not fit.
std::variant<SlVlPlan, std::string> plan_sl_vl(const config::QosConfig& qos, unsigned layers, unsigned max_vls);

} // namespace ibsm::qos
