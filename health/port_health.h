// The health of one port as the SM knows it: its counters (performance
// management, counters.h), what the last heavy sweep found of its link
// (link_check.h), and what the health policy made of both (health_policy.h).
//
// Why one plain record: the poller, the link checks and the policy each
// fill in a part; `ibsm ports`, metrics.prom, state.json, the control
// socket and the report read the whole. One definition keeps every reader
// naming the same counter the same way.
//
// Data structures: counters are indexed by the Counter enum (IBA 16.1.3.5
// PortCounters and 16.1.4.11 PortCountersExtended, in that order), each with
// a snake_case name used in metrics, JSON and the YAML (`health.thresholds`)
// and the IBA name that perfquery and ibsim print.
#pragma once

#include "mad/link_speed.h"
#include "mad/types.h"

#include <array>
#include <map>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace ibsm::health {

// A port by node GUID and port number: what survives re-discovery and
// restarts (LIDs and NodeIds may not).
struct PortId {
    Guid node;
    PortNum port;
    constexpr auto operator<=>(const PortId&) const = default;
};

enum class Counter : std::uint8_t {
    // PortCounters error counters (narrow: 4 to 16 bits, they saturate)
    symbol_errors,
    link_error_recovery,
    link_downed,
    rcv_errors,
    rcv_remote_physical_errors,
    rcv_switch_relay_errors,
    xmit_discards,
    xmit_constraint_errors,
    rcv_constraint_errors,
    local_link_integrity_errors,
    excessive_buffer_overrun_errors,
    vl15_dropped,
    // traffic: 64-bit from PortCountersExtended where supported, else the
    // 32-bit PortCounters fields (they saturate too)
    xmit_data, // in 4-byte words, as the IBA counts them
    rcv_data,
    xmit_pkts,
    rcv_pkts,
    xmit_wait, // ticks the port had data to send and no credits
};
inline constexpr std::size_t counter_count = 17;
inline constexpr std::size_t error_counter_count = 12; // symbol_errors .. vl15_dropped

constexpr std::size_t index(Counter c) { return static_cast<std::size_t>(c); }
constexpr bool is_error_counter(Counter c) { return index(c) < error_counter_count; }

// "symbol_errors": metrics (ibsmd_port_symbol_errors_total), JSON, YAML.
std::string_view counter_name(Counter c);
// "SymbolErrorCounter": the IBA field name perfquery and ibsim's
// PerformanceSet use.
std::string_view counter_iba_name(Counter c);
// Either name (case-insensitive for the IBA one); nullopt when unknown.
std::optional<Counter> counter_from_name(std::string_view name);

using CounterValues = std::array<std::uint64_t, counter_count>;

// A port's counters as the poller keeps them (counters.h does the
// arithmetic). Totals are 64-bit and only grow: wraps of narrow fields,
// clears near saturation and resets by other tools are folded in.
struct PortCounters {
    CounterValues total{};  // the first read's values plus every delta since (perfquery agrees)
    CounterValues delta{};  // in the last interval
    std::array<bool, counter_count> supported{}; // xmit_wait only where ClassPortInfo says so
    bool extended = false;  // traffic from PortCountersExtended (64-bit)
    double interval_s = 0;  // length of the last interval (0: one read so far)
    double xmit_bytes_per_s = 0, rcv_bytes_per_s = 0;
    double xmit_pkts_per_s = 0, rcv_pkts_per_s = 0;
    double xmit_wait_share = 0; // of the last interval, 0..1
    std::uint64_t reads = 0;
    std::uint64_t resets_seen = 0; // a value went backwards: cleared by someone else
    std::uint64_t failures = 0;    // PMA queries that found no answer
    // Bit i: the counter sweep i sweeps ago found no answer from this port
    // (bit 0: the last one), for "unresponsive in K of the last M sweeps".
    std::uint64_t failure_history = 0;
    double last_read = 0;          // Unix seconds
};

// Every polled port's counters (the poller's table after each sweep).
using CounterTable = std::map<PortId, PortCounters>;

// What the heavy sweep's link check found (link_check.h). Codes, not names
// (one check per linked port end: 165 888 at 27 648 hosts); the names are
// made where they are printed.
struct LinkCheck {
    bool downshifted = false;         // width or speed below what both ends could do
    std::uint8_t width_active = 0;    // one LinkWidth bit (mad/link_speed.h): 2 = 4x
    std::uint8_t width_possible = 0;  // best width both ends support and enable; 0: none in common
    mad::LaneSpeed speed_active = mad::LaneSpeed::none;
    mad::LaneSpeed speed_possible = mad::LaneSpeed::none; // none: none in common
    std::uint16_t mtu_active = 0;     // bytes (NeighborMTU)
    std::uint16_t mtu_possible = 0;   // min of both ends' MTUCap
    std::uint8_t vls_active = 0;      // OperationalVLs as a count
    std::uint8_t vls_possible = 0;    // min of both ends' VLCap
    std::vector<std::string> findings; // "width 1x of 4x", "MTU 2048 of 4096", ...
};
// The names state.json, `ibsm ports` and the findings use: "4x", "NDR"; an
// active width or speed the port did not name is "?", a possible one that
// both ends do not share is empty.
std::string_view active_width_name(const LinkCheck& l);
std::string_view possible_width_name(const LinkCheck& l);
std::string_view active_speed_name(const LinkCheck& l);
std::string_view possible_speed_name(const LinkCheck& l);

// Both ends of every link the sweep checked, by port. A sorted vector, not
// a map: made whole for every generation (165 888 ends at 27 648 hosts), a
// map's node per entry was most of the 0.1 s between activation and SUBNET
// UP of a re-route, and 17 MB per snapshot. Immutable once in a snapshot;
// operator[] (an insertion in order) is for tests and small tables.
class LinkChecks {
public:
    using value_type = std::pair<PortId, LinkCheck>;
    using const_iterator = std::vector<value_type>::const_iterator;
    using iterator = std::vector<value_type>::iterator;

    LinkChecks() = default;
    // From entries in any order; for a port named twice the last one counts.
    explicit LinkChecks(std::vector<value_type> entries);

    const_iterator begin() const { return v_.begin(); }
    const_iterator end() const { return v_.end(); }
    iterator begin() { return v_.begin(); }
    iterator end() { return v_.end(); }
    std::size_t size() const { return v_.size(); }
    bool empty() const { return v_.empty(); }

    const_iterator find(const PortId& id) const;
    iterator find(const PortId& id);
    std::size_t count(const PortId& id) const { return find(id) != end() ? 1 : 0; }
    const LinkCheck& at(const PortId& id) const; // std::out_of_range when absent
    LinkCheck& operator[](const PortId& id);

private:
    std::vector<value_type> v_; // ascending by PortId, no two alike
};

enum class HealthState : std::uint8_t {
    ok,
    reported,          // a rule fired with action report
    isolated,          // out of the routing (and DISABLED when so configured)
    isolation_refused, // a rule asked to isolate; that would cut a node off
};
std::string_view state_name(HealthState s); // "ok", "reported", "isolated", "isolation-refused"

// A part of a row that the row shares with the table it came from (the
// poller's counter table, the snapshot's link checks) instead of holding a
// copy. Why: a row per linked port end is 165 888 rows at 27 648 hosts; as
// copies, counters and link checks made each row 736 bytes and the rows the
// largest item of the SM's memory (docs/scale.md, "Memory"). Immutable once
// made, so the rows can be read on any thread. Assigning a plain value makes
// it shared (tests and JSON readers build rows that way).
template <class T>
class Shared {
public:
    Shared() = default;
    Shared(T value) : p_(std::make_shared<const T>(std::move(value))) {}
    Shared(std::shared_ptr<const T> p) : p_(std::move(p)) {}

    explicit operator bool() const { return p_ != nullptr; }
    bool has_value() const { return p_ != nullptr; }
    const T& operator*() const { return *p_; }
    const T* operator->() const { return p_.get(); }
    void reset() { p_.reset(); }

private:
    std::shared_ptr<const T> p_;
};

// One row of `ibsm ports`: everything known about one linked port.
struct PortHealth {
    PortId id;
    std::string node_desc;
    std::string node_name; // from the node-name-map; empty: none
    std::optional<PortId> remote;
    Lid lid; // the node's LID (switch port 0's for switch ports)
    Shared<PortCounters> counters;
    Shared<LinkCheck> link;
    HealthState state = HealthState::ok;
    std::vector<std::string> reasons; // one per rule that fired, newest last
    unsigned link_downs_recent = 0;   // within the flapping window
    double since = 0;                 // Unix seconds the state was entered
};

// Worst first: isolated, isolation refused, reported, then by error deltas,
// downshift, error totals, traffic; ties by PortId so the order is stable.
void sort_worst_first(std::vector<PortHealth>& rows);

} // namespace ibsm::health
