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

TEST_CASE("health: the unhealthy-node conditions, the isolation budget and dry_run", "[config][health]")
{
    const HealthConfig d;
    CHECK(d.reboot == HealthCountRule{10, std::chrono::seconds(900), HealthAction::report});
    CHECK(d.noisy == HealthCountRule{250, std::chrono::seconds(60), HealthAction::report});
    CHECK(d.set_errors == HealthCountRule{5, std::chrono::seconds(600), HealthAction::off});
    CHECK(d.illegal == HealthCountRule{1, std::chrono::seconds(600), HealthAction::report});
    CHECK(d.isolation_budget_percent == 20);
    CHECK_FALSE(d.dry_run);

    const auto c = parse_config("health:\n"
                                "  reboot: {count: 3, window_s: 120, action: no_discover}\n"
                                "  noisy: {traps: 40, action: isolate}\n"
                                "  set_errors: {count: 2, window_s: 30, action: report}\n"
                                "  illegal: {action: off}\n"
                                "  isolation_budget_percent: 35\n"
                                "  dry_run: true\n",
                                "t.yaml");
    CHECK(c.health.reboot == HealthCountRule{3, std::chrono::seconds(120), HealthAction::no_discover});
    CHECK(c.health.noisy == HealthCountRule{40, std::chrono::seconds(60), HealthAction::isolate});
    CHECK(c.health.set_errors == HealthCountRule{2, std::chrono::seconds(30), HealthAction::report});
    CHECK(c.health.illegal == HealthCountRule{1, std::chrono::seconds(600), HealthAction::off});
    CHECK(c.health.isolation_budget_percent == 35);
    CHECK(c.health.dry_run);
    CHECK(parse_config(describe(c), "printed") == c);
    CHECK(describe(c).find("noisy: {traps: 40, window_s: 60, action: isolate}") != std::string::npos);
}

TEST_CASE("health: errors of the unhealthy-node conditions name file, line and key", "[config][health]")
{
    CHECK(parse_error("health:\n  flapping: {action: no_discover}\n") ==
          "t.yaml:2: key 'health.flapping.action': no_discover judges a node: only health.reboot, noisy, "
          "set_errors and illegal take it; expected off, report or isolate");
    CHECK(parse_error("health:\n  reboot: {action: drop}\n") ==
          "t.yaml:2: key 'health.reboot.action': expected off, report, isolate or no_discover, got 'drop'");
    CHECK(parse_error("health:\n  noisy: {count: 5}\n").rfind("t.yaml:2: key 'health.noisy.count': unknown key", 0) ==
          0);
    CHECK(parse_error("health:\n  set_errors: {count: 0}\n") ==
          "t.yaml:2: key 'health.set_errors.count': expected an integer in 1..1000000, got '0'");
    CHECK(parse_error("health:\n  isolation_budget_percent: 120\n") ==
          "t.yaml:2: key 'health.isolation_budget_percent': expected an integer in 0..100, got '120'");
    CHECK(parse_error("health:\n  dry_run: maybe\n").rfind("t.yaml:2: key 'health.dry_run':", 0) == 0);
}
