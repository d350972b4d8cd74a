// `ibsm status`: the running daemon's state, read from its state directory
// (state.json, written by ibsmd's status reporter:
// daemon/publish/status_reporter.h) instead of its logs. This file only
// finds and reads the file and checks that the process that wrote it is
// still alive; the formats are daemon/publish/status.h's.
#include "cli/app.h"
#include "tools/args.h"
#include "tools/subcommands.h"

#include "config/config.h"
#include "daemon/publish/status.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace ibsm::tools {

namespace {

constexpr const char* status_description = R"(Prints the state of the running ibsmd from DIR/state.json: subnet up or
degraded, generation, routing engine, LIDs, the last sweep and its phases,
counters (sweeps, SMPs, traps) and the last events. The daemon rewrites the
file after every sweep and every few seconds while counters change; beside it
are metrics.prom (Prometheus text format) and summary.txt.
Exit status: 0 the daemon runs and the subnet is up (or it stands by for
another master SM); 2 it runs and the subnet is up but degraded; 1 no
state file, the daemon is not running, or the subnet is not up; 78 the
configuration file cannot be read.
)";

// The writer is alive and is an ibsmd (a pid can be reused).
bool daemon_running(long pid)
{
    if (pid <= 0) return false;
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    return comm && std::getline(comm, name) && name == "ibsmd";
}

int status_main(const Args& args)
{
    if (args.has("state-dir") && args.has("config")) throw UsageError("give --state-dir or --config, not both");
    std::string dir = config::Config{}.state_dir;
    if (auto d = args.value("state-dir"))
        dir = *d;
    else if (auto c = args.value("config"))
        dir = config::load_config_file(*c).state_dir;

    const std::filesystem::path path = std::filesystem::path(dir) / "state.json";
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path.string() + ": cannot read (is ibsmd running with state_dir " + dir +
                                 "? give --state-dir)");
    std::stringstream text;
    text << in.rdbuf();
    daemon::DaemonStatus s;
    try {
        s = daemon::status_from_json(text.str());
    } catch (const daemon::StatusFormatError& e) {
        throw std::runtime_error(path.string() + ": " + e.what());
    }
    const bool running = daemon_running(s.pid) && s.state != "stopped";
    if (args.has("json")) {
        std::cout << text.str();
    } else {
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        std::cout << daemon::to_status_text(s, now, running);
    }
    if (!running) return 1;
    if (s.state == "up" || s.state == "standby") return 0;
    return s.state == "degraded" ? cli::exit_partial : cli::exit_failure;
}

} // namespace

const CommandSpec& status_command()
{
    static const CommandSpec spec{
        "status",
        "state of the running ibsmd from its state directory (state.json)",
        status_description,
        {
            {"state-dir", "DIR",
             "the daemon's state directory (default: the configuration's state_dir, " + config::Config{}.state_dir +
                 " unless FILE says otherwise)"},
            {"config", "FILE", "read state_dir from the daemon's configuration file (not with --state-dir)"},
            {"json", "", "print state.json as the daemon wrote it"},
        },
        {},
        {},
        {},
        status_main,
    };
    return spec;
}

} // namespace ibsm::tools
