// Counter arithmetic: totals that only grow through saturation, clears
// near saturation and resets by other tools; deltas and rates.
#include "health/counters.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;
namespace perf = ibsm::mad::perf;

namespace {

std::uint64_t total(const PortTracker& t, Counter c) { return t.counters.total[index(c)]; }
std::uint64_t delta(const PortTracker& t, Counter c) { return t.counters.delta[index(c)]; }

CounterRead read_of(const perf::PortCounters& pc, bool xmit_wait = true,
                    std::optional<perf::PortCountersExtended> ext = std::nullopt)
{
    return make_read(pc, ext, xmit_wait);
}

} // namespace

TEST_CASE("the first read keeps what the port counted before, with no delta and no rate")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.symbol_errors = 12;
    pc.xmit_data = 1000;
    absorb_read(t, read_of(pc), 100.0);
    CHECK(total(t, Counter::symbol_errors) == 12);
    CHECK(total(t, Counter::xmit_data) == 1000);
    CHECK(delta(t, Counter::symbol_errors) == 0);
    CHECK(t.counters.interval_s == 0);
    CHECK(t.counters.xmit_bytes_per_s == 0);
    CHECK(t.counters.reads == 1);
    CHECK(t.counters.resets_seen == 0);
}

TEST_CASE("deltas per interval and rates in bytes and packets per second")
{
    PortTracker t;
    perf::PortCounters pc;
    perf::PortCountersExtended ext;
    ext.xmit_data = 1'000;
    ext.rcv_pkts = 10;
    pc.xmit_wait = 0;
    absorb_read(t, read_of(pc, true, ext), 100.0);
    ext.xmit_data = 6'000; // 5000 words = 20000 bytes in 10 s
    ext.rcv_pkts = 110;
    pc.xmit_wait = 2'500'000; // ticks of 1 us: 2.5 s of 10
    pc.link_downed = 2;
    absorb_read(t, read_of(pc, true, ext), 110.0);
    CHECK(t.counters.interval_s == Approx(10.0));
    CHECK(delta(t, Counter::xmit_data) == 5000);
    CHECK(total(t, Counter::xmit_data) == 6000);
    CHECK(t.counters.xmit_bytes_per_s == Approx(2000.0));
    CHECK(t.counters.rcv_pkts_per_s == Approx(10.0));
    CHECK(t.counters.xmit_wait_share == Approx(0.25));
    CHECK(delta(t, Counter::link_downed) == 2);
    CHECK(t.counters.extended);
}

TEST_CASE("a saturated narrow counter stops; the total does not go past what was counted")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.link_downed = 250;
    absorb_read(t, read_of(pc), 0);
    pc.link_downed = 255; // saturated: stays at 255
    absorb_read(t, read_of(pc), 1);
    absorb_read(t, read_of(pc), 2);
    CHECK(total(t, Counter::link_downed) == 255);
    CHECK(delta(t, Counter::link_downed) == 0);
    CHECK(t.counters.resets_seen == 0);
    CHECK(counter_max(Counter::link_downed, false) == 255);
    CHECK(counter_max(Counter::local_link_integrity_errors, false) == 15);
    CHECK(counter_max(Counter::xmit_data, false) == 0xFFFFFFFFu);
    CHECK(counter_max(Counter::xmit_data, true) == ~std::uint64_t{0});
    CHECK(counter_max(Counter::symbol_errors, true) == 0xFFFF); // errors are never 64-bit
}

TEST_CASE("only narrow error counters at 3/4 of their maximum are cleared, and the total carries on")
{
    perf::PortCounters pc;
    pc.symbol_errors = 0xC000 - 1; // just below 3/4 of 0xFFFF
    pc.link_downed = 191;          // 3/4 of 255 rounds to 191.25: 0xFF - 0x3F = 192 is the line
    pc.local_link_integrity_errors = 12;
    pc.xmit_data = 0xFFFFFFFF;     // traffic is never cleared
    pc.xmit_wait = 0xFFFFFFFF;
    auto plan = plan_clear(read_of(pc));
    CHECK(plan.counter_select == perf::select::local_link_integrity_errors);

    pc.symbol_errors = 0xC000;
    pc.link_downed = 192;
    plan = plan_clear(read_of(pc));
    CHECK(plan.counter_select ==
          (perf::select::symbol_errors | perf::select::link_downed | perf::select::local_link_integrity_errors));

    PortTracker t;
    absorb_read(t, read_of(pc), 0);
    note_cleared(t, plan);
    CHECK(t.clears == 1);
    perf::PortCounters after; // registers after the clear, then 5 more symbol errors
    after.symbol_errors = 5;
    after.xmit_data = 0xFFFFFFFF;
    after.xmit_wait = 0xFFFFFFFF;
    absorb_read(t, read_of(after), 1);
    CHECK(total(t, Counter::symbol_errors) == 0xC000 + 5);
    CHECK(delta(t, Counter::symbol_errors) == 5);
    CHECK(total(t, Counter::link_downed) == 192);
    CHECK(t.counters.resets_seen == 0); // our own clear is no reset
}

TEST_CASE("a counter going backwards without our clear is a reset by another tool")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.symbol_errors = 100;
    pc.rcv_errors = 7;
    absorb_read(t, read_of(pc), 0);
    pc.symbol_errors = 3; // perfquery -r, then 3 more
    pc.rcv_errors = 0;
    absorb_read(t, read_of(pc), 1);
    CHECK(t.counters.resets_seen == 1); // once per read, not per counter
    CHECK(delta(t, Counter::symbol_errors) == 3);
    CHECK(total(t, Counter::symbol_errors) == 103);
    CHECK(total(t, Counter::rcv_errors) == 7);
    pc.symbol_errors = 4;
    absorb_read(t, read_of(pc), 2);
    CHECK(t.counters.resets_seen == 1);
    CHECK(total(t, Counter::symbol_errors) == 104);
}

TEST_CASE("missing XmitWait is neither counted nor supported")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.xmit_wait = 12345; // a PMA without the capability may leave anything there
    absorb_read(t, read_of(pc, false), 0);
    pc.xmit_wait = 99999;
    absorb_read(t, read_of(pc, false), 10);
    CHECK_FALSE(t.counters.supported[index(Counter::xmit_wait)]);
    CHECK(total(t, Counter::xmit_wait) == 0);
    CHECK(t.counters.xmit_wait_share == 0);
    CHECK(t.counters.supported[index(Counter::symbol_errors)]);
}

TEST_CASE("without PortCountersExtended the 32-bit data counters are used and saturate")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.xmit_data = 0xFFFFFF00;
    pc.rcv_pkts = 50;
    absorb_read(t, read_of(pc), 0);
    CHECK_FALSE(t.counters.extended);
    pc.xmit_data = 0xFFFFFFFF; // saturated
    pc.rcv_pkts = 80;
    absorb_read(t, read_of(pc), 3);
    CHECK(delta(t, Counter::xmit_data) == 0xFF);
    CHECK(total(t, Counter::xmit_data) == 0xFFFFFFFF);
    CHECK(t.counters.rcv_pkts_per_s == Approx(10.0));
    CHECK_FALSE(plan_clear(read_of(pc)).any());

    // 64-bit counters from the extended attribute take precedence
    perf::PortCountersExtended ext;
    ext.xmit_data = 0x1'0000'0000ULL;
    const auto r = make_read(pc, ext, true);
    CHECK(r.extended);
    CHECK(r.value[index(Counter::xmit_data)] == 0x1'0000'0000ULL);
}

TEST_CASE("a port switching to extended counters restarts its traffic deltas instead of inventing a reset")
{
    PortTracker t;
    perf::PortCounters pc;
    pc.xmit_data = 5000;
    absorb_read(t, read_of(pc), 0);
    perf::PortCountersExtended ext;
    ext.xmit_data = 100; // a different register
    absorb_read(t, read_of(pc, true, ext), 1);
    CHECK(t.counters.resets_seen == 0);
    CHECK(delta(t, Counter::xmit_data) == 0);
    ext.xmit_data = 150;
    absorb_read(t, read_of(pc, true, ext), 2);
    CHECK(delta(t, Counter::xmit_data) == 50);
    CHECK(total(t, Counter::xmit_data) == 5050);
}
