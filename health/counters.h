// Counter arithmetic: successive PMA reads of one port turned into 64-bit
// totals, per-interval deltas and rates (health::PortCounters).
//
// Why: PortCounters fields are 4 to 32 bits wide and saturate at their
// maximum instead of wrapping; a saturated counter says nothing more. Other
// tools (perfquery -r, another SM's PerfMgr) may clear them at any time.
// Totals that only grow, whatever happens to the registers, are what the
// metrics and the health rules need.
//
// Data structures: `CounterRead` is one read as decoded (every counter
// widened to 64 bits, flags for what the port supports); `PortTracker` is a
// port's memory between reads: the exported `PortCounters` and the raw
// values the registers held after the last read (0 for counters the SM has
// cleared since).
//
// Algorithm, per counter, on each read:
//   first read          total = value (what the port counted before the SM
//                       looked is kept: totals match perfquery), delta = 0
//   value >= last       delta = value - last
//   value <  last       someone else cleared it: delta = value (counted
//                       since that reset), resets_seen + 1 once per read
//   total += delta
// Clearing: only the narrow error counters, only once they reach 3/4 of
// their maximum (so saturation is never reached between two reads unless a
// link throws more than 1/4 of the range in one interval), never the 64-bit
// extended counters. The read's value is already in the total; after the
// clear is confirmed the register's "last" becomes 0. Counts that arrive
// between the read and the clear are lost (at most one round trip's worth).
// 32-bit data counters (ports without PortCountersExtended) also saturate;
// they are never cleared either (clearing fights other readers), so their
// totals stop growing at 2^32-1 words; `extended` tells which a port has.
//
// Rates: data counters count 4-byte words; bytes/s = 4 * delta / interval.
// XmitWait counts ticks the port had data and no credits; the IBA leaves
// the tick's length to the vendor. The share is ticks x `xmit_wait_tick_s`
// / interval, clamped to 1; the default tick assumed is 1 microsecond.
// Compare the share between ports of one kind, not as an absolute figure.
#pragma once

#include "health/port_health.h"
#include "mad/perf_mgt.h"

#include <cstdint>
#include <optional>

namespace ibsm::health {

inline constexpr double default_xmit_wait_tick_s = 1e-6;

struct CounterRead {
    CounterValues value{};
    std::array<bool, counter_count> present{};
    bool extended = false; // traffic counters from PortCountersExtended
};

// One read from the decoded attributes: the traffic counters come from
// `extended` when given; xmit_wait only when the PMA supports it.
CounterRead make_read(const mad::perf::PortCounters& pc, const std::optional<mad::perf::PortCountersExtended>& extended,
                      bool xmit_wait_supported);

// Bits of the counter in the register it is read from.
unsigned counter_bits(Counter c, bool extended);
std::uint64_t counter_max(Counter c, bool extended);
// CounterSelect bit of a PortCounters counter (xmit_wait: 0, it is in
// CounterSelect2).
std::uint16_t counter_select_bit(Counter c);

// What to clear after a read: the error counters at or above 3/4 of their
// maximum.
struct ClearPlan {
    std::uint16_t counter_select = 0;
    bool any() const { return counter_select != 0; }
};
ClearPlan plan_clear(const CounterRead& read);

struct PortTracker {
    PortCounters counters;
    std::optional<CounterRead> last; // the registers after the last read (and clears)
    std::uint64_t clears = 0;        // Sets that cleared counters, confirmed
};

// What one read changed, for the sweep's log line.
struct ReadEffect {
    bool reset_seen = false;
};

// Folds one read taken at `now` (Unix seconds) into the tracker.
ReadEffect absorb_read(PortTracker& t, const CounterRead& read, double now,
                       double xmit_wait_tick_s = default_xmit_wait_tick_s);
// The Set clearing `plan` was answered: those registers now hold 0.
void note_cleared(PortTracker& t, const ClearPlan& plan);

} // namespace ibsm::health
