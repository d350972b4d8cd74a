// `ibsm status`: the running daemon's state, read from its state directory
// (state.json, written by ibsmd's status reporter:
// daemon/publish/status_reporter.h) instead of its logs. This file only
// finds and reads the file and checks that the process that wrote it is
// still alive; the formats are daemon/publish/status.h's.
#include "cli/app.h"
#include "tools/args.h"
#include "tools/control_client.h"
#include "tools/subcommands.h"

#include "config/config.h"
#include "daemon/publish/status.h"

#include <chrono>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

namespace ibsm::tools {

namespace {

constexpr const char* status_description = R"(Prints the state of ibsmd: live over its control socket when it answers
(the socket state.json names, or --socket), else from DIR/state.json; the
first line says which. The state: subnet up or
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

// The live status, or nullopt (`why` says why) when the daemon does not answer.
std::optional<daemon::DaemonStatus> live_status(const Args& args, std::string& json_text, std::string& socket,
                                                std::string& why)
{
    try {
        socket = control_socket_of(args);
        ControlClient client(socket);
        auto answer = client.call(nlohmann::json{{"cmd", "status"}});
        json_text = answer.at("status").dump(2);
        return daemon::status_from_json(json_text);
    } catch (const UsageError&) {
        throw;
    } catch (const config::ConfigError&) {
        throw;
    } catch (const std::exception& e) {
        why = e.what();
        return std::nullopt;
    }
}

int status_main(const Args& args)
{
    if (args.has("state-dir") && args.has("config")) throw UsageError("give --state-dir or --config, not both");
    std::string json_text, socket, why;
    auto live = args.has("file") ? std::nullopt : live_status(args, json_text, socket, why);
    std::string dir = state_dir_of(args);
    const std::filesystem::path path = std::filesystem::path(dir) / "state.json";
    daemon::DaemonStatus s;
    if (live) {
        s = *live;
    } else {
        std::ifstream in(path);
        if (!in)
            throw std::runtime_error(path.string() + ": cannot read (is ibsmd running with state_dir " + dir +
                                     "? give --state-dir)");
        std::stringstream text;
        text << in.rdbuf();
        json_text = text.str();
        try {
            s = daemon::status_from_json(json_text);
        } catch (const daemon::StatusFormatError& e) {
            throw std::runtime_error(path.string() + ": " + e.what());
        }
    }
    const bool running = daemon_running(s.pid) && s.state != "stopped";
    const std::string source = live ? "live from ibsmd over " + socket
                                    : "from " + path.string() + (why.empty() ? "" : " (no live answer: " + why + ")");
    if (args.has("json")) {
        std::cerr << "ibsm status: " << source << "\n";
        std::cout << json_text << (json_text.ends_with('\n') ? "" : "\n");
    } else {
        const double now =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        std::cout << "source:       " << source << "\n" << daemon::to_status_text(s, now, running);
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
            {"json", "", "print the status as JSON (state.json's format)"},
            {"socket", "PATH", "the daemon's control socket (default: the one state.json names)"},
            {"file", "", "read state.json only, without asking the daemon"},
        },
        {},
        {},
        {},
        status_main,
    };
    return spec;
}

} // namespace ibsm::tools
