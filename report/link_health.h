// What the report shows of the fabric's health: per cable, both ends' rows
// of `ibsm ports --json` (health/port_health.h) reduced to what one line of
// the drawing and one row of the "Link health" table carry.
//
// Why a reduction: the report draws cables and bundles, the health monitor
// keeps ports. A cable is as busy as its busier direction and as sick as
// its sicker end; keeping both ends' numbers side by side in one record is
// what lets the hover text and the table name both ends.
//
// Data structures: CableHealth per fabric cable with a row at either end,
// oriented as its Model link (end a = the link's node a) when drawn;
// LinkHealth per drawn bundle, the worst of its cables; HealthOverlay holds
// the cables and how the rows matched the topology (report/health_overlay.h
// builds it).
#pragma once

#include "health/port_health.h"
#include "mad/types.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::report {

// 0 isolated, 1 isolation refused, 2 reported, 3 ok: the order the
// "Link health" table lists them in, and which end's state a cable shows.
int state_rank(health::HealthState s);

struct CableHealth {
    Guid guid_a, guid_b;
    std::string name_a, name_b; // display names, as the drawing's nodes
    unsigned port_a = 0, port_b = 0;
    std::optional<std::size_t> link; // the Model link drawing it; none for a folded host's cable
    std::size_t order = 0;           // position in the fabric's cable list (stable ties)
    std::string width, speed;        // active, from the topology ("4x", "HDR"); empty when unknown
    double capacity_bytes_per_s = 0; // lanes × lane data rate of one direction; 0 when unknown
    bool measured = false;           // rates known at either end
    double bytes_ab = 0, bytes_ba = 0; // per second in each direction: the larger of sender's xmit, receiver's rcv
    // The busier direction over the capacity; none when not measured or the
    // capacity is unknown. Above 1 only when the counters say so (kept: the
    // report never claims more than the switches hold, nor less).
    std::optional<double> utilisation;
    std::uint64_t errors_delta = 0, errors_total = 0; // the error counters of both ends summed
    bool downshifted = false;
    health::HealthState state = health::HealthState::ok; // the worse end's
    std::vector<std::string> findings; // link-check findings and the policy's reasons, each once, naming the end

    // Shown in the "Link health" table: errors (now or ever), a downshift,
    // or a state the policy set.
    bool has_problem() const
    {
        return errors_delta > 0 || errors_total > 0 || downshifted || state != health::HealthState::ok;
    }
};

// A drawn bundle: the worst of its cables.
struct LinkHealth {
    std::vector<std::size_t> cables; // indices into HealthOverlay::cables
    std::optional<double> utilisation; // the busiest measured cable
    std::uint64_t errors_delta = 0, errors_total = 0;
    bool downshifted = false;
    health::HealthState state = health::HealthState::ok;
    bool isolated() const { return state == health::HealthState::isolated; }
};

struct HealthOverlay {
    std::vector<CableHealth> cables; // fabric cable order
    std::string source;              // where the rows came from: a file name, "generation 12"
    std::size_t rows = 0;            // health rows given
    std::size_t matched = 0;         // rows found at a cabled port of the topology
    std::vector<std::string> unmatched; // "0x...[port]" of every other row, in the rows' order
    // Indices into `cables` of those with a problem, worst first: isolated,
    // isolation refused, reported, then errors in the last interval,
    // downshift, error totals, utilisation; ties in fabric order.
    std::vector<std::size_t> worst() const;
    // The measured cable with the highest utilisation, if any.
    std::optional<std::size_t> busiest() const;
};

} // namespace ibsm::report
