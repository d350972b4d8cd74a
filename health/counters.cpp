#include "health/counters.h"

#include <algorithm>

namespace ibsm::health {
namespace {

namespace sel = mad::perf::select;

constexpr std::array<unsigned, counter_count> narrow_bits{16, 8, 8, 16, 16, 16, 16, 8, 8, 4, 4, 16, 32, 32, 32, 32, 32};
constexpr std::array<std::uint16_t, counter_count> select_bits{
    sel::symbol_errors,          sel::link_error_recovery,         sel::link_downed,
    sel::rcv_errors,             sel::rcv_remote_physical_errors,  sel::rcv_switch_relay_errors,
    sel::xmit_discards,          sel::xmit_constraint_errors,      sel::rcv_constraint_errors,
    sel::local_link_integrity_errors, sel::excessive_buffer_overrun_errors, sel::vl15_dropped,
    sel::xmit_data,              sel::rcv_data,                    sel::xmit_pkts,
    sel::rcv_pkts,               0};

bool is_traffic(Counter c) { return !is_error_counter(c) && c != Counter::xmit_wait; }

void set(CounterRead& r, Counter c, std::uint64_t v)
{
    r.value[index(c)] = v;
    r.present[index(c)] = true;
}

} // namespace

unsigned counter_bits(Counter c, bool extended) { return extended && is_traffic(c) ? 64 : narrow_bits[index(c)]; }

std::uint64_t counter_max(Counter c, bool extended)
{
    const unsigned bits = counter_bits(c, extended);
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

std::uint16_t counter_select_bit(Counter c) { return select_bits[index(c)]; }

CounterRead make_read(const mad::perf::PortCounters& pc, const std::optional<mad::perf::PortCountersExtended>& ext,
                      bool xmit_wait_supported)
{
    CounterRead r;
    set(r, Counter::symbol_errors, pc.symbol_errors);
    set(r, Counter::link_error_recovery, pc.link_error_recovery);
    set(r, Counter::link_downed, pc.link_downed);
    set(r, Counter::rcv_errors, pc.rcv_errors);
    set(r, Counter::rcv_remote_physical_errors, pc.rcv_remote_physical_errors);
    set(r, Counter::rcv_switch_relay_errors, pc.rcv_switch_relay_errors);
    set(r, Counter::xmit_discards, pc.xmit_discards);
    set(r, Counter::xmit_constraint_errors, pc.xmit_constraint_errors);
    set(r, Counter::rcv_constraint_errors, pc.rcv_constraint_errors);
    set(r, Counter::local_link_integrity_errors, pc.local_link_integrity_errors);
    set(r, Counter::excessive_buffer_overrun_errors, pc.excessive_buffer_overrun_errors);
    set(r, Counter::vl15_dropped, pc.vl15_dropped);
    r.extended = ext.has_value();
    set(r, Counter::xmit_data, ext ? ext->xmit_data : pc.xmit_data);
    set(r, Counter::rcv_data, ext ? ext->rcv_data : pc.rcv_data);
    set(r, Counter::xmit_pkts, ext ? ext->xmit_pkts : pc.xmit_pkts);
    set(r, Counter::rcv_pkts, ext ? ext->rcv_pkts : pc.rcv_pkts);
    if (xmit_wait_supported) set(r, Counter::xmit_wait, pc.xmit_wait);
    return r;
}

ClearPlan plan_clear(const CounterRead& read)
{
    ClearPlan plan;
    for (std::size_t i = 0; i < error_counter_count; ++i) {
        const auto c = static_cast<Counter>(i);
        const std::uint64_t max = counter_max(c, false);
        if (read.present[i] && read.value[i] >= max - max / 4) plan.counter_select |= counter_select_bit(c);
    }
    return plan;
}

ReadEffect absorb_read(PortTracker& t, const CounterRead& read, double now, double xmit_wait_tick_s)
{
    PortCounters& pc = t.counters;
    ReadEffect effect;
    const bool first = !t.last.has_value();
    // A port that gained or lost PortCountersExtended (firmware change)
    // starts its traffic counters over from this read.
    const bool width_changed = !first && t.last->extended != read.extended;
    for (std::size_t i = 0; i < counter_count; ++i) {
        pc.supported[i] = read.present[i];
        pc.delta[i] = 0;
        if (!read.present[i]) continue;
        const bool restart = first || !t.last->present[i] || (width_changed && is_traffic(static_cast<Counter>(i)));
        if (restart) {
            if (first || !t.last->present[i]) pc.total[i] += read.value[i];
            continue;
        }
        const std::uint64_t last = t.last->value[i];
        if (read.value[i] >= last) {
            pc.delta[i] = read.value[i] - last;
        } else {
            pc.delta[i] = read.value[i];
            effect.reset_seen = true;
        }
        pc.total[i] += pc.delta[i];
    }
    if (effect.reset_seen) ++pc.resets_seen;
    pc.extended = read.extended;
    pc.interval_s = first ? 0 : now - pc.last_read;
    if (pc.interval_s > 0) {
        const double s = pc.interval_s;
        pc.xmit_bytes_per_s = 4.0 * static_cast<double>(pc.delta[index(Counter::xmit_data)]) / s;
        pc.rcv_bytes_per_s = 4.0 * static_cast<double>(pc.delta[index(Counter::rcv_data)]) / s;
        pc.xmit_pkts_per_s = static_cast<double>(pc.delta[index(Counter::xmit_pkts)]) / s;
        pc.rcv_pkts_per_s = static_cast<double>(pc.delta[index(Counter::rcv_pkts)]) / s;
        pc.xmit_wait_share =
            std::min(1.0, static_cast<double>(pc.delta[index(Counter::xmit_wait)]) * xmit_wait_tick_s / s);
    } else {
        pc.xmit_bytes_per_s = pc.rcv_bytes_per_s = pc.xmit_pkts_per_s = pc.rcv_pkts_per_s = 0;
        pc.xmit_wait_share = 0;
    }
    pc.last_read = now;
    ++pc.reads;
    t.last = read;
    return effect;
}

void note_cleared(PortTracker& t, const ClearPlan& plan)
{
    if (!t.last || !plan.any()) return;
    for (std::size_t i = 0; i < error_counter_count; ++i)
        if (plan.counter_select & counter_select_bit(static_cast<Counter>(i))) t.last->value[i] = 0;
    ++t.clears;
}

} // namespace ibsm::health
