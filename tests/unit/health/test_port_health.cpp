#include "health/port_health.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::health;

TEST_CASE("counter names: snake case and IBA names both resolve, unknown ones do not")
{
    for (std::size_t i = 0; i < counter_count; ++i) {
        const auto c = static_cast<Counter>(i);
        CHECK(counter_from_name(counter_name(c)) == c);
        CHECK(counter_from_name(counter_iba_name(c)) == c);
    }
    CHECK(counter_from_name("symbolerrorcounter") == Counter::symbol_errors);
    CHECK(counter_name(Counter::xmit_wait) == "xmit_wait");
    CHECK_FALSE(counter_from_name("SymbolErrors"));
    CHECK_FALSE(counter_from_name(""));
    CHECK(is_error_counter(Counter::vl15_dropped));
    CHECK_FALSE(is_error_counter(Counter::xmit_data));
}

TEST_CASE("worst first: isolated, refused, reported, then error deltas, downshift, totals, traffic, id")
{
    auto row = [](std::uint64_t node, HealthState s) {
        PortHealth r;
        r.id = PortId{Guid(node), PortNum(1)};
        r.state = s;
        return r;
    };
    std::vector<PortHealth> rows;
    rows.push_back(row(1, HealthState::ok));
    rows.push_back(row(2, HealthState::reported));
    rows.push_back(row(3, HealthState::isolated));
    rows.push_back(row(4, HealthState::isolation_refused));
    auto noisy = row(5, HealthState::ok);
    PortCounters seven;
    seven.delta[index(Counter::symbol_errors)] = 7;
    noisy.counters = seven;
    rows.push_back(noisy);
    auto slow = row(6, HealthState::ok);
    LinkCheck downshifted;
    downshifted.downshifted = true;
    slow.link = downshifted;
    rows.push_back(slow);
    auto old_errors = row(7, HealthState::ok);
    PortCounters three;
    three.total[index(Counter::link_downed)] = 3;
    old_errors.counters = three;
    rows.push_back(old_errors);
    sort_worst_first(rows);
    std::vector<std::uint64_t> order;
    for (const auto& r : rows) order.push_back(r.id.node.value());
    CHECK(order == std::vector<std::uint64_t>{3, 4, 2, 5, 6, 7, 1});
}
