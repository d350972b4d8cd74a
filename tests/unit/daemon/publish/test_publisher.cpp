// The publisher's rules (daemon/publish/publisher.h): which readers a sweep
// outcome reaches, given the snapshot then current. Dumps follow every new
// generation; the SA and multicast only one the switches confirmed (up);
// standing by withdraws the SA; a stale or missing snapshot reaches no one.
#include "daemon/publish/publisher.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using daemon::SaAction;

namespace {

daemon::SubnetSnapshot snapshot(std::uint64_t generation)
{
    daemon::SubnetSnapshot s;
    s.generation = generation;
    return s;
}

daemon::SweepOutcome outcome(std::uint64_t generation, bool up)
{
    daemon::SweepOutcome o;
    o.generation = generation;
    o.up = up;
    return o;
}

} // namespace

TEST_CASE("publisher: an up generation reaches the dumps, the SA (with InformInfo) and multicast", "[publisher]")
{
    const auto snap = snapshot(7);
    auto o = outcome(7, true);
    auto d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);

    o.degraded = true; // up on tables that failed verification: still the switches' tables
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);

    o = outcome(7, true);
    o.kind = daemon::SweepKind::reroute;
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::publish);
    CHECK(d.mcast);
}

TEST_CASE("publisher: a generation not up is dumped, the SA keeps the last confirmed one", "[publisher]")
{
    const auto snap = snapshot(8);
    auto o = outcome(8, false);
    o.partial = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::keep);
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: an unchanged re-route is not dumped and moves no tree; the SA takes it again",
          "[publisher]")
{
    const auto snap = snapshot(9);
    auto o = outcome(9, true);
    o.kind = daemon::SweepKind::reroute;
    o.unchanged = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::publish); // the same snapshot: InformInfo finds no difference
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: a stale or missing snapshot reaches no reader", "[publisher]")
{
    const auto older = snapshot(4);
    auto o = outcome(5, true);
    for (const daemon::SubnetSnapshot* snap : {&older, static_cast<const daemon::SubnetSnapshot*>(nullptr)}) {
        auto d = daemon::decide_publish(o, snap);
        CHECK_FALSE(d.dumps);
        CHECK(d.sa == SaAction::keep);
        CHECK_FALSE(d.mcast);
    }
    // A failed sweep publishes no generation (0): the last one stays everywhere.
    auto failed = outcome(0, false);
    auto d = daemon::decide_publish(failed, &older);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::keep);
    CHECK_FALSE(d.mcast);
}

TEST_CASE("publisher: standing by withdraws the SA and moves no tree", "[publisher]")
{
    const auto snap = snapshot(3);
    auto o = outcome(0, false);
    o.standby = true;
    auto d = daemon::decide_publish(o, &snap);
    CHECK_FALSE(d.dumps);
    CHECK(d.sa == SaAction::withdraw);
    CHECK_FALSE(d.mcast);
    CHECK(daemon::decide_publish(o, nullptr).sa == SaAction::withdraw);

    // Even an outcome that names the current generation: another SM is master.
    o = outcome(3, true);
    o.standby = true;
    d = daemon::decide_publish(o, &snap);
    CHECK(d.dumps);
    CHECK(d.sa == SaAction::withdraw);
    CHECK_FALSE(d.mcast);
}
