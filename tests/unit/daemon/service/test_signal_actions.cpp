// What SIGHUP and SIGTERM do (daemon/service/signal_actions.h), in order,
// with the wings themselves over a port that never answers: a reload tells
// systemd RELOADING=1 before the configuration is read again, then asks for
// the heavy sweep; a stop tells systemd STOPPING=1 while the control socket
// still serves, then closes it, stops the scheduler and fails every SMP
// still pending.
#include "../support/temp_dir.h"
#include "daemon/control/control_server.h"
#include "daemon/service/settings.h"
#include "daemon/service/signal_actions.h"
#include "daemon/sm/sm_election.h"
#include "daemon/sm/sm_info_responder.h"
#include "daemon/sweep/trap_receiver.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

// Takes every SMP and answers none: they stay pending until the transport stops.
class SilentPort final : public mad::MadPort {
public:
    bool send(const mad::Smp&, Lid, std::uint32_t) override { return true; }
    std::optional<mad::RawReceive> try_receive() override { return std::nullopt; }
    int fd() const override { return -1; }
    bool pollable_by_reactor() const override { return false; }
    bool wait_readable(int) override { return false; }
    bool send_response(const mad::Smp&, const mad::RawReceive&) override { return false; }
};

// The wings a reload and a stop reach, built as main.cpp builds them.
struct Sm {
    test::TempDir dir;
    daemon::Options opts;
    config::Config cfg;
    boost::asio::io_context io;
    SilentPort port;
    mad::Transport transport{io, port, mad::TransportOptions{}};
    daemon::EventQueue events{io.get_executor()};
    daemon::TrapReceiver traps{transport, events};
    daemon::SmInfoResponder responder{transport, Guid(0x1), 0};
    std::optional<daemon::SmElection> election;
    std::optional<daemon::Bringup> bringup;
    std::optional<daemon::SweepScheduler> scheduler;
    std::optional<daemon::DumpWriter> dumps;
    std::optional<daemon::HealthMonitor> health;
    std::optional<daemon::Reloader> reloader;
    std::vector<std::string> sent; // to systemd
    std::function<void()> on_send;
    daemon::ServiceNotifier notifier{io.get_executor(),
                                     [this](const std::string& m) {
                                         sent.push_back(m);
                                         if (on_send) on_send();
                                     },
                                     std::chrono::microseconds(0)};

    explicit Sm(const std::string& yaml)
    {
        configure(yaml);
        opts.config_file = (dir.path / "ibsmd.yaml").string();
        cfg = daemon::effective_config(opts);
        election.emplace(transport, responder, events, daemon::election_settings(cfg, Guid(0x1)));
        bringup.emplace(transport, daemon::bringup_settings(cfg));
        scheduler.emplace(transport, *bringup, events, &traps, daemon::scheduler_settings(cfg));
        dumps.emplace(cfg.state_dir, cfg.dump);
        health.emplace(cfg.state_dir, daemon::health_policy(cfg));
        reloader.emplace(opts, cfg, daemon::Reloader::Wings{*bringup, *scheduler, *dumps, *election, *health});
    }
    void configure(const std::string& yaml)
    {
        std::ofstream(dir.path / "ibsmd.yaml") << "state_dir: " << (dir.path / "state").string() << "\n" << yaml;
    }
    std::vector<daemon::Event> queued()
    {
        std::vector<daemon::Event> out;
        const auto n = events.size();
        boost::asio::co_spawn(
            io,
            [&]() -> boost::asio::awaitable<void> {
                for (std::size_t i = 0; i < n; ++i) out.push_back(co_await events.pop());
            },
            boost::asio::detached);
        io.run_for(std::chrono::milliseconds(5)); // the transport's receive loop may run: never poll() dry
        io.restart();
        return out;
    }
};

} // namespace

TEST_CASE("SIGHUP: RELOADING=1 first, then the configuration read again and applied, then the heavy sweep",
          "[service][signals]")
{
    spdlog::set_level(spdlog::level::off);
    Sm sm("sweep:\n  interval_s: 5\n");
    REQUIRE(sm.reloader->running().sweep.interval == std::chrono::seconds(5));
    std::vector<std::chrono::seconds> interval_at_send;
    sm.on_send = [&] { interval_at_send.push_back(sm.reloader->running().sweep.interval); };
    sm.configure("sweep:\n  interval_s: 7\n");

    daemon::ReloadSequence{sm.notifier, *sm.reloader, sm.events}();
    REQUIRE(sm.sent.size() == 1);
    CHECK(sm.sent[0].starts_with("RELOADING=1\n"));
    CHECK(interval_at_send == std::vector<std::chrono::seconds>{std::chrono::seconds(5)}); // before the reading
    CHECK(sm.reloader->running().sweep.interval == std::chrono::seconds(7));
    auto events = sm.queued();
    REQUIRE(events.size() == 1);
    CHECK(std::holds_alternative<daemon::ReloadEvent>(events[0]));

    // A reload refused keeps the running configuration; the sweep is asked for all the same.
    sm.configure("sweep:\n  interval_s: nine\n");
    daemon::ReloadSequence{sm.notifier, *sm.reloader, sm.events}();
    CHECK(sm.reloader->running().sweep.interval == std::chrono::seconds(7));
    events = sm.queued();
    REQUIRE(events.size() == 1);
    CHECK(std::holds_alternative<daemon::ReloadEvent>(events[0]));
}

TEST_CASE("SIGTERM: STOPPING=1 while the socket serves, then the socket closed, the scheduler stopped, SMPs failed",
          "[service][signals]")
{
    spdlog::set_level(spdlog::level::off);
    Sm sm("");
    daemon::EventFeed feed;
    const auto socket = sm.dir.path / "control.sock";
    daemon::control::ControlServer control(sm.io, socket.string(), {}, feed);
    control.start();
    sm.transport.start();
    std::optional<mad::SmpResponse> pending;
    sm.transport.async_request(
        mad::SmpRequest{mad::make_lid_request(mad::Method::get, Lid(5), mad::attr::node_info, 0, 0), Lid(5)},
        [&](mad::SmpResponse r) { pending = std::move(r); });
    sm.io.run_for(std::chrono::milliseconds(5));
    sm.io.restart();
    REQUIRE(sm.transport.smps_pending() == 1);
    std::vector<bool> socket_at_send;
    sm.on_send = [&] { socket_at_send.push_back(fs::exists(socket)); };

    daemon::StopSequence{sm.notifier, control, *sm.scheduler, sm.transport}();
    REQUIRE(sm.sent.size() == 1);
    CHECK(sm.sent[0].starts_with("STOPPING=1"));
    CHECK(socket_at_send == std::vector<bool>{true});
    CHECK_FALSE(fs::exists(socket));
    const auto events = sm.queued();
    REQUIRE(events.size() == 1);
    CHECK(std::holds_alternative<daemon::ShutdownEvent>(events[0]));
    REQUIRE(pending);
    CHECK(pending->failure == mad::SmpFailure::shutdown);
    CHECK(sm.transport.smps_pending() == 0);
}
