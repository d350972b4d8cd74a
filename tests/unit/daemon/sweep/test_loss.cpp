// Bring-up through packet loss (DEVELOPERS.md, "Packet loss"): the fake
// fabric loses requests (not applied) and answers (applied, the answer lost
// on the way back), reported at once as ibsim does or silently as hardware
// does; the SM must still end with every cabled port ACTIVE and complete
// tables, and a lost answer to a state change must not count as a failure.
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/sweep/bringup.h"
#include "daemon/core/events.h"
#include "daemon/program/port_programmer.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "routing/analysis/analyze.h"
#include "topology/gen_pgft.h"

#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <unistd.h>

using namespace ibsm;
using test::bringup_settings;
using test::QuietLogs;
using test::TempDir;
using test::TwoSwitches;
using topology::NodeId;
using topology::NodeType;
using topology::PortRef;

namespace {

// `timeout`: short where a test counts on timeouts (silent loss); where
// every loss is reported at once, long enough that a loaded CI machine (a
// sanitized build sharing two cores) never times out an answered SMP.
mad::TransportOptions lossy_transport(unsigned retries, std::uint64_t seed,
                                      std::chrono::milliseconds timeout = std::chrono::milliseconds(5))
{
    mad::TransportOptions o;
    o.window = 16;
    o.timeout = timeout;
    o.retries = retries;
    o.backoff_base = std::chrono::microseconds(50);
    o.backoff_max = std::chrono::microseconds(1000);
    o.seed = seed;
    return o;
}

// Every cabled port ACTIVE, the LFTs route every CA pair without loops.
void check_complete(const test::FakeFabric& fake, const topology::Fabric& built)
{
    const auto rb = fake.read_back();
    std::size_t active = 0;
    for (const auto& link : rb.fabric.links()) {
        active += rb.fabric.port(link.a).state == topology::PortState::active;
        active += rb.fabric.port(link.b).state == topology::PortState::active;
    }
    CHECK(active == 2 * built.link_count());
    const auto report = test::analyze_read_back(rb);
    const auto& ca = report.of(routing::analysis::PairClass::ca_to_ca);
    CHECK(ca.pairs == built.ca_count() * (built.ca_count() - 1));
    CHECK(ca.unreachable == 0);
    CHECK(ca.loops == 0);
    CHECK(report.of(routing::analysis::PairClass::ca_to_switch).unreachable == 0);
}

} // namespace

TEST_CASE("shows_effect: the state asked for (ARMED also by ACTIVE) and the settings the Set carried", "[loss]")
{
    mad::PortInfo desired;
    desired.lid = Lid(5);
    desired.lmc = 1;
    desired.master_sm_lid = Lid(1);
    desired.operational_vls = 3;
    mad::PortInfo got = desired;
    got.port_state = mad::PortState::armed;
    CHECK(daemon::shows_effect(got, desired, mad::PortState::armed, true));
    CHECK_FALSE(daemon::shows_effect(got, desired, mad::PortState::active, true));
    got.port_state = mad::PortState::active;
    CHECK(daemon::shows_effect(got, desired, mad::PortState::armed, true));
    CHECK(daemon::shows_effect(got, desired, mad::PortState::active, true));
    got.port_state = mad::PortState::init;
    CHECK_FALSE(daemon::shows_effect(got, desired, mad::PortState::armed, true));
    CHECK(daemon::shows_effect(got, desired, mad::PortState::no_change, true));
    got.lid = Lid(6);
    CHECK_FALSE(daemon::shows_effect(got, desired, mad::PortState::no_change, true));
    CHECK(daemon::shows_effect(got, desired, mad::PortState::no_change, false)); // switch port: no LID
    got.operational_vls = 2;
    CHECK_FALSE(daemon::shows_effect(got, desired, mad::PortState::no_change, false));
}

TEST_CASE("a lost answer to ARMED: the resend is refused, the read-back shows ARMED, the port is activated",
          "[loss]")
{
    QuietLogs quiet;
    TempDir dir;
    TwoSwitches t;
    test::FabricLoop loop(t.f, {}, lossy_transport(3, 1));
    // H2's first PortInfo Set (ARMED with its LID) is applied, its answer lost.
    loop.fabric.lose_answer_next(Guid(0x300), 1, mad::attr::port_info);
    daemon::Bringup b(loop.transport, bringup_settings(dir.path, {"minhop"}));
    const auto outcome = loop.run([&] { return b.sweep(); });
    INFO(outcome.reason);
    REQUIRE(outcome.up);
    check_complete(loop.fabric, t.f);
    const auto& c = loop.fabric.counters();
    CHECK(c.lost_answers == 1);
    // The resend found H2 ARMED already and was refused (the fake, like
    // ibsim, moves to ARMED only from INIT) ...
    CHECK(c.bad_status == 1);
    // ... and one Get read the port back: 54 SMPs of the loss-free bring-up
    // (test_fake_fabric.cpp's hand count), one resend, one read.
    CHECK(c.count(mad::Method::set, mad::attr::port_info) == 2 + 20 + 1);
    CHECK(c.count(mad::Method::get, mad::attr::port_info) == 4 + 2 * 5 + 1);
    CHECK(c.total() == 56);
    CHECK(loop.fabric.port_info({t.h2, PortNum(1)}).port_state == mad::PortState::active);
}

TEST_CASE("bring-ups of a 64-host 3-level tree through random loss end with every port ACTIVE", "[loss]")
{
    QuietLogs quiet;
    const auto tree = topology::generate_pgft(topology::kary_ntree(4, 3));
    struct Case {
        const char* name;
        double request, answer;
        bool reported;
        unsigned retries;
    };
    // Reported: ibsim's way (status 110 at once), the cheap drop budget.
    // Silent: hardware's way, every loss a 20 ms timeout, the timeout budget.
    const Case cases[] = {{"10 % each way, reported", 0.10, 0.10, true, 3},
                          {"25 % each way, reported", 0.25, 0.25, true, 3},
                          {"5 % each way, silent", 0.05, 0.05, false, 6}};
    for (const auto& k : cases) {
        for (std::uint64_t seed : {11u, 12u}) {
            DYNAMIC_SECTION(k.name << ", seed " << seed)
            {
                TempDir dir;
                test::FabricLoop loop(tree, {},
                                      lossy_transport(k.retries, seed,
                                                      std::chrono::milliseconds(k.reported ? 1000 : 20)));
                loop.fabric.set_loss({k.request, k.answer, k.reported, seed});
                daemon::Bringup b(loop.transport, bringup_settings(dir.path, {"ftree"}));
                const auto outcome = loop.run([&] { return b.sweep(); });
                INFO(outcome.reason);
                REQUIRE(outcome.up);
                check_complete(loop.fabric, tree);
                const auto& c = loop.fabric.counters();
                // Loss happened, and answers to applied Sets were among it.
                CHECK(c.lost_requests > 0);
                CHECK(c.lost_answers > 0);
                CHECK(loop.transport.counters().failed == c.bad_status); // nothing given up
            }
        }
    }
}

TEST_CASE("a partial outcome is finished by a resume of the failed part, in --once and in the service", "[loss]")
{
    QuietLogs quiet;
    for (bool once : {true, false}) {
        DYNAMIC_SECTION((once ? "run_once" : "run"))
        {
            TempDir dir;
            TwoSwitches t;
            test::FabricLoop loop(t.f, {}, lossy_transport(3, 3));
            // H2's SL2VL table (programmed: vl_tables always) is refused in
            // all three rounds of the sweep.
            loop.fabric.reject_next(Guid(0x300), 3, 0x001c, mad::attr::sl2vl_table);
            auto settings = bringup_settings(dir.path, {"minhop"});
            settings.vls.all_port_tables = true;
            daemon::Bringup b(loop.transport, settings);
            daemon::EventQueue events(loop.io.get_executor());
            daemon::SchedulerSettings ss;
            ss.light_interval = std::chrono::seconds(0);
            ss.quick_retry = std::chrono::milliseconds(5);
            daemon::SweepScheduler scheduler(loop.transport, b, events, nullptr, ss);
            std::vector<daemon::SweepOutcome> outcomes;
            std::uint64_t smps_at_first = 0;
            scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr&) {
                outcomes.push_back(o);
                if (outcomes.size() == 1) smps_at_first = loop.fabric.counters().total();
                if (o.up && !once) events.push(daemon::ShutdownEvent{});
            });
            boost::asio::steady_timer guard(loop.io, std::chrono::seconds(5));
            guard.async_wait([&](auto ec) {
                if (!ec) events.push(daemon::ShutdownEvent{});
            });
            loop.run([&]() -> boost::asio::awaitable<int> {
                if (once)
                    co_await scheduler.run_once();
                else
                    co_await scheduler.run();
                guard.cancel();
                co_return 0;
            });
            REQUIRE(outcomes.size() == 2);
            CHECK_FALSE(outcomes[0].up);
            CHECK(outcomes[0].partial);
            CHECK(outcomes[0].reason == "1 SL2VL/VLArb table(s) not confirmed");
            INFO(outcomes[1].reason);
            CHECK(outcomes[1].up);
            CHECK(scheduler.stats().heavy_sweeps == 1);
            CHECK(scheduler.stats().resumes == 1);
            check_complete(loop.fabric, t.f);
            // The resume sent the one table left and activated the ports (no
            // port was activated on top of incomplete tables): no discovery.
            const auto resume_smps = loop.fabric.counters().total() - smps_at_first;
            CHECK(resume_smps == 1 + 2 * 10);
            CHECK(outcomes[1].smps == resume_smps);
        }
    }
}
