// The live commands of ibsm: `ports`, `port isolate|clear`, `resweep`,
// `log-level`, `events`, `mkey rotate|show` and `drain`/`undrain`, each one request over the daemon's control
// socket (tools/control_client.h; the protocol is daemon/control/protocol.h).
#include "tools/control_client.h"
#include "tools/ports_table.h"
#include "tools/subcommands.h"

#include "cli/app.h"
#include "daemon/control/protocol.h"

#include <csignal>
#include <iostream>

namespace ibsm::tools {

namespace {

using daemon::control::Command;
using daemon::control::Request;

constexpr const char* exit_text = R"(
Exit status: 0 done; 1 ibsmd is not running, the caller is not root, or
the daemon refused the request (its error is printed); 64 bad command line;
78 the configuration file cannot be read.
)";

nlohmann::json call(const Args& args, const Request& r)
{
    ControlClient client(control_socket_of(args));
    return client.call(daemon::control::request_json(r));
}

int ports_main(const Args& args)
{
    Request r;
    r.cmd = Command::ports;
    if (args.has("limit")) r.limit = args.number("limit", 0, 1, daemon::control::max_limit);
    const auto answer = call(args, r);
    if (args.has("json")) {
        std::cout << nlohmann::json{{"ports", answer.value("ports", nlohmann::json::array())}}.dump(
                         2, ' ', false, nlohmann::json::error_handler_t::replace)
                  << '\n';
    } else {
        std::cout << ports_table(answer);
    }
    return 0;
}

int port_main(const Args& args)
{
    Request r;
    r.cmd = Command::port;
    r.action = args.command().back() == "clear" ? daemon::control::PortAction::clear
                                                : daemon::control::PortAction::isolate;
    const auto& pos = args.positional();
    if (pos.size() != 2) throw UsageError("expected NODE_GUID PORT");
    r.node_guid = Guid(parse_number(pos[0], "NODE_GUID", 1, UINT64_MAX));
    r.port = PortNum(static_cast<std::uint8_t>(parse_number(pos[1], "PORT", 1, PortNum::max_port)));
    const auto answer = call(args, r);
    std::cout << answer.value("result", std::string("done")) << '\n';
    return 0;
}

int resweep_main(const Args& args)
{
    Request r;
    r.cmd = Command::resweep;
    r.heavy = args.has("heavy");
    std::cout << call(args, r).value("result", std::string("queued")) << '\n';
    return 0;
}

int log_level_main(const Args& args)
{
    Request r;
    r.cmd = Command::log_level;
    if (args.positional().size() != 1) throw UsageError("expected one LEVEL (" + config::known_log_levels_text() + ")");
    auto level = config::parse_log_level(args.positional()[0]);
    if (!level)
        throw UsageError("unknown log level '" + args.positional()[0] + "' (known: " + config::known_log_levels_text() +
                         ")");
    r.level = *level;
    const auto answer = call(args, r);
    std::cout << "log level " << answer.value("old", std::string("?")) << " -> " << answer.value("new", std::string("?"))
              << '\n';
    return 0;
}

int events_main(const Args& args)
{
    if (!args.has("follow")) throw UsageError("events needs --follow (the last events are in ibsm status)");
    Request r;
    r.cmd = Command::events;
    r.follow = true;
    ControlClient client(control_socket_of(args));
    client.call(daemon::control::request_json(r));
    std::signal(SIGPIPE, SIG_IGN);
    client.follow([](const std::string& line) {
        std::cout << line << '\n' << std::flush;
        return static_cast<bool>(std::cout);
    });
    std::cerr << "ibsm events: ibsmd closed the connection\n";
    return 1;
}

int mkey_main(const Args& args)
{
    Request r;
    r.cmd = Command::mkey;
    const auto& pos = args.positional();
    if (args.command().back() == "rotate") {
        r.mkey_action = daemon::control::MkeyAction::rotate;
        if (!pos.empty()) throw UsageError("mkey rotate takes no argument (it re-keys every port)");
        std::cout << call(args, r).value("result", std::string("started")) << '\n';
        return 0;
    }
    r.mkey_action = daemon::control::MkeyAction::show;
    if (pos.size() != 1) throw UsageError("expected PORT_GUID");
    r.port_guid = Guid(parse_number(pos[0], "PORT_GUID", 1, UINT64_MAX));
    const auto answer = call(args, r);
    if (args.has("json")) {
        nlohmann::json out = answer;
        out.erase("id");
        out.erase("ok");
        std::cout << out.dump(2) << '\n';
        return 0;
    }
    const auto held = answer.value("held", nlohmann::json());
    std::cout << "port " << answer.value("port_guid", std::string("?")) << ": M_Key "
              << (held.is_string() ? held.get<std::string>() : std::string("not known yet"))
              << (answer.value("present", false) ? "" : " (not in the last sweep's fabric)") << '\n';
    if (held.is_string() && held.get<std::string>() != answer.value("desired", std::string()))
        std::cout << "  rotating to " << answer.value("desired", std::string("?")) << '\n';
    return 0;
}

// drain|undrain switch|link TARGET: the kind is the subcommand, TARGET the
// one positional argument.
int drain_main(const Args& args)
{
    Request r;
    r.cmd = args.command().front() == "undrain" ? Command::undrain : Command::drain;
    r.drain_kind = args.command().back() == "link" ? daemon::control::DrainKind::link
                                                   : daemon::control::DrainKind::switch_node;
    if (args.positional().size() != 1)
        throw UsageError(r.drain_kind == daemon::control::DrainKind::link ? "expected one GUID/PORT"
                                                                         : "expected one switch NAME or GUID");
    r.target = args.positional()[0];
    if (r.target.size() > daemon::control::max_target) throw UsageError("TARGET is too long");
    r.dry_run = args.has("dry-run");
    const auto answer = call(args, r);
    if (args.has("json")) {
        nlohmann::json out = answer;
        out.erase("id");
        out.erase("ok");
        std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
        return 0;
    }
    std::cout << answer.value("result", std::string("done")) << '\n';
    return 0;
}

std::vector<OptionSpec> with_control(std::vector<OptionSpec> own)
{
    auto all = control_options();
    all.insert(all.end(), own.begin(), own.end());
    return all;
}

} // namespace

const CommandSpec& ports_command()
{
    static const CommandSpec spec{
        "ports",
        "ports of the running ibsmd's fabric, worst first (live)",
        std::string(R"(Lists the linked ports the running ibsmd knows, worst first: node, GUID,
port, the other end, health state and its reason, error counters (change in
the last interval and total), traffic rates and link findings. --json
prints {"ports": [...]}, each entry with node_guid, node_desc, port, lid,
remote, state, since, reasons, counters {name: {total, delta}}, rates, poll
and link (each left out where not measured or not linked).)") + exit_text,
        with_control({{"json", "", "print the daemon's JSON"}, {"limit", "N", "at most N ports (the worst)"}}),
        {},
        {},
        {},
        ports_main,
    };
    return spec;
}

const CommandSpec& port_command()
{
    static const auto kind = [](const char* name, const char* summary) {
        return CommandSpec{name, summary, std::string(summary) + "." + exit_text, with_control({}), "NODE_GUID PORT",
                           "the node GUID (0x...) and port number", {}, nullptr};
    };
    static const CommandSpec spec{
        "port",
        "isolate a port's link from the routing, or clear it (live)",
        std::string("Asks the running ibsmd's health monitor to isolate a link (route around it) or to clear\n"
                    "an isolation or report.") +
            exit_text,
        {},
        {},
        {},
        {kind("isolate", "route around the link at NODE_GUID PORT"),
         kind("clear", "bring the link at NODE_GUID PORT back into the routing")},
        port_main,
    };
    return spec;
}

const CommandSpec& resweep_command()
{
    static const CommandSpec spec{
        "resweep",
        "ask the running ibsmd for a light sweep now, or a heavy one (live)",
        std::string("A light sweep reads every switch's SwitchInfo and re-routes what changed; --heavy\n"
                    "rediscovers the whole fabric, as at start-up and SIGHUP.") +
            exit_text,
        with_control({{"heavy", "", "a heavy sweep (full rediscovery)"}}),
        {},
        {},
        {},
        resweep_main,
    };
    return spec;
}

const CommandSpec& log_level_command()
{
    static const CommandSpec spec{
        "log-level",
        "set the running ibsmd's log level (live; a reload sets log.level again)",
        std::string("Sets the level of the daemon's log (" + config::known_log_levels_text() +
                    ") and prints the old and new level.") +
            exit_text,
        with_control({}),
        "LEVEL",
        "trace, debug, info, warn, error, critical or off",
        {},
        log_level_main,
    };
    return spec;
}

const CommandSpec& events_command()
{
    static const CommandSpec spec{
        "events",
        "print the running ibsmd's events as JSON lines (live)",
        std::string(R"(With --follow, prints one JSON object per event as it happens until
interrupted: traps ("trap"), sweeps and re-routes ("sweep"), sweep requests,
SM state changes ("sm-state"), M_Key violations and incidents
("mkey-violation", "mkey-incident") and what the health monitor decides. Every
line has "time" (Unix seconds) and "event" (the kind).)") +
            exit_text,
        with_control({{"follow", "", "keep printing events as they come (required)"}}),
        {},
        {},
        {},
        events_main,
    };
    return spec;
}

const CommandSpec& mkey_command()
{
    static const CommandSpec rotate{
        "rotate",
        "re-key every port from the secret file, with no outage",
        std::string(R"(Reads security.mkey.secret_file again and, when it holds a new secret (or
key, in fixed mode), re-keys every port: each PortInfo Set carries the key
the port holds and sets the new one, and both keys are tried until every
port confirmed its new key. Write the new secret to the file first; a file
that still holds the secret in use, or that is refused (not root's, readable
by others, malformed), is refused and the keys in use stay. A SIGHUP does
the same when the file changed.)") +
            exit_text,
        with_control({}),
        {},
        {},
        {},
        nullptr,
    };
    static const CommandSpec show{
        "show",
        "print the M_Key the SM holds for a port (never the secret)",
        std::string(R"(Prints the key the port with PORT_GUID (a switch: its node GUID) was last
seen to hold and, during a rotation, the key it is being moved to. --json
prints {"port_guid", "held" (null when not read yet), "desired", "present"}.)") +
            exit_text,
        with_control({{"json", "", "print the daemon's JSON"}}),
        "PORT_GUID",
        "the port GUID (0x...); a switch's is its node GUID",
        {},
        nullptr,
    };
    static const CommandSpec spec{
        "mkey",
        "rotate the fabric's M_Keys, or show a port's (live)",
        std::string("M_Key protection (security.mkey): re-key the fabric from a new secret, or print\n"
                    "the key the SM holds for one port.") +
            exit_text,
        {},
        {},
        {},
        {rotate, show},
        mkey_main,
    };
    return spec;
}

} // namespace ibsm::tools

namespace ibsm::tools {

namespace {

constexpr const char* drain_text = R"(A drain takes every link of a switch but one (kept so that the switch's
own LID stays reachable, e.g. for a firmware update) or one link out of the
routing through the isolation path and re-routes: only the LFT blocks that
change are sent, and no route crosses the drained switch. It is refused,
with what would be cut off, when a node would lose its last link to the
rest of the fabric. --dry-run prints the prediction (the nodes cut off, the
pairs lost, the engine and gate, EBB and the busiest link before and after,
the LFT blocks that would change) and changes nothing. Drains are kept in
drains.json in the state directory across restarts until `ibsm undrain`.)";

CommandSpec drain_kind(const char* name, const char* summary, bool drain)
{
    std::vector<OptionSpec> own{{"json", "", "print the daemon's answer as JSON (with the prediction)"}};
    if (drain) own.push_back({"dry-run", "", "predict (what-if) and change nothing"});
    auto all = control_options();
    all.insert(all.end(), own.begin(), own.end());
    return CommandSpec{name,
                       summary,
                       std::string(summary) + ".\n" + drain_text + exit_text,
                       all,
                       "TARGET",
                       std::string(name) == "link" ? "GUID/PORT: a node GUID (or a CA's port GUID) and a port"
                                                   : "the switch's node-name-map name, NodeDescription or GUID",
                       {},
                       nullptr};
}

} // namespace

const CommandSpec& drain_command()
{
    static const CommandSpec spec{
        "drain",
        "move the routes off a switch or a link before maintenance (live)",
        std::string(drain_text) + exit_text,
        {},
        {},
        {},
        {drain_kind("switch", "drain every link of a switch", true),
         drain_kind("link", "drain one link (GUID/PORT names either end)", true)},
        drain_main,
    };
    return spec;
}

const CommandSpec& undrain_command()
{
    static const CommandSpec spec{
        "undrain",
        "bring a drained switch or link back into the routing (live)",
        std::string("Lifts a drain: its links go back into the routing with the next re-route.") + exit_text,
        {},
        {},
        {},
        {drain_kind("switch", "bring a drained switch back", false),
         drain_kind("link", "bring a drained link back", false)},
        drain_main,
    };
    return spec;
}

} // namespace ibsm::tools
