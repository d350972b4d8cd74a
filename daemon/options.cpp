#include "daemon/options.h"

#include "config/config.h"
#include "daemon/install_paths.h"

#include <charconv>

namespace ibsm::daemon {
namespace {

unsigned parse_unsigned(const std::string& flag, const std::string& value, unsigned min, unsigned max)
{
    unsigned v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || p != value.data() + value.size() || v < min || v > max)
        throw UsageError(flag + ": expected a number in " + std::to_string(min) + ".." + std::to_string(max) +
                         ", got '" + value + "'");
    return v;
}

} // namespace

const char* usage()
{
    return "usage: ibsmd [--once | --foreground | --discover-only] [options]\n"
           "  --once                 bring the subnet up (discover, LIDs, route, program, activate), exit:\n"
           "                         0 when it is up, 2 when up on a routing that failed verification\n"
           "                         (degraded), 1 with the reason when not up\n"
           "  --foreground           the same, then stay master (console log): traps and light sweeps re-route,\n"
           "                         SIGHUP reloads and re-sweeps, SIGTERM/SIGINT stop\n"
           "  (no mode)              as --foreground, logging to the configured log file (SIGUSR1 reopens it;\n"
           "                         under systemd the journal gets the same lines)\n"
           "  --discover-only        run one heavy sweep, print what was found, exit\n"
           "  --config FILE|none     YAML configuration; SIGHUP re-reads it. Default: " IBSMD_DEFAULT_CONFIG "\n"
           "                         when it exists, else the built-in defaults (also: none)\n"
           "  --print-config         print the effective configuration (file + flags) as YAML, exit\n"
           "  --state-dir DIR        guid2lid and dumps (overrides state_dir)\n"
           "  --engine E[,E2...]     routing engine chain (overrides routing.engines)\n"
           "  --lmc N                LID mask control 0..7 (overrides routing.lmc)\n"
           "  --dump-dir DIR         write DIR/topology.net (ibnetdiscover format) after the sweep\n"
           "  --ca NAME              CA to run on (default: first one found)\n"
           "  --port N               port of that CA (default: first usable)\n"
           "  --smp-window N         SMPs kept outstanding (default 16)\n"
           "  --smp-timeout-ms N     per-SMP timeout (default 100)\n"
           "  --smp-retries N        retries after a timeout (default 3)\n"
           "  --log-level L          trace|debug|info|warn|error|critical|off (default info)\n"
           "  -h, --help             this text\n"
           "Against ibsim, run with LD_PRELOAD=<path of libumad2sim.so> and IBSIM_SOCKNAME set.\n";
}

Options parse_options(const std::vector<std::string>& args)
{
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError(a + ": missing value");
            return args[++i];
        };
        if (a == "-h" || a == "--help") o.help = true;
        else if (a == "--discover-only") o.discover_only = true;
        else if (a == "--once") o.once = true;
        else if (a == "--foreground") o.foreground = true;
        else if (a == "--config") {
            o.config_file = value();
            o.no_config = *o.config_file == "none";
            if (o.no_config) o.config_file.reset();
        }
        else if (a == "--print-config") o.print_config = true;
        else if (a == "--state-dir") o.overrides.state_dir = value();
        else if (a == "--engine") o.overrides.engines = std::vector<std::string>{value()};
        else if (a == "--lmc") o.lmc = parse_unsigned(a, value(), 0, 7);
        else if (a == "--dump-dir") o.dump_dir = value();
        else if (a == "--ca") o.overrides.ca = o.ca_name = value();
        else if (a == "--port") {
            o.port_num = static_cast<int>(parse_unsigned(a, value(), 1, 254));
            o.overrides.port = static_cast<unsigned>(o.port_num);
        } else if (a == "--smp-window") o.overrides.smp_window = o.window = parse_unsigned(a, value(), 1, 4096);
        else if (a == "--smp-timeout-ms") {
            o.overrides.smp_timeout_ms = parse_unsigned(a, value(), 1, 60000);
            o.timeout = std::chrono::milliseconds(*o.overrides.smp_timeout_ms);
        } else if (a == "--smp-retries") o.overrides.smp_retries = o.retries = parse_unsigned(a, value(), 0, 100);
        else if (a == "--log-level") {
            o.log_level = value();
            if (!config::parse_log_level(o.log_level))
                throw UsageError("--log-level: unknown level '" + o.log_level + "' (known: " +
                                 config::known_log_levels_text() + ")");
            o.overrides.log_level = o.log_level;
        } else
            throw UsageError("unknown option '" + a + "'");
    }
    if (int(o.once) + int(o.foreground) + int(o.discover_only) > 1)
        throw UsageError("--once, --foreground and --discover-only exclude each other");
    return o;
}

} // namespace ibsm::daemon
