// The subnet as the SM last configured it: one immutable snapshot per
// generation (docs/design.md, "The long-running SM").
//
// Why: a re-route starts from what the switches hold, not from scratch; the
// SMInfo answers, the dumps, the summary and (later) the SA read the same
// published value, never a sweep's half-built state. A snapshot is shared
// as shared_ptr<const SubnetSnapshot>: readers on worker threads (dumps)
// keep their generation alive while the loop builds the next.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/core/pkey_tables_held.h"
#include "daemon/core/vl_tables_held.h"
#include "health/port_health.h"
#include "lidassign/base_lids.h"
#include "lidassign/lid_map.h"
#include "partition/partitions.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"
#include "routing/tables.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ibsm::daemon {

enum class SubnetHealth : std::uint8_t { down, up, degraded };
const char* to_string(SubnetHealth h);

struct LidAssignment {
    lidassign::LidMap lids;
    lidassign::GuidLidMap previous;
    std::vector<lidassign::LidNote> notes;
    Lid sm_lid;
};

struct SubnetSnapshot {
    std::uint64_t generation = 0;
    // The fabric with the PortInfo each port confirmed when it was
    // programmed (LIDs, states), so the next re-route sends only differences.
    DiscoveryResult found;
    LidAssignment lids;
    std::shared_ptr<const routing::RoutingTables> tables; // null when routing failed
    SubnetHealth health = SubnetHealth::down;
    std::string reason;  // why not up / why degraded
    std::string engine;
    std::string summary; // summary.txt of this generation
    std::uint8_t lmc = 0;
    // Partition membership the P_Key tables were programmed from (null: not
    // programmed, every port only in the default partition). The SA answers
    // PathRecords only between ports that share a partition.
    std::shared_ptr<const partition::Partitions> partitions;
    // Both ends of every up link: width, speed, MTU and VLs against what the
    // two ends could do (health/link_check.h), from `found`'s PortInfo.
    health::LinkChecks link_checks;
    // Links out of the routing (health policy or operator), one end each as
    // isolated; `found` still has them (they are physically up), `tables`
    // route around them.
    std::set<health::PortId> isolated;
    // The QoS policy compiled against `found` (null: no qos: section) and the
    // SL/VL plan the VL tables were programmed from for this routing (null
    // when routing failed): the SA gives each PathRecord
    // sl_vl->host_sl(level SL, routing SL) and the level's MTU and rate.
    std::shared_ptr<const qos::QosPolicy> qos_policy;
    std::shared_ptr<const qos::SlVlPlan> sl_vl;
    // The SL2VL and VLArb tables the VL programmer wrote or found in place
    // for this generation (null or empty: none; ports it left alone keep
    // tables the SM never read, and the SA names none for them).
    std::shared_ptr<const VlTablesHeld> vl_tables;
    // The P_Key blocks the P_Key programmer laid out for this generation
    // (null: not programmed).
    std::shared_ptr<const PKeyTablesHeld> pkey_tables;
};

using SnapshotPtr = std::shared_ptr<const SubnetSnapshot>;

} // namespace ibsm::daemon
