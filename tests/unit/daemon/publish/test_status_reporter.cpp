// The status reporter (daemon/publish/status_reporter.h) on the fake fabric: a
// bring-up, a pulled cable and its re-route end up in state.json,
// metrics.prom and summary.txt with the scheduler's, transport's and trap
// receiver's own counts; the exit leaves state "stopped".
#include "../support/fabric_loop.h"
#include "../support/fake_fabric_support.h"

#include "daemon/publish/dump_writer.h"
#include "daemon/publish/status_reporter.h"
#include "daemon/sweep/sweep_scheduler.h"
#include "daemon/sweep/trap_receiver.h"

#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ibsm;
using ibsm::test::QuietLogs;
using ibsm::test::TempDir;

namespace {

std::string slurp(const std::filesystem::path& p)
{
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST_CASE("status files follow a bring-up and a re-route, and say stopped at the end", "[status]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f, test::FakeFabricOptions{});
    daemon::EventQueue events(loop.io.get_executor());
    daemon::TrapReceiver traps(loop.transport, events);
    loop.transport.set_unsolicited_handler([&](const mad::RawReceive& r) { traps.on_trap(r); });
    daemon::Bringup b(loop.transport, test::bringup_settings(dir.path));
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    daemon::SweepScheduler scheduler(loop.transport, b, events, &traps, ss);
    daemon::DumpWriter dumps(dir.path, config::DumpConfig{});
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        if (!o.unchanged && snap && snap->generation == o.generation) dumps.publish(snap);
    });
    daemon::StatusReporter status(loop.io.get_executor(), loop.transport, scheduler, &traps, dumps, "0x0000000000000100");
    scheduler.on_event([&](const daemon::Event& e) { status.on_event(e); });
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) { status.on_outcome(o, snap); });
    std::vector<daemon::DaemonStatus> seen;
    scheduler.on_outcome([&](const daemon::SweepOutcome&, const daemon::SnapshotPtr&) {
        seen.push_back(status.current());
        if (seen.size() == 1)
            loop.fabric.unlink({t.s2, PortNum(2)}); // H3's cable: trap 128 from S2
        else if (seen.back().last_sweep.kind == "re-route")
            events.push(daemon::ShutdownEvent{});
    });
    status.start(std::chrono::milliseconds(10));
    boost::asio::steady_timer guard(loop.io, std::chrono::seconds(10));
    guard.async_wait([&](auto ec) {
        if (!ec) events.push(daemon::ShutdownEvent{});
    });
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        guard.cancel();
        status.stop();
        co_return 0;
    });

    REQUIRE(seen.size() >= 2);
    const auto& up = seen[0];
    CHECK(up.state == "up");
    CHECK(up.generation == 1);
    CHECK(up.last_sweep.kind == "heavy sweep");
    CHECK(up.nodes == 6);
    CHECK(up.lid_ports == 6);
    CHECK(up.sm_lid != 0);
    CHECK(up.last_sweep.phases.front().name == "discover");
    const auto& rr = seen.back();
    CHECK(rr.state == "up");
    CHECK(rr.generation == 2);
    CHECK(rr.cas == 3);
    CHECK(rr.counters.heavy_sweeps == 1);
    CHECK(rr.counters.reroutes == 1);
    CHECK(rr.counters.traps == traps.total());
    CHECK(rr.counters.traps >= 1);
    REQUIRE(!rr.traps.empty());
    CHECK(rr.traps.front().number == 128);
    CHECK(rr.counters.smp_requests == loop.transport.counters().requests);
    bool trap_event = false;
    for (const auto& e : rr.events) trap_event |= e.text.rfind("trap 128 (link state change) from LID ", 0) == 0;
    CHECK(trap_event);
    CHECK(rr.events.back().text.rfind("re-route: up, generation 2, ", 0) == 0);
    for (const auto& p : rr.phase_totals)
        if (p.name == "lids") CHECK(p.runs == 2);

    // What the files say after the exit.
    status.publish_stopped();
    dumps.drain();
    const auto state = daemon::status_from_json(slurp(dir.path / "state.json"));
    CHECK(state.state == "stopped");
    CHECK(state.generation == 2);
    CHECK(state.pid == static_cast<long>(::getpid()));
    CHECK(state.events.back().text == "ibsmd stopped");
    const std::string prom = slurp(dir.path / "metrics.prom");
    CHECK(prom.find("ibsmd_generation 2\n") != std::string::npos);
    CHECK(prom.find("ibsmd_traps_total{number=\"128\"} " + std::to_string(traps.counts().at(128).received) + "\n") !=
          std::string::npos);
    CHECK(prom.find("ibsmd_reroutes_total 1\n") != std::string::npos);
    const std::string summary = slurp(dir.path / "summary.txt");
    CHECK(summary.rfind("ibsmd subnet summary", 0) == 0);
    CHECK(summary.find("generation:   2 (re-route)") != std::string::npos);
    CHECK(summary.find("last events:\n") != std::string::npos);
    CHECK(summary.find("ibsmd stopped\n") != std::string::npos);
    // No temporary files left beside them (node_exporter reads *.prom only,
    // but a stray temp file would be a leak).
    for (const auto& e : std::filesystem::directory_iterator(dir.path))
        CHECK(e.path().filename().string().find(".tmp") == std::string::npos);
}

TEST_CASE("the port rows are not rebuilt while a sweep runs; the sweep's outcome rebuilds them", "[status]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f, test::FakeFabricOptions{});
    daemon::EventQueue events(loop.io.get_executor());
    daemon::Bringup b(loop.transport, test::bringup_settings(dir.path));
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    daemon::SweepScheduler scheduler(loop.transport, b, events, nullptr, ss);
    daemon::DumpWriter dumps(dir.path, config::DumpConfig{});
    daemon::StatusReporter status(loop.io.get_executor(), loop.transport, scheduler, nullptr, dumps, "0x0000000000000100");
    unsigned built = 0, built_busy = 0, ticks_busy = 0;
    status.set_port_source(
        [&] {
            ++built;
            built_busy += scheduler.busy();
            return std::vector<health::PortHealth>(1);
        },
        [] { return daemon::StatusPerf{}; });
    unsigned built_at_outcome = 0;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        status.on_outcome(o, snap);
        built_at_outcome = built;
        events.push(daemon::ShutdownEvent{});
    });
    // A counter sweep ending and a scrape, on every turn of the loop the
    // bring-up leaves free.
    // `done`, not only the cancel, ends the ticks: a wait that has already
    // completed when the sweep ends is not cancelled, and would re-arm for
    // ever.
    boost::asio::steady_timer tick(loop.io);
    bool done = false;
    std::function<void()> arm = [&] {
        tick.expires_after(std::chrono::microseconds(200));
        tick.async_wait([&](auto ec) {
            if (ec || done) return;
            if (scheduler.busy()) {
                ++ticks_busy;
                status.on_port_counters();
                (void)status.current();
            }
            arm();
        });
    };
    arm();
    status.start(std::chrono::milliseconds(1));
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        done = true;
        tick.cancel();
        status.stop();
        co_return 0;
    });
    REQUIRE(ticks_busy > 0);
    CHECK(built_busy == 0);
    CHECK(built_at_outcome == 2); // at start, and for the outcome
    CHECK(status.current().perf.ports_monitored == 1);
}

TEST_CASE("a status tick during a sweep writes state.json and leaves metrics.prom to the outcome", "[status]")
{
    QuietLogs quiet;
    TempDir dir;
    test::TwoSwitches t;
    test::FabricLoop loop(t.f, test::FakeFabricOptions{});
    daemon::EventQueue events(loop.io.get_executor());
    daemon::Bringup b(loop.transport, test::bringup_settings(dir.path));
    daemon::SchedulerSettings ss;
    ss.light_interval = std::chrono::seconds(0);
    daemon::SweepScheduler scheduler(loop.transport, b, events, nullptr, ss);
    daemon::DumpWriter dumps(dir.path, config::DumpConfig{});
    daemon::StatusReporter status(loop.io.get_executor(), loop.transport, scheduler, nullptr, dumps, "0x0000000000000100");
    std::uint64_t metrics_at_outcome = 0, published_at_outcome = 0;
    scheduler.on_outcome([&](const daemon::SweepOutcome& o, const daemon::SnapshotPtr& snap) {
        status.on_outcome(o, snap);
        metrics_at_outcome = status.metrics_published();
        published_at_outcome = status.published();
        events.push(daemon::ShutdownEvent{});
    });
    // Ticks on every turn of the loop: the bring-up's SMP counters change
    // between them, so each one publishes.
    status.start(std::chrono::milliseconds(0));
    loop.run([&]() -> boost::asio::awaitable<int> {
        co_await scheduler.run();
        status.stop();
        co_return 0;
    });
    dumps.drain();
    CHECK(published_at_outcome > 2); // state.json went out during the sweep
    CHECK(metrics_at_outcome == 2);  // metrics.prom at start and for the outcome only
    // The outcome's metrics.prom was written, whatever tick came after it.
    const std::string prom = slurp(dir.path / "metrics.prom");
    CHECK(prom.find("ibsmd_generation 1\n") != std::string::npos);
}
