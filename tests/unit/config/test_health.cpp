// The health section: thresholds per error counter, the flapping,
// unresponsive and downshift rules, and their errors with file:line:key.
#include "config/config.h"
#include "config/describe.h"

#include "test_helpers.h"

using namespace ibsm::config;
using namespace config_test;

TEST_CASE("health: defaults report only, with the documented thresholds", "[config][health]")
{
    const HealthConfig h;
    for (const auto& t : h.thresholds) CHECK(t.action == HealthAction::report);
    CHECK(h.thresholds[0] == CounterThreshold{10, HealthAction::report}); // symbol_errors
    CHECK(h.flapping_downs == 5);
    CHECK(h.flapping_window == std::chrono::seconds(60));
    CHECK(h.flapping_action == HealthAction::report);
    CHECK_FALSE(h.disable_port);
}

TEST_CASE("health: a threshold as a number or as a mapping, and the rules", "[config][health]")
{
    const auto c = parse_config("health:\n"
                                "  symbol_errors: 25\n"
                                "  link_downed: {per_interval: 2, action: isolate}\n"
                                "  flapping: {downs: 3, window_s: 30, action: isolate}\n"
                                "  unresponsive: {timeouts: 2, sweeps: 4}\n"
                                "  downshift: off\n"
                                "  disable_port: true\n",
                                "t.yaml");
    CHECK(c.health.thresholds[0] == CounterThreshold{25, HealthAction::report});
    CHECK(c.health.thresholds[2] == CounterThreshold{2, HealthAction::isolate});
    CHECK(c.health.flapping_downs == 3);
    CHECK(c.health.flapping_window == std::chrono::seconds(30));
    CHECK(c.health.flapping_action == HealthAction::isolate);
    CHECK(c.health.unresponsive_timeouts == 2);
    CHECK(c.health.unresponsive_sweeps == 4);
    CHECK(c.health.unresponsive_action == HealthAction::report);
    CHECK(c.health.downshift_action == HealthAction::off);
    CHECK(c.health.disable_port);
    // --print-config's output reads back to the same configuration.
    CHECK(parse_config(describe(c), "printed") == c);
}

TEST_CASE("health: errors name file, line and key", "[config][health]")
{
    CHECK(parse_error("health:\n  flapping: {downs: 5, action: drop}\n") ==
          "t.yaml:2: key 'health.flapping.action': expected off, report or isolate, got 'drop'");
    CHECK(parse_error("health:\n\n  SymbolErrorCounter: 3\n") ==
          "t.yaml:3: key 'health.SymbolErrorCounter': 'SymbolErrorCounter' is the IBA name; write 'symbol_errors'");
    CHECK(parse_error("health:\n  flapping: {downs: 0}\n") ==
          "t.yaml:2: key 'health.flapping.downs': expected an integer in 1..1000, got '0'");
    CHECK(parse_error("health:\n  unresponsive:\n    sweeps: 2\n    timeouts: 3\n") ==
          "t.yaml:4: key 'health.unresponsive.timeouts': 3 timeouts cannot happen in the last 2 sweeps; make "
          "timeouts at most sweeps");
    CHECK(parse_error("health:\n  symbol_errors: {per_interval: 1, when: now}\n")
              .rfind("t.yaml:2: key 'health.symbol_errors.when': unknown key", 0) == 0);
}
