// What each control command does to the running SM
// (daemon/service/control_handlers.h), through the dispatcher as the socket
// runs it: status is state.json's object with no text in between, ports and
// port isolate/clear are the health monitor's, resweep queues the sweep it
// names, log-level changes the level and logs it, mkey rotate queues a heavy
// sweep only when a rotation starts, mkey show is the key book's view.
#include "../support/temp_dir.h"
#include "daemon/control/dispatcher.h"
#include "daemon/service/control_handlers.h"
#include "daemon/service/settings.h"
#include "health/port_health_json.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ibsm;
using health::PortId;
using topology::NodeType;
using topology::PortRef;
namespace fs = std::filesystem;

namespace {

// L1 and L2 joined by two links; H1 (the SM) on L1/3, H2 on L2/3.
daemon::SnapshotPtr snapshot()
{
    auto s = std::make_shared<daemon::SubnetSnapshot>();
    auto& f = s->found.fabric;
    auto l1 = f.add_node(NodeType::switch_node, Guid(0x11), 3, "L1");
    auto l2 = f.add_node(NodeType::switch_node, Guid(0x12), 3, "L2");
    auto h1 = f.add_node(NodeType::ca, Guid(0x1), 1, "H1");
    auto h2 = f.add_node(NodeType::ca, Guid(0x2), 1, "H2");
    f.connect({l1, PortNum(1)}, {l2, PortNum(1)});
    f.connect({l1, PortNum(2)}, {l2, PortNum(2)});
    f.connect({l1, PortNum(3)}, {h1, PortNum(1)});
    f.connect({l2, PortNum(3)}, {h2, PortNum(1)});
    s->found.sm_port = PortRef{h1, PortNum(1)};
    s->generation = 1;
    s->health = daemon::SubnetHealth::up;
    return s;
}

// A root-only secret file (the daemon's rule for it).
void write_secret(const fs::path& path, const std::string& hex)
{
    std::ofstream(path) << hex << "\n";
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
}

// The wings the handlers act on, as main.cpp hands them over.
struct Sm {
    test::TempDir dir;
    boost::asio::io_context io;
    daemon::EventQueue events{io.get_executor()};
    daemon::HealthMonitor health{dir.path, health::HealthPolicy{}, [] { return 1000.0; }};
    config::Config running;
    daemon::MkeyBook mkeys;
    daemon::DaemonStatus status;
    daemon::control::ControlHandlers handlers =
        daemon::control_handlers({[this] { return status; }, health, events, mkeys, running});

    explicit Sm(daemon::MkeySettings m = {}) : mkeys(std::move(m)) { health.on_outcome(daemon::SweepOutcome{}, snapshot()); }

    nlohmann::json run(std::string_view line)
    {
        const auto parsed = daemon::control::parse_request(line);
        return daemon::control::dispatch(std::get<daemon::control::Request>(parsed), handlers).response;
    }
    // The events the handlers queued, oldest first.
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
        io.run();
        io.restart();
        return out;
    }
};

// The default logger writing to a string at every level, for the test's life.
class Log {
public:
    Log() : previous_(spdlog::default_logger())
    {
        auto logger = std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_));
        logger->set_level(spdlog::level::info);
        spdlog::set_default_logger(logger);
    }
    ~Log() { spdlog::set_default_logger(previous_); }
    std::string text() const { return out_.str(); }

private:
    std::shared_ptr<spdlog::logger> previous_;
    std::ostringstream out_;
};

} // namespace

TEST_CASE("control: status answers state.json's object itself, node descriptions made UTF-8 on the wire",
          "[service][control]")
{
    Sm sm;
    sm.status.pid = 4242;
    sm.status.state = "up";
    sm.status.generation = 7;
    sm.status.reason = "switch L1";
    sm.status.events.push_back(daemon::StatusEvent{12.5, "heavy sweep: up"});
    auto answer = sm.run(R"({"id": 1, "cmd": "status"})");
    REQUIRE(answer.at("ok") == true);
    const auto& status = answer.at("status");
    // What state.json says, field for field.
    CHECK(status == nlohmann::json::parse(daemon::to_state_json(sm.status)));
    CHECK(status.at("pid") == 4242);
    CHECK(status.at("generation") == 7);
    CHECK(status.at("events").at(0).at("text") == "heavy sweep: up");
    // The answer line replaces bytes that are not UTF-8, as state.json does.
    sm.status.reason = "switch \xff\xfe";
    answer = sm.run(R"({"id": 1, "cmd": "status"})");
    const auto line = nlohmann::json::parse(daemon::control::to_line(answer));
    CHECK(line.at("status").at("reason") == "switch \xef\xbf\xbd\xef\xbf\xbd");
    CHECK(line.at("status") == nlohmann::json::parse(daemon::to_state_json(sm.status)));
}

TEST_CASE("control: ports are the health monitor's rows; isolate and clear are its commands", "[service][control]")
{
    spdlog::set_level(spdlog::level::off);
    Sm sm;
    const auto ports = sm.run(R"({"cmd": "ports"})");
    REQUIRE(ports.at("ok") == true);
    const auto rows = sm.health.rows();
    CHECK(ports.at("total") == rows.size());
    REQUIRE(ports.at("ports").size() == rows.size());
    CHECK(ports.at("ports").at(0) == health::to_json(rows.at(0)));

    const auto isolated = sm.run(R"({"cmd": "port", "action": "isolate", "node_guid": "0x11", "port": 1})");
    INFO(isolated.dump());
    CHECK(isolated.at("ok") == true);
    CHECK(sm.health.isolated() == std::set<PortId>{PortId{Guid(0x11), PortNum(1)}});
    // H2's only link: the monitor refuses, with its reason.
    const auto refused = sm.run(R"({"cmd": "port", "action": "isolate", "node_guid": "0x12", "port": 3})");
    CHECK(refused.at("ok") == false);
    CHECK(refused.at("error").get<std::string>().starts_with("isolate 0x0000000000000012 port 3 refused: "));
    CHECK(sm.health.isolated().size() == 1);

    CHECK(sm.run(R"({"cmd": "port", "action": "clear", "node_guid": "0x11", "port": 1})").at("ok") == true);
    CHECK(sm.health.isolated().empty());
    CHECK(sm.run(R"({"cmd": "port", "action": "clear", "node_guid": "0x11", "port": 1})").at("ok") == false);
}

TEST_CASE("control: resweep queues a light sweep, --heavy a heavy one, each naming the command", "[service][control]")
{
    Sm sm;
    CHECK(sm.run(R"({"cmd": "resweep"})").at("result") == "light sweep queued");
    CHECK(sm.run(R"({"cmd": "resweep", "heavy": true})").at("result") == "heavy sweep queued");
    const auto events = sm.queued();
    REQUIRE(events.size() == 2);
    REQUIRE(std::holds_alternative<daemon::LightSweepEvent>(events[0]));
    CHECK(std::get<daemon::LightSweepEvent>(events[0]).reason == "requested by ibsm resweep");
    REQUIRE(std::holds_alternative<daemon::HeavySweepEvent>(events[1]));
    CHECK(std::get<daemon::HeavySweepEvent>(events[1]).reason == "requested by ibsm resweep --heavy");
}

TEST_CASE("control: log-level sets the level from now on, answers old and new, and logs the change",
          "[service][control]")
{
    Log log;
    Sm sm;
    const auto answer = sm.run(R"({"cmd": "log-level", "level": "debug"})");
    CHECK(answer.at("old") == "info");
    CHECK(answer.at("new") == "debug");
    CHECK(spdlog::default_logger()->level() == spdlog::level::debug);
    CHECK(log.text().find("log level info -> debug (ibsm log-level)") != std::string::npos);
    CHECK(sm.run(R"({"cmd": "log-level", "level": "warn"})").at("old") == "debug");
    CHECK(spdlog::default_logger()->level() == spdlog::level::warn);
}

TEST_CASE("control: mkey rotate queues the heavy sweep only when the rotation starts", "[service][control][mkey]")
{
    spdlog::set_level(spdlog::level::off);
    REQUIRE(geteuid() == 0); // the secret file must be root's, as the daemon requires
    {
        Sm off; // M_Key off: refused, nothing queued
        const auto answer = off.run(R"({"cmd": "mkey", "action": "rotate"})");
        CHECK(answer.at("ok") == false);
        CHECK(answer.at("error") == "M_Key rotation refused: M_Key protection is off (security.mkey.mode)");
        CHECK(off.queued().empty());
    }
    test::TempDir dir;
    const auto secret = dir.path / "mkey.secret";
    write_secret(secret, "000102030405060708090a0b0c0d0e0f");
    config::Config cfg;
    cfg.security.mkey.mode = config::MkeyMode::per_port;
    cfg.security.mkey.secret_file = secret.string();
    Sm sm(std::get<daemon::MkeySettings>(daemon::mkey_settings(cfg)));
    sm.running = cfg;
    const auto same = sm.run(R"({"cmd": "mkey", "action": "rotate"})");
    CHECK(same.at("ok") == false);
    CHECK(same.at("error").get<std::string>().find("holds the secret in use") != std::string::npos);
    CHECK(sm.queued().empty());

    const auto before = sm.mkeys.desired(Guid(0x1));
    write_secret(secret, "f0e0d0c0b0a090807060504030201000");
    const auto started = sm.run(R"({"cmd": "mkey", "action": "rotate"})");
    CHECK(started.at("ok") == true);
    CHECK(started.at("result").get<std::string>().starts_with("M_Key rotation started: "));
    CHECK(sm.mkeys.desired(Guid(0x1)) != before);
    const auto events = sm.queued();
    REQUIRE(events.size() == 1);
    REQUIRE(std::holds_alternative<daemon::HeavySweepEvent>(events[0]));
    CHECK(std::get<daemon::HeavySweepEvent>(events[0]).reason == "M_Key rotation (ibsm mkey rotate)");
}

TEST_CASE("control: mkey show is the key book's view; a port it never heard of is not known", "[service][control][mkey]")
{
    Sm sm(daemon::MkeySettings{true, mkey::KeyRing::fixed(0x1234), 1, 60});
    const auto unknown = sm.run(R"({"cmd": "mkey", "action": "show", "port_guid": "0x99"})");
    CHECK(unknown.at("ok") == false);
    CHECK(unknown.at("error") == "no port with GUID 0x0000000000000099 in the fabric");

    const auto view = daemon::mkey_port_view(sm.mkeys, Guid(0x99));
    CHECK_FALSE(view.known);
    CHECK(view.desired == 0x1234);
    CHECK_FALSE(view.held);
    CHECK_FALSE(view.present);

    // A sweep found switch L1 (node 0, reached over the empty path).
    auto found = snapshot()->found;
    found.paths.resize(found.fabric.node_count());
    sm.mkeys.learn(found);
    const auto shown = sm.run(R"({"cmd": "mkey", "action": "show", "port_guid": "0x11"})");
    INFO(shown.dump());
    REQUIRE(shown.at("ok") == true);
    CHECK(shown.at("port_guid") == "0x0000000000000011");
    CHECK(shown.at("desired") == "0x0000000000001234");
    CHECK(shown.at("present") == true);
    CHECK(shown.at("held").is_null());
}
