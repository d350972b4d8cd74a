// An in-process fabric of switches and CAs behind a mad::MadPort, for
// driving discovery, the programmers and the sweep scheduler in unit tests.
//
// Why: ibsim takes seconds to start and is shared by the integration tests;
// a scheduler test must run a trap -> re-route -> push sequence in
// milliseconds, count the SMPs it cost, drop a link mid-run and read back
// what the switches ended up holding. The scripted ports (fake_port.h,
// fake_loop.h) answer one request at a time; this one answers as a whole
// fabric would, so the daemon's code runs unmodified against it.
//
// What it models (each choice follows IBA 1.3 and, where the spec leaves
// room, ibsim's sim_mad.c / sim_net.c, the simulator the integration tests
// use):
//  - Start state of a fresh fabric: every cabled port INIT (LinkUp), the
//    others DOWN (Polling); switch port 0 ACTIVE; all LIDs 0; LFTs empty
//    (every entry 0xFF, LinearFDBTop 0); PortStateChange set on every switch
//    with a cable (its ports just came up).
//  - Directed-route SMPs (IBA 14.2.2): the path starts at the SM's node (the
//    SM is attached to one CA port); InitialPath[1..HopCount] are the exit
//    ports, a hop past the first must leave a switch, and a link is crossed
//    when both ends are at least INIT (physically up). The answer comes back
//    with the D bit, HopPointer 0 and ReturnPath[i] = the port the request
//    entered hop i by, as it reaches the SM after the return trip. SMPs with
//    a non-permissive DrSLID/DrDLID (LID-routed parts) are dropped.
//  - LID-routed SMPs: delivered from the SM's port by the LFTs the SM
//    programmed (a DLID above LinearFDBTop, or an entry 0xFF, 0 or beyond
//    the port count drops it), across links ACTIVE at both ends, to the port whose
//    LID range (LID .. LID + 2^LMC - 1; switches: port 0's) holds the DLID;
//    the answer must route back to the SM's LID the same way. Anything else
//    is dropped without an answer, so the transport times out, as on
//    hardware.
//  - Attributes, each through its codec in mad/: NodeInfo, NodeDescription,
//    PortInfo (Set: LID, LMC, MasterSMLID/SL, GID prefix, SubnetTimeout on
//    CA ports and switch port 0; OperationalVLs <= VLCap and NeighborMTU <=
//    MTUCap on every port, 0 meaning no change; VLHighLimit on every port
//    unless set_drops_vl_high_limit; PortState 0 no change, 1
//    DOWN (the link retrains to INIT at both ends, ibsim's model), 3 ARMED
//    only from INIT with the neighbour up, 4 ACTIVE only from ARMED with the
//    neighbour ARMED or ACTIVE; anything else rejects the whole Set with
//    status 0x001c and changes nothing; PortPhysicalState 0 no change, 3
//    Disabled on a switch port takes its link down as unlink() does, 2
//    Polling on a disabled port plugs the cable back as relink() does),
//    SwitchInfo (Set: LinearFDBTop,
//    LifeTimeValue, and PortStateChange cleared by writing 1, IBA 14.2.5.4,
//    as ibsim does), LinearForwardingTable (64-entry blocks),
//    SLtoVLMappingTable (per input/output pair on switches, honouring the
//    all-ports bits when OptimizedSLtoVLMappingProgramming is on; per port
//    on CAs) and VLArbitrationTable (blocks 1..4 within the port's caps).
//    SMInfo reaching any node but the SM's is dropped (no SM there: ibsim
//    has no handler and drops it), unless another SM was placed on that
//    port with add_remote_sm(): it answers Gets with its SMInfo (its SM_Key
//    only to a requester presenting it, IBA 14.4.1) and records and accepts
//    Sets (control packets). Reaching the SM's own node it is handed
//    to the SM as an unsolicited request, as the kernel does, and the SM's
//    answer (send_response) becomes the response. Other attributes answer
//    0x000c (unsupported attribute), other methods 0x0008.
//  - Traps: a switch (or CA port) with a LID and a MasterSMLID sends a
//    LID-routed SubnTrap(Notice) to the SM's LID; until the SM answers it
//    with a TrapRepress carrying the trap's TID, tick() (and, if set, every
//    `trap_repeat_every` SMPs handled) sends it again with the same TID, as
//    switches repeat unanswered traps. A trap that cannot be routed to the
//    SM is not delivered this time but stays pending.
//  - Modern links (set_speed): an NDR or XDR node states
//    IsExtendedSpeedsSupported in its CapabilityMask (a switch on port 0,
//    where a switch states its capabilities; a CA on its ports) and the
//    HDR/NDR (XDR) bits of CapabilityMask2, and answers the LinkSpeedExt
//    fields (and the XDR ones) only to a PortInfo Get or Set whose
//    AttributeModifier carries bit 31, SMSupportExtendedSpeeds (IBA
//    14.2.5.6); without it they read zero, as NDR switches do. A link
//    trains to the fastest speed both ends support (QDR with a plain end).
//  - M_Key (IBA 14.2.4): a CA port and a switch's port 0 hold M_Key,
//    M_KeyProtectBits, M_KeyLeasePeriod and M_KeyViolations, written by a
//    PortInfo Set there. Every Get and Set reaching the node (SMInfo aside:
//    the SM, not the SMA, answers it) is checked against the key of the
//    port that checks (a switch: port 0; a CA: the port it entered by): it
//    passes when that key is 0 or matches; otherwise a Get passes at
//    levels 0 and 1 (at 1 with PortInfo's M_Key read as 0), and anything
//    else fails: no answer, M_KeyViolations + 1, the lease timer started
//    (when M_KeyLeasePeriod is not 0 and it is not running), trap 256 to
//    the SM. A matching key stops the timer; when it runs out, on the fake
//    clock (advance_clock), the protect bits fall to 0 and a Get shows the
//    key again: the way back for an SM that lost it.
//  - Random loss (set_loss, seeded): a request is lost on its way out with
//    one probability (not applied) and its answer on the way back with
//    another (applied, as ibsim applies a Set before the return trip that
//    drops it). Reported (ibsim: the request comes straight back with umad
//    status 110) or silent (hardware: the transport times out).
//
// Data structures: `fabric_` is the live cabling (a copy of the Fabric given,
// changed by unlink/relink/link/add_node); `nodes_[NodeId]` holds each
// node's simulated state (PortInfo per port, SwitchInfo, LFT entries, SL2VL
// and VLArb tables, injected faults); `rx_` the MADs waiting for the
// transport. Everything is answered synchronously inside send(), so a test
// is deterministic; a pipe (reactor mode) or wait_readable (polled mode)
// tells the transport's loop that something is queued.
#pragma once

#include "mad/multicast_forwarding_table.h"
#include "mad/notice.h"
#include "mad/perf_mgt.h"
#include "mad/pkey_table.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/smp.h"
#include "mad/switch_info.h"
#include "mad/umad_port.h"
#include "mad/vl_arbitration.h"
#include "mcast/tree.h"
#include "routing/tables.h"
#include "topology/fabric.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::test {

// MAD status values the fake answers with (IBA 13.4.7, bits 2..4).
namespace fake_status {
inline constexpr std::uint16_t method_unsupported = 0x0008;
inline constexpr std::uint16_t attribute_unsupported = 0x000c;
inline constexpr std::uint16_t invalid_value = 0x001c;
} // namespace fake_status

// What a node's links can do (set_speed).
enum class FakeSpeed : std::uint8_t { qdr, ndr, xdr };

struct FakeFabricOptions {
    // Where the SM is attached; default: the lowest cabled port of the first
    // CA (NodeId order), as ibsim attaches its first client.
    std::optional<topology::PortRef> sm_port;
    // true: a pipe the io_context's reactor watches; false: the transport's
    // polled (simulator) mode through wait_readable().
    bool reactor = true;
    std::uint16_t linear_fdb_cap = 49152;
    // SwitchInfo OptimizedSLtoVLMappingProgramming on every switch.
    bool optimized_sl2vl = false;
    // Re-send unrepressed traps after this many SMPs handled while any is
    // pending (counted from the last repeat); 0: only on tick().
    unsigned trap_repeat_every = 0;
};

// Random loss of SMPs the SM sends (set_loss).
struct FakeLoss {
    double request = 0; // probability a request is lost before it reaches its target
    double answer = 0;  // probability the answer of an applied request is lost
    bool reported = true; // true: hand the request back at once with umad status 110, as umad2sim does
    std::uint64_t seed = 1;
};

struct FakeCounters {
    // Requests the SM sent, by (method, attribute ID), delivered or not.
    std::map<std::pair<std::uint8_t, std::uint16_t>, std::uint64_t> requests;
    std::uint64_t directed_route = 0;
    std::uint64_t lid_routed = 0;
    std::uint64_t answered = 0;          // responses queued for the SM
    std::uint64_t bad_status = 0;        // of which with a non-zero status
    std::uint64_t dropped_route = 0;     // no path there (or back): no answer
    std::uint64_t dropped_injected = 0;  // drop_next()
    std::uint64_t lost_requests = 0;     // set_loss(): lost on the way out, not applied
    std::uint64_t lost_answers = 0;      // set_loss(): applied, the answer lost
    std::uint64_t dropped_no_sm = 0;     // SMInfo to a node without an SM
    std::uint64_t traps_raised = 0;      // distinct traps (unlink, relink, link, raise_trap)
    std::uint64_t traps_delivered = 0;   // SubnTrap MADs handed to the SM, repeats included
    std::uint64_t traps_undeliverable = 0; // send attempts with no route to the SM
    std::uint64_t represses = 0;         // TrapRepress that stopped a pending trap
    std::uint64_t represses_unmatched = 0; // no pending trap had that TID (or no route back)
    std::uint64_t responses_from_sm = 0; // send_response() calls
    // PerfMgt (class 0x04) requests by attribute, apart from `requests`
    // (PortCounters and SwitchInfo share attribute ID 0x0012).
    std::map<std::uint16_t, std::uint64_t> pma_requests;
    std::uint64_t pma_clears = 0; // PortCounters Sets
    std::uint64_t mkey_failures = 0;  // SMPs that failed the M_Key check (no answer)
    std::uint64_t lease_expiries = 0; // lease timers that ran out (protect bits cleared)

    std::uint64_t count(mad::Method method, std::uint16_t attr) const
    {
        auto it = requests.find({static_cast<std::uint8_t>(method), attr});
        return it == requests.end() ? 0 : it->second;
    }
    std::uint64_t total() const { return directed_route + lid_routed; }
};

// What the switches hold, read back the way `ibnetdiscover` + `dump_fts` do
// on ibsim: the cabling with each port's LID, LMC, state and physical state
// (switches: LinearFDBCap/Top, LifeTimeValue), and every switch's LFT
// entries 0..LinearFDBTop. NodeIds are the fake's (fabric()).
struct FabricReadback {
    topology::Fabric fabric;
    routing::RoutingTables tables; // engine "read back"; top = the highest LinearFDBTop
};

class FakeFabric final : public mad::MadPort {
public:
    // Copies `fabric`. Throws std::invalid_argument when the SM port is not
    // a CA port or there is no CA.
    explicit FakeFabric(const topology::Fabric& fabric, FakeFabricOptions options = {});
    ~FakeFabric() override;
    FakeFabric(const FakeFabric&) = delete;
    FakeFabric& operator=(const FakeFabric&) = delete;

    // --- mad::MadPort (what the Transport drives) ---
    bool send(const mad::Smp& smp, Lid dlid, std::uint32_t timeout_ms) override;
    std::optional<mad::RawReceive> try_receive() override;
    int fd() const override { return options_.reactor ? pipe_[0] : -1; }
    bool pollable_by_reactor() const override { return options_.reactor; }
    bool wait_readable(int timeout_ms) override;
    // A TrapRepress (method 0x07) stops the pending trap with that TID; the
    // answer to an SMInfo request the fake handed to the SM becomes the
    // response to it; anything else is recorded in responses_from_sm().
    bool send_response(const mad::Smp& smp, const mad::RawReceive& request) override;

    // --- fabric events ---
    // Pulls the cable on `p` (either end): both ends DOWN/Polling, each
    // switch end gets PortStateChange and sends trap 128. Throws
    // std::invalid_argument when `p` is not cabled.
    void unlink(topology::PortRef p);
    // Plugs back the cable unlink() pulled from `p`: both ends INIT/LinkUp,
    // PortStateChange and trap 128 at switch ends. Throws when there is none.
    void relink(topology::PortRef p);
    // Every cable of `node` pulled (ibsim's `Unlink "node"`), and plugged
    // back (`ReLink "node"`: the cables whose far end is still free).
    void unlink_node(topology::NodeId node);
    void relink_node(topology::NodeId node);
    // A new node, no cables yet (its ports DOWN). CA port p gets the GUID
    // node GUID + p, as in ibsim.
    topology::NodeId add_node(topology::NodeType type, Guid guid, std::uint8_t num_ports,
                              std::string description = {});
    // Cables two free ports: both INIT/LinkUp, PortStateChange and trap 128
    // at switch ends. Throws std::invalid_argument (Fabric::connect's rules).
    void link(topology::PortRef a, topology::PortRef b);
    // Any notice from `issuer` (a switch's port 0, or a CA port); IssuerLID
    // is filled in when zero. Returns false (nothing raised) when the issuer
    // has no LID or no MasterSMLID yet: it cannot address the SM.
    bool raise_trap(topology::PortRef issuer, mad::Notice notice);
    // Sends every unrepressed trap again; returns how many reached the SM.
    std::size_t tick();
    std::size_t pending_traps() const { return traps_.size(); }

    // --- fault injection ---
    // The next `count` requests that reach `node` (for `attr` only, when
    // given) are dropped: no answer, the transport times out.
    void drop_next(Guid node, unsigned count, std::optional<std::uint16_t> attr = std::nullopt);
    // ... Sets of `attr` only (the Gets that read the port pass).
    void drop_sets_next(Guid node, unsigned count, std::uint16_t attr);
    // Every drop, rejection or loss still pending at `node` is forgotten.
    void clear_faults(Guid node);
    // ... or answered with `status` and nothing applied.
    void reject_next(Guid node, unsigned count, std::uint16_t status, std::optional<std::uint16_t> attr = std::nullopt);

    // Random loss from now on (FakeLoss{}: none). SMInfo to the SM's own
    // node is never lost (it does not cross a link).
    void set_loss(FakeLoss loss);

    // The next `count` Sets of `attr` that reach `node` are applied and
    // their answers lost on the way back (reported or silent as set_loss
    // says; reported by default, as ibsim does).
    void lose_answer_next(Guid node, unsigned count, std::uint16_t attr);
    // The next `count` requests of `attr` that reach `node` are answered
    // with an attribute of zeros (status 0, nothing applied): a NodeInfo
    // of node type 0, which does not decode.
    void garble_next(Guid node, unsigned count, std::uint16_t attr);
    // ... answered with a MAD cut to 100 bytes, which the transport drops.
    void truncate_next(Guid node, unsigned count, std::uint16_t attr);

    // --- performance management: every port's PMA, answering
    // ClassPortInfo, PortCounters (Get and the Set that clears) and
    // PortCountersExtended. Counters start at 0; a test sets them (values
    // at a field's maximum are saturated, as real counters stop there).
    void set_port_counters(topology::PortRef p, const mad::perf::PortCounters& pc);
    void set_port_counters_extended(topology::PortRef p, const mad::perf::PortCountersExtended& pc);
    mad::perf::PortCounters port_counters(topology::PortRef p) const;
    // ClassPortInfo CapabilityMask of every PMA (default: extended counters
    // and XmitWait, as ibsim answers).
    void set_pma_capabilities(std::uint16_t mask) { pma_capabilities_ = mask; }
    // --- modern links (see the header comment) ---
    void set_speed(topology::NodeId node, FakeSpeed speed);
    // A device older than SMSupportExtendedSpeeds: bit 31 of a PortInfo
    // AttributeModifier is part of the port number to it, so it answers
    // such a Get or Set with a bad status (invalid attribute modifier).
    void set_plain_port_info(topology::NodeId node) { nodes_.at(node.value).plain_port_info = true; }
    // An SMA that answers a PortInfo Set without storing VLHighLimit, as
    // ibsim's does (others store it: IBA 14.2.5.6).
    void set_drops_vl_high_limit(topology::NodeId node) { nodes_.at(node.value).drops_vl_high_limit = true; }
    // PortInfo VLCap of one port (1 = VL0 only .. 5 = VL0-14; default 4).
    void set_vl_cap(topology::PortRef p, std::uint8_t code) { sim(p).info.vl_cap = code; }
    // SwitchInfo PartitionEnforcementCap of a switch (default 64, as ibsim's).
    void set_partition_enforcement_cap(topology::NodeId sw, std::uint16_t cap)
    {
        nodes_.at(sw.value).sw->partition_enforcement_cap = cap;
    }

    // --- M_Key: another SM (or a lost secret) keyed this port; `p` is a
    // CA port or a switch (any port: its port 0 is keyed). ---
    void set_port_mkey(topology::PortRef p, std::uint64_t key, std::uint8_t protect_bits, std::uint16_t lease_s);
    // The fake clock: lease timers that run out within `by` clear their
    // port's protect bits.
    void advance_clock(std::chrono::seconds by);

    // --- hand a MAD to the SM as if another agent sent it ---
    void deliver(mad::RawReceive r);

    // --- another SM on a CA port (not the SM's): PortInfo CapabilityMask
    // gets IsSM, SMInfo Gets are answered with `info`; remove_remote_sm()
    // makes it stop answering (the process died; IsSM stays, as on ibsim).
    void add_remote_sm(topology::PortRef port, mad::SmInfo info);
    void set_remote_sm_state(topology::PortRef port, mad::SmState state);
    void remove_remote_sm(topology::PortRef port);
    struct RemoteSmSet {
        std::uint32_t control; // attribute modifier
        mad::SmInfo sender;
    };
    const std::vector<RemoteSmSet>& remote_sm_sets() const { return remote_sets_; }

    // --- another SM takes over: the SM's process now sits on `p` (a CA
    // port); the switches keep everything the last SM programmed. Throws
    // std::invalid_argument when `p` is not a CA port.
    void move_sm(topology::PortRef p);

    // --- inspection ---
    const FakeCounters& counters() const { return counters_; }
    void reset_counters() { counters_ = FakeCounters{}; }
    const topology::Fabric& fabric() const { return fabric_; }
    topology::PortRef sm_port() const { return sm_port_; }
    mad::PortInfo port_info(topology::PortRef p) const;
    mad::SwitchInfo switch_info(topology::NodeId sw) const;
    // The output port for `lid` in switch `sw`'s LFT (0xFF: none).
    std::uint8_t lft_entry(topology::NodeId sw, Lid lid) const;
    mad::Sl2VlTable sl2vl(topology::NodeId node, PortNum in, PortNum out) const;
    mad::VlArbitrationTable vl_arbitration(topology::PortRef p, mad::VlArbBlock block) const;
    const std::vector<mad::Smp>& responses_from_sm() const { return responses_; }
    // P_Key table block of a port (CA port, switch port 0 or external port).
    mad::PKeyTable pkey_table(topology::PortRef p, std::size_t block = 0) const;
    // A switch's multicast table: MLID -> ports, non-empty entries only.
    std::map<std::uint16_t, mcast::PortMask> mft(topology::NodeId sw) const;
    FabricReadback read_back() const;

private:
    struct SimPort {
        mad::PortInfo info;
        std::array<mad::VlArbitrationTable, 4> vlarb{};
        mad::Sl2VlTable sl2vl{}; // CA ports
        std::array<std::uint16_t, 64> pkeys{};
        std::optional<topology::PortRef> previous; // the far end unlink() pulled
    };
    struct Fault {
        std::optional<std::uint16_t> attr;
        unsigned count = 0;
        std::uint16_t status = 0; // 0: drop
        bool lose_answer = false; // Sets only: apply, then lose the answer
        bool sets_only = false;   // a drop of Sets only
        bool garble = false;      // answer zeros (garble_next)
        bool truncate = false;    // answer 100 bytes (truncate_next)
    };
    struct SimNode {
        std::vector<SimPort> ports; // index = port number
        std::optional<mad::SwitchInfo> sw;
        std::vector<std::uint8_t> lft;         // grows on Set; missing entries are 0xFF
        std::vector<mad::Sl2VlTable> sl2vl;    // switches: [in * (n+1) + out]
        std::vector<mcast::PortMask> mft;      // switches: MLID 0xC000 + i
        std::vector<Fault> faults;
        FakeSpeed speed = FakeSpeed::qdr;
        bool plain_port_info = false; // set_plain_port_info
        bool drops_vl_high_limit = false; // set_drops_vl_high_limit
    };
    struct Delivery {
        topology::PortRef at; // the port the request entered the destination by
    };
    struct Answer {
        std::uint16_t status = 0;
        std::array<std::uint8_t, mad::smp_data_size> data{};
    };
    struct PendingTrap {
        topology::PortRef issuer;
        mad::Notice notice;
        std::uint64_t tid = 0;
    };

    void add_sim_node(topology::NodeId id);
    SimPort& sim(topology::PortRef p) { return nodes_.at(p.node.value).ports.at(p.port.value()); }
    const SimPort& sim(topology::PortRef p) const { return nodes_.at(p.node.value).ports.at(p.port.value()); }
    bool linked(topology::PortRef p, mad::PortState at_least) const;
    bool owns_lid(topology::PortRef p, Lid lid) const;
    std::optional<Delivery> route_dr(const mad::Smp& smp, std::array<std::uint8_t, 64>& return_path) const;
    // From `from` (a CA port, or a switch's port 0 = the switch itself) to
    // the port owning `dlid`, by the LFTs.
    std::optional<topology::PortRef> route_lid(topology::PortRef from, Lid dlid) const;
    std::optional<Fault> take_fault(topology::NodeId node, const mad::Smp& smp);
    Answer handle(const mad::Smp& req, Delivery at);
    Answer node_info(topology::PortRef at) const;
    Answer port_info(const mad::Smp& req, topology::PortRef at);
    // The port's PortInfo with what its speed adds; the LinkSpeedExt fields
    // only when `sm_supports_ext` (AttributeModifier bit 31).
    mad::PortInfo answered(topology::PortRef p, bool sm_supports_ext) const;
    Answer switch_info(const mad::Smp& req, topology::NodeId node);
    Answer lft(const mad::Smp& req, topology::NodeId node);
    Answer sl2vl(const mad::Smp& req, topology::PortRef at);
    Answer vl_arb(const mad::Smp& req, topology::PortRef at);
    Answer pkey_table(const mad::Smp& req, topology::PortRef at);
    Answer mft(const mad::Smp& req, topology::NodeId node);
    void link_up(topology::PortRef a, topology::PortRef b);
    void port_state_changed(topology::NodeId node);
    void send_trap(const PendingTrap& t);
    void repress(const mad::Smp& smp);
    void enqueue(mad::RawReceive r);
    bool lose(double probability);
    // A loss: the request handed back with umad status 110, or nothing.
    void lost(const mad::Smp& request);
    // The M_Key check (see the header comment): true when `smp` may be
    // answered; `hide_key` when a PortInfo answer must read M_Key 0.
    bool mkey_check(const mad::Smp& smp, topology::PortRef at, bool& hide_key);

    mad::Smp pma(const mad::Smp& req, topology::PortRef at);

    std::map<std::pair<std::uint32_t, std::uint8_t>, mad::perf::PortCounters> pma_counters_;
    std::map<std::pair<std::uint32_t, std::uint8_t>, mad::perf::PortCountersExtended> pma_extended_;
    std::uint16_t pma_capabilities_ = mad::perf::cap::extended_width | mad::perf::cap::xmit_wait;

    topology::Fabric fabric_;
    FakeFabricOptions options_;
    topology::PortRef sm_port_;
    std::vector<SimNode> nodes_;
    std::deque<mad::RawReceive> rx_;
    std::vector<PendingTrap> traps_;
    std::map<topology::PortRef, std::optional<mad::SmInfo>> remote_sms_; // nullopt: gone
    std::vector<RemoteSmSet> remote_sets_;
    std::map<std::uint32_t, bool> to_sm_; // TIDs (low 32 bits) of SMInfo requests handed to the SM
    std::vector<mad::Smp> responses_;
    FakeCounters counters_;
    unsigned since_repeat_ = 0; // SMPs handled while traps were pending, since the last repeat
    std::uint32_t next_trap_tid_ = 0x7a000000;
    int pipe_[2] = {-1, -1};
    FakeLoss loss_;
    std::mt19937_64 rng_;
    std::chrono::seconds clock_{0};
    std::map<topology::PortRef, std::chrono::seconds> lease_ends_; // running lease timers
};

} // namespace ibsm::test
