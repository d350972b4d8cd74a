// SIGHUP's decisions (daemon/service/reload.h): a configuration that cannot
// be read or changes a restart-only key is refused with its reasons, an
// equal one is unchanged, anything else is applied; and reread() returns a
// configuration error rather than throwing it.
#include "daemon/service/reload.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ibsm;
using daemon::ReloadAction;
namespace fs = std::filesystem;

namespace {

daemon::Reread read_as(const config::Config& cfg)
{
    daemon::Reread r;
    r.config = cfg;
    return r;
}

fs::path scratch(const std::string& name)
{
    auto dir = fs::temp_directory_path() / ("ibsmd-test-reload-" + std::to_string(getpid()));
    fs::create_directories(dir);
    auto p = dir / name;
    fs::remove_all(p);
    return p;
}

} // namespace

TEST_CASE("reload: a configuration that could not be read keeps the running one, with the error", "[reload]")
{
    daemon::Reread failed;
    failed.error = "retry.yaml:2: key 'routing.engines': unknown engine 'nosuch'";
    auto d = daemon::decide_reload(config::Config{}, failed);
    CHECK(d.action == ReloadAction::unreadable);
    CHECK(d.reasons == std::vector<std::string>{failed.error});
}

TEST_CASE("reload: restart-only keys refuse the whole reload, one reason per key", "[reload]")
{
    const config::Config running;
    auto next = running;
    next.state_dir = "/tmp/elsewhere";
    next.smp.window = 64;
    next.routing.engines = {"updn"}; // reloadable, but not without the rest
    auto d = daemon::decide_reload(running, read_as(next));
    CHECK(d.action == ReloadAction::refuse);
    REQUIRE(d.reasons.size() == 2);
    CHECK(d.reasons[0].starts_with("smp.window: 16 -> 64 needs a restart"));
    CHECK(d.reasons[1].starts_with("state_dir: "));
    CHECK(d.reasons[1].find("needs a restart") != std::string::npos);
}

TEST_CASE("reload: an equal configuration is unchanged, reloadable changes apply", "[reload]")
{
    config::Config running;
    running.routing.engines = {"ftree"};
    auto same = daemon::decide_reload(running, read_as(running));
    CHECK(same.action == ReloadAction::unchanged);
    CHECK(same.reasons.empty());

    auto next = running;
    next.routing.engines = {"updn"};
    next.sweep.interval = std::chrono::seconds(30);
    next.dump.report = true;
    next.log.level = config::LogLevel::debug;
    next.sm.priority = 9;
    next.sm.polling_retries = 2;
    auto d = daemon::decide_reload(running, read_as(next));
    CHECK(d.action == ReloadAction::apply);
    CHECK(d.reasons.empty());
}

TEST_CASE("reload: reread returns the file's error, or the configuration and its bring-up settings", "[reload]")
{
    const auto file = scratch("ibsmd.yaml");
    const auto opts = daemon::parse_options({"--config", file.string()});

    std::ofstream(file) << "routing:\n  engines: [nosuch]\n";
    auto bad = daemon::reread(opts);
    CHECK_FALSE(bad.config);
    CHECK(bad.error.find("nosuch") != std::string::npos);

    std::ofstream(file) << "routing:\n  root_guid_file: " << scratch("missing.txt").string() << "\n";
    auto no_roots = daemon::reread(opts);
    CHECK_FALSE(no_roots.config);
    CHECK(no_roots.error.starts_with("routing.root_guid_file '"));

    const auto roots = scratch("roots.txt");
    std::ofstream(roots) << "0x20\n";
    std::ofstream(file) << "routing:\n  engines: [updn]\n  root_guid_file: " << roots.string() << "\n";
    auto good = daemon::reread(opts);
    REQUIRE(good.config);
    CHECK(good.error.empty());
    CHECK(good.config->routing.engines == std::vector<std::string>{"updn"});
    CHECK(good.bringup.chain.engines == std::vector<std::string>{"updn"});
    CHECK(good.bringup.route.root_guids == std::vector<Guid>{Guid(0x20)});
    fs::remove_all(file.parent_path());
}

TEST_CASE("reload: a file the configuration names that changed under the same YAML is applied, naming it",
          "[reload]")
{
    const auto file = scratch("ibsmd.yaml");
    const auto names = scratch("names");
    const auto opts = daemon::parse_options({"--config", file.string()});
    std::ofstream(file) << "node_name_map: " << names.string() << "\n";
    std::ofstream(names) << "0x10 \"spine-1\"\n";
    const auto first = daemon::reread(opts);
    REQUIRE(first.config);

    // Same file content: unchanged.
    const auto same = daemon::reread(opts);
    auto d = daemon::decide_reload(*first.config, same, nullptr, &first.bringup);
    CHECK(d.action == daemon::ReloadAction::unchanged);

    std::ofstream(names) << "0x10 \"spine-01\"\n";
    const auto renamed = daemon::reread(opts);
    d = daemon::decide_reload(*first.config, renamed, nullptr, &first.bringup);
    CHECK(d.action == daemon::ReloadAction::apply);
    CHECK(d.reasons == std::vector<std::string>{"node_name_map: the file's content changed"});

    // A bad line: the reload is refused and the running names stay.
    std::ofstream(names) << "spine-01 0x10\n";
    const auto bad = daemon::reread(opts);
    d = daemon::decide_reload(*first.config, bad, nullptr, &first.bringup);
    CHECK(d.action == daemon::ReloadAction::unreadable);
    CHECK(d.reasons.front().starts_with("node_name_map: " + names.string() + ":1: expected a GUID"));
    fs::remove_all(file.parent_path());
}
