// Virtual-lane tables: SL-to-VL mapping and VL arbitration, set before any
// port is armed.
//
// Why: a port forwards an SL only over the VL its SL2VL table names, and a
// VL is only scheduled onto the link if an arbitration table gives it a
// weight. Tables left by a previous SM or a vendor default can name VLs
// above OperationalVLs (traffic dropped) or leave a VL without weight
// (traffic stalls).
//
// When (routing.vl_tables: auto, the default): only where a table decides
// where traffic goes. With an engine that needs one VL and no QoS policy,
// the SA hands out SL 0 on every path and any table map is deadlock-free
// (below), so no port gets a VL-table SMP: at 3 456 hosts that is 44 928
// SMPs, a quarter of a bring-up (41 472 of them VLArb blocks), at 27 648
// hosts 359 424. The decision needs no read-back, which would cost the same
// SMPs: it comes from the plan (engine layers, policy) and what discovery
// read of each port (PortInfo: VLCap/OperationalVLs, the VLArb caps,
// IsSLMappingSupported; SwitchInfo: OptimizedSLtoVLMappingProgramming).
// OpenSM without QoS sends none either. Tables a former SM left that move
// SL 0 off an operational VL would stay: routing.vl_tables: always writes
// every port's tables as below whatever the engine needs.
//
// What is programmed (IBA 14.2.5.8 and 14.2.5.9):
//  - SL2VL: identity over the VLs the routing engine needs, SL s -> VL
//    s mod n (n = 1 for ftree/sftree/minhop: every SL on VL0), capped by the
//    port's OperationalVLs. On CA ports advertising IsSLMappingSupported (one
//    table per port); on switches reporting OptimizedSLtoVLMappingProgramming
//    with one Set for all (input, output) pairs; on other switches (ibsim's
//    among them) one SMP per (input, output) pair — ~600 per 24-port switch,
//    more than the rest of a bring-up together — so only when the engine
//    needs more than one VL or the operator asks for it
//    (routing.switch_sl2vl: always). A one-VL engine's routes are
//    deadlock-free whatever VL a switch maps an SL to: every VL carries a
//    subset of the same acyclic channel dependencies.
//  - With a QoS policy, the SL/VL plan's tables instead (qos/sl_vl_plan.h,
//    port_vl_tables.h): SL2VL per CA port (its group's where configured),
//    per (input, output) pair on switches (input port 0 gets the switch
//    port 0 table), VLArb high and low per class and group. Switches
//    without OptimizedSLtoVLMappingProgramming are left alone only while
//    both switch tables map every SL to VL 0, as a one-VL engine's are.
//  - VL arbitration on every port with arbitration tables (CA ports and
//    switch external ports; base switch port 0 has none): the low-priority
//    table lists each operational data VL once with weight 64 (one 4 KB
//    packet per turn: equal shares, no VL holds the link long), the
//    high-priority table is empty, so no VL starves and none has priority
//    until a QoS policy says otherwise.
//
// Lost answers: a table Set is idempotent and its answer carries the table,
// so a Set that failed (unanswered after every transport retry, or answered
// with another table) is simply sent again in the next round — one SMP
// both applies and confirms, where a Get to find out would cost the same
// and settle less. Only what is still unconfirmed after `rounds` counts as
// failed.
//
// SMP budget: a port already configured by an SM (ARMED or ACTIVE) is read
// first and only written where it differs, so a restart on an unchanged
// fabric sends no Set; a fresh port (INIT after link-up) is written without
// reading, since a Get would cost the same SMP and the Set's response
// confirms the table anyway. Confirmed tables are remembered (a 64-bit hash
// of the masked content per node, port, attribute and modifier; ~25 MB for
// the 432 k switch pairs of a 3456-host tree) for the life of the process,
// so later sweeps send nothing for them.
#pragma once

#include "daemon/core/fabric_state.h"
#include "daemon/core/vl_tables_held.h"
#include "daemon/program/port_programmer.h"
#include "daemon/core/smp_ops.h"
#include "mad/sl2vl_table.h"
#include "mad/transport.h"
#include "mad/vl_arbitration.h"
#include "qos/qos_policy.h"
#include "qos/sl_vl_plan.h"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::daemon {

// SL s -> VL s mod n (n clamped to 1..15).
mad::Sl2VlTable identity_sl2vl(unsigned vls);

// Weight of each operational VL in the default low-priority table.
inline constexpr std::uint8_t default_vl_weight = 64;

// The default arbitration table for a port with `operational_vls` data VLs:
// `high` false gives the low-priority table (entries 0..n-1 = VL i, weight
// 64, n = min(operational_vls, cap)); `high` true the empty high-priority
// table. Entries past `cap` are zero.
mad::VlArbitrationTable default_vl_arbitration(bool high, unsigned operational_vls, unsigned cap);

struct VlSettings {
    std::size_t width = 64;          // jobs in flight
    bool all_switch_pairs = false;   // routing.switch_sl2vl: always
    bool all_port_tables = false;    // routing.vl_tables: always
    unsigned rounds = 3;             // Set rounds per sweep (a failed table is sent again next round)
};

struct VlReport {
    std::uint64_t gets = 0;
    std::uint64_t sets = 0;
    std::uint64_t failed = 0;
    std::uint64_t tables_ok = 0;     // confirmed as desired (already, or after a Set)
    std::uint64_t sl2vl_sets = 0;
    std::uint64_t vlarb_sets = 0;
    std::uint64_t switches_left = 0; // per-pair SL2VL switches not programmed (one-VL engine, auto)
    std::uint64_t ports_left = 0;    // ports whose SL2VL/VLArb need nothing (every SL on VL 0, no policy)
    std::vector<std::string> failures;
    bool complete() const { return failed == 0; }
};

// Which table: CAs ignore the port in the modifier, so the port is kept too.
struct TableKey {
    Guid node;
    std::uint8_t port = 0;
    std::uint16_t attr = 0;
    std::uint32_t mod = 0;
    bool operator==(const TableKey&) const = default;
};

struct TableKeyHash {
    std::size_t operator()(const TableKey& k) const noexcept
    {
        std::uint64_t h = k.node.value() * 0x9e3779b97f4a7c15ULL;
        h ^= (std::uint64_t{k.port} << 48 | std::uint64_t{k.attr} << 32 | k.mod) + 0x632be59bd9b4e019ULL + (h << 6) +
             (h >> 2);
        return static_cast<std::size_t>(h);
    }
};

// One table to bring to its desired content.
struct TableWrite {
    std::string name;     // for messages: "<port name>: SL2VL in 3 out 5"
    DrPath path;
    std::uint16_t attr = 0;
    std::uint32_t mod = 0;
    SmpData desired{};
    SmpData mask{};       // the bits that matter (reserved bits and unused entries are 0)
    bool read_first = false;
    TableKey key;
};

// Pure: the tables the programmer would write for this sweep, ordered so
// that consecutive SMPs go to different switches. Exposed for the tests.
// `sl_vl`: the tables to program; `policy` places CA ports in their
// groups (null: no groups).
std::vector<TableWrite> plan_vl_tables(const DiscoveryResult& found, const std::vector<PortPlanEntry>& plan,
                                       const qos::SlVlPlan& sl_vl, const qos::QosPolicy* policy,
                                       const VlSettings& settings, std::uint64_t* switches_left,
                                       std::uint64_t* ports_left = nullptr);
// Without a policy: today's tables for an engine using `vls_needed` VLs.
std::vector<TableWrite> plan_vl_tables(const DiscoveryResult& found, const std::vector<PortPlanEntry>& plan,
                                       unsigned vls_needed, const VlSettings& settings, std::uint64_t* switches_left,
                                       std::uint64_t* ports_left = nullptr);

// The tables `writes` bring the ports to, as the SA names them (pure).
VlTablesHeld held_vl_tables(const std::vector<TableWrite>& writes);

struct VlPlan {
    std::vector<TableWrite> writes;
    std::uint64_t switches_left = 0; // see VlReport
    std::uint64_t ports_left = 0;    // see VlReport
};

class VlProgrammer {
public:
    explicit VlProgrammer(VlSettings settings) : settings_(settings) {}

    void set_all_switch_pairs(bool all) { settings_.all_switch_pairs = all; }
    void set_all_port_tables(bool all) { settings_.all_port_tables = all; }

    // Ports whose link went through INIT again (a relinked cable, a reset
    // device) may have lost their tables: forget what they confirmed so
    // the next program() writes them. `ports`: (node GUID, port number).
    void forget(const std::set<std::pair<Guid, std::uint8_t>>& ports);

    // Pure (reads only the settings), so the sweep runs it on a worker
    // thread while the LFT blocks are on the wire.
    VlPlan plan(const DiscoveryResult& found, const std::vector<PortPlanEntry>& ports, unsigned vls_needed) const;
    VlPlan plan(const DiscoveryResult& found, const std::vector<PortPlanEntry>& ports, const qos::SlVlPlan& sl_vl,
                const qos::QosPolicy* policy) const;
    boost::asio::awaitable<VlReport> program(mad::Transport& transport, VlPlan planned);
    // plan() then program().
    boost::asio::awaitable<VlReport> program(mad::Transport& transport, const DiscoveryResult& found,
                                             const std::vector<PortPlanEntry>& ports, unsigned vls_needed);

private:
    // `hash`: masked_hash of t's desired content, what confirmed_ records.
    // Returns the failure text, empty when the table is confirmed.
    boost::asio::awaitable<std::string> write(mad::Transport& transport, const TableWrite& t, std::uint64_t hash,
                                              bool read_first, VlReport& report);

    VlSettings settings_;
    std::unordered_map<TableKey, std::uint64_t, TableKeyHash> confirmed_; // -> hash of the masked content
};

} // namespace ibsm::daemon
