// The snapshot's health names: what state.json, metrics.prom and `ibsm
// status` print for each generation.
#include "daemon/core/subnet.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ibsm;

TEST_CASE("subnet health names", "[core]")
{
    CHECK(std::string(daemon::to_string(daemon::SubnetHealth::up)) == "up");
    CHECK(std::string(daemon::to_string(daemon::SubnetHealth::degraded)) == "degraded");
    CHECK(std::string(daemon::to_string(daemon::SubnetHealth::down)) == "down");
    CHECK(std::string(daemon::to_string(static_cast<daemon::SubnetHealth>(7))) == "?");
    // A snapshot starts down, generation 0, with nothing routed.
    const daemon::SubnetSnapshot s;
    CHECK(s.health == daemon::SubnetHealth::down);
    CHECK(s.generation == 0);
    CHECK(s.tables == nullptr);
}
