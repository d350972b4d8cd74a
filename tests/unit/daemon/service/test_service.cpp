// Running as a service: the sd_notify conversation
// (service_notifier.h), journald's stream format and the log file's cap
// (journal_stream_sink.h, log_file_sink.h), and which configuration file
// is read (config_path.h).
#include "daemon/service/config_path.h"
#include "daemon/service/journal_stream_sink.h"
#include "daemon/service/log_file_sink.h"
#include "daemon/service/options.h"
#include "daemon/service/service_notifier.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <catch2/catch.hpp>
#include <spdlog/logger.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<daemon::SubnetSnapshot> snapshot(std::uint64_t gen, std::size_t ports, std::uint8_t lmc)
{
    auto s = std::make_shared<daemon::SubnetSnapshot>();
    s->generation = gen;
    s->engine = "ftree";
    s->lmc = lmc;
    for (std::size_t i = 0; i < ports; ++i)
        s->lids.lids.assign(topology::PortRef{topology::NodeId(static_cast<std::uint32_t>(i)), PortNum(1)},
                            Lid(static_cast<std::uint16_t>((i + 1) << lmc)), lmc);
    return s;
}

daemon::SweepOutcome up(daemon::SweepKind kind, double seconds)
{
    daemon::SweepOutcome o;
    o.kind = kind;
    o.up = true;
    o.seconds = seconds;
    o.engine = "ftree";
    return o;
}

fs::path scratch(const std::string& name)
{
    auto dir = fs::temp_directory_path() / ("ibsmd-test-service-" + std::to_string(getpid()));
    fs::create_directories(dir);
    auto p = dir / name;
    fs::remove_all(p);
    return p;
}

std::string slurp(const fs::path& p)
{
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace

TEST_CASE("STATUS: one line from the outcome and the published snapshot", "[service]")
{
    auto snap = snapshot(12, 1044, 2); // 1044 ports, LMC 2: 4176 LIDs
    CHECK(daemon::status_line(up(daemon::SweepKind::reroute, 0.183), snap.get()) ==
          "up, gen 12, 4176 LIDs, ftree, last re-route 0.18 s");
    CHECK(daemon::status_line(up(daemon::SweepKind::heavy, 2.5), snap.get()) ==
          "up, gen 12, 4176 LIDs, ftree, last heavy sweep 2.50 s");

    auto degraded = up(daemon::SweepKind::heavy, 1);
    degraded.degraded = true;
    degraded.reason = "no engine passed the gate\nftree: 3 pairs unreachable";
    CHECK(daemon::status_line(degraded, snap.get()) ==
          "degraded, gen 12, 4176 LIDs, ftree, last heavy sweep 1.00 s: no engine passed the gate ftree: 3 pairs "
          "unreachable");

    // LIDs are counted per port: a switch keeps one LID under LMC 2, and
    // per-pair routing gives CA ports LMCs of their own.
    auto mixed = snapshot(7, 0, 0);
    mixed->lmc = 2;
    mixed->lids.lids.assign(topology::PortRef{topology::NodeId(0), PortNum(0)}, Lid(1), 0);
    mixed->lids.lids.assign(topology::PortRef{topology::NodeId(1), PortNum(1)}, Lid(4), 2);
    mixed->lids.lids.assign(topology::PortRef{topology::NodeId(2), PortNum(1)}, Lid(8), 3);
    CHECK(daemon::status_line(up(daemon::SweepKind::heavy, 1), mixed.get()) ==
          "up, gen 7, 13 LIDs, ftree, last heavy sweep 1.00 s");

    daemon::SweepOutcome standby;
    standby.standby = true;
    standby.reason = "SM 0x0002c90300000001 (priority 15) is master";
    CHECK(daemon::status_line(standby, nullptr) == "standby: SM 0x0002c90300000001 (priority 15) is master");

    daemon::SweepOutcome down;
    down.reason = std::string(500, 'x');
    const auto line = daemon::status_line(down, nullptr);
    CHECK(line.starts_with("not up: xxx"));
    CHECK(line.size() == 200);
    CHECK(line.find('\n') == std::string::npos);
}

TEST_CASE("sd_notify: READY once, STATUS after every sweep, RELOADING until the reload's sweep, STOPPING",
          "[service]")
{
    boost::asio::io_context io;
    std::vector<std::string> sent;
    daemon::ServiceNotifier n(io.get_executor(), [&](const std::string& m) { sent.push_back(m); },
                              std::chrono::microseconds(0));
    auto snap = snapshot(1, 4, 0);

    daemon::SweepOutcome not_up;
    not_up.reason = "SM port down";
    n.on_outcome(not_up, nullptr); // serving (retrying) from the first outcome on
    n.on_outcome(up(daemon::SweepKind::heavy, 1), snap);
    REQUIRE(sent.size() == 2);
    CHECK(sent[0] == "READY=1\nSTATUS=not up: SM port down");
    CHECK(sent[1] == "STATUS=up, gen 1, 4 LIDs, ftree, last heavy sweep 1.00 s");

    n.reloading();
    REQUIRE(sent.size() == 3);
    CHECK(sent[2].starts_with("RELOADING=1\nMONOTONIC_USEC="));
    // A sweep that was running when SIGHUP came is not the reload's.
    n.on_outcome(up(daemon::SweepKind::reroute, 0.1), snap);
    CHECK(sent[3] == "STATUS=up, gen 1, 4 LIDs, ftree, last re-route 0.10 s");
    auto reloaded = up(daemon::SweepKind::heavy, 1);
    reloaded.reload = true;
    n.on_outcome(reloaded, snap);
    CHECK(sent[4] == "READY=1\nSTATUS=up, gen 1, 4 LIDs, ftree, last heavy sweep 1.00 s");

    n.stopping();
    n.stopping();
    n.on_outcome(up(daemon::SweepKind::heavy, 1), snap);
    REQUIRE(sent.size() == 6);
    CHECK(sent[5] == "STOPPING=1\nSTATUS=stopping");
}

TEST_CASE("sd_notify: WATCHDOG=1 at half the watchdog period from the loop, until stopping", "[service]")
{
    boost::asio::io_context io;
    std::vector<std::string> sent;
    std::optional<daemon::ServiceNotifier> n;
    boost::asio::steady_timer guard(io, std::chrono::seconds(10)); // a failed test must not hang
    guard.async_wait([&](auto ec) {
        if (!ec) io.stop();
    });
    const auto start = std::chrono::steady_clock::now();
    n.emplace(io.get_executor(),
              [&](const std::string& m) {
                  sent.push_back(m);
                  if (std::count(sent.begin(), sent.end(), "WATCHDOG=1") == 3 && m == "WATCHDOG=1") {
                      n->stopping();
                      guard.cancel();
                  }
              },
              std::chrono::milliseconds(40));
    CHECK(n->watchdog_period() == std::chrono::milliseconds(20));
    n->start();
    // Returns once stopping() cancelled the watchdog timer: nothing else
    // keeps the loop turning.
    io.run();
    REQUIRE(sent.size() == 4);
    CHECK(sent[0] == "WATCHDOG=1");
    CHECK(sent[2] == "WATCHDOG=1");
    CHECK(sent[3] == "STOPPING=1\nSTATUS=stopping");
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(60));
}

TEST_CASE("journald stream: a priority per line, no timestamp", "[service][log]")
{
    std::FILE* out = std::tmpfile();
    REQUIRE(out);
    auto sink = std::make_shared<daemon::JournalStreamSink>(out);
    spdlog::logger log("t", sink);
    log.set_level(spdlog::level::trace);
    log.info("SUBNET UP (generation 1)");
    log.error("two\nlines");
    log.warn("w");
    log.debug("d");
    log.trace("t");
    log.critical("c");
    log.flush();
    std::rewind(out);
    std::string text;
    char buf[256];
    while (std::fgets(buf, sizeof buf, out)) text += buf;
    std::fclose(out);
    CHECK(text == "<6>SUBNET UP (generation 1)\n<3>two\n<3>lines\n<4>w\n<7>d\n<7>t\n<2>c\n");
}

TEST_CASE("journald stream: JOURNAL_STREAM counts only when it names fd 2", "[service][log]")
{
    struct stat st {};
    REQUIRE(fstat(2, &st) == 0);
    const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
    const std::string other = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1);
    CHECK(daemon::stderr_is_journal(mine.c_str()));
    CHECK_FALSE(daemon::stderr_is_journal(other.c_str()));
    CHECK_FALSE(daemon::stderr_is_journal(nullptr));
    CHECK_FALSE(daemon::stderr_is_journal(""));
    CHECK_FALSE(daemon::stderr_is_journal((mine + "x").c_str()));
}

TEST_CASE("log file: the cap moves the file to FILE.1 and starts a new one; reopen follows a rename",
          "[service][log]")
{
    const auto path = scratch("capped.log");
    auto sink = std::make_shared<daemon::LogFileSink>(path.string(), 100);
    sink->set_pattern("%v");
    spdlog::logger log("t", sink);
    const std::string line(29, 'a'); // 30 bytes with the newline
    for (int i = 0; i < 3; ++i) log.info(line);
    log.flush();
    CHECK(fs::file_size(path) == 90);
    CHECK(sink->rotations() == 0);
    log.info("b"); // 92 bytes: fits
    log.info(line); // 122: over the cap
    log.flush();
    CHECK(sink->rotations() == 1);
    CHECK(fs::file_size(fs::path(path.string() + ".1")) == 92);
    CHECK(slurp(path) == line + "\n");
    // Two more caps' worth: FILE.1 is replaced, never more than two files.
    for (int i = 0; i < 6; ++i) log.info(line);
    log.flush();
    CHECK(sink->rotations() == 3);
    CHECK(fs::file_size(path) <= 100);
    CHECK(fs::file_size(fs::path(path.string() + ".1")) <= 100);
    CHECK_FALSE(fs::exists(fs::path(path.string() + ".2")));

    // logrotate: rename, then SIGUSR1 -> reopen(); the size restarts at 0.
    fs::rename(path, fs::path(path.string() + ".rotated"));
    sink->reopen();
    log.info("after");
    log.flush();
    CHECK(slurp(path) == "after\n");

    // No cap: never rotates.
    const auto uncapped = scratch("uncapped.log");
    auto free_sink = std::make_shared<daemon::LogFileSink>(uncapped.string(), 0);
    spdlog::logger free_log("u", free_sink);
    for (int i = 0; i < 100; ++i) free_log.info(line);
    CHECK(free_sink->rotations() == 0);
    fs::remove_all(path.parent_path());
}

TEST_CASE("configuration file: --config, --config none, the installed default when it exists", "[service][options]")
{
    const auto present = scratch("ibsmd.yaml");
    std::ofstream(present) << "log:\n  level: info\n";
    const auto absent = scratch("missing.yaml");

    auto none = daemon::parse_options({"--config", "none"});
    CHECK(none.no_config);
    CHECK_FALSE(none.config_file);
    CHECK_FALSE(daemon::config_file_to_read(none, present));

    auto given = daemon::parse_options({"--config", "/x/y.yaml"});
    CHECK(daemon::config_file_to_read(given, present) == fs::path("/x/y.yaml"));

    auto plain = daemon::parse_options({});
    CHECK(daemon::config_file_to_read(plain, present) == present);
    CHECK_FALSE(daemon::config_file_to_read(plain, absent));
    CHECK(std::string(daemon::default_config_file()).ends_with("/ibsmd/ibsmd.yaml"));
    fs::remove_all(present.parent_path());
}

TEST_CASE("--log-level takes the 7 levels the YAML takes", "[service][options]")
{
    for (const char* l : {"trace", "debug", "info", "warn", "error", "critical", "off"})
        CHECK(daemon::parse_options({"--log-level", l}).log_level == l);
    CHECK_THROWS_WITH(daemon::parse_options({"--log-level", "verbose"}),
                      "--log-level: unknown level 'verbose' (known: trace|debug|info|warn|error|critical|off)");
}
