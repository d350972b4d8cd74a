#include "daemon/service/options.h"

#include "config/engines.h"
#include "config/value_ranges.h"
#include "daemon/service/install_paths.h"

#include <CLI/CLI.hpp>

#include <charconv>

namespace ibsm::daemon {
namespace {

constexpr const char* description =
    "ibsmd: InfiniBand subnet manager. It discovers the fabric, assigns LIDs (kept across restarts in\n"
    "STATE_DIR/guid2lid), routes it with a chain of engines whose tables must pass a verification gate,\n"
    "programs the switches and activates the ports, then stays master: traps and light sweeps re-route,\n"
    "SIGHUP re-reads the configuration and re-sweeps, SIGUSR1 reopens the log file, SIGTERM/SIGINT stop.\n"
    "Without a mode flag ibsmd runs as the service, logging to log.file of the configuration.\n"
    "Against ibsim, run with LD_PRELOAD=<path of libumad2sim.so> and IBSIM_SOCKNAME set.";

CLI::Validator range(config::Range r)
{
    // No description: the help text states the range in words.
    return CLI::Range(r.lo, r.hi).description("");
}

// A port GUID as ibstat prints it: hex, with or without 0x.
std::optional<Guid> parse_guid(std::string_view text)
{
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) text.remove_prefix(2);
    std::uint64_t v = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
    if (text.empty() || ec != std::errc{} || p != text.data() + text.size() || v == 0) return std::nullopt;
    return Guid(v);
}

} // namespace

const std::vector<cli::ExitStatus>& exit_statuses()
{
    static const std::vector<cli::ExitStatus> table{
        {cli::exit_ok, "--once: the subnet is up on verified tables; --discover-only: every node answered; "
                       "the service: stopped by SIGTERM/SIGINT"},
        {cli::exit_failure, "run-time failure: no umad device or port, the port GUID not found, the state "
                            "directory not writable, the subnet not up (--once); the log line says why"},
        {cli::exit_partial, "partial: --once brought the subnet up on tables that failed verification "
                            "(DEGRADED); --discover-only did not reach every node"},
        {cli::exit_usage, "bad command line (unknown flag, bad value, a flag that does not apply to the mode)"},
        {cli::exit_config, "bad configuration: the file cannot be read, bad YAML, unknown key, value out of "
                           "range, routing.root_guid_file unreadable"},
    };
    return table;
}

namespace {

// Modes (at most one; none: the service). Returns --discover-only, which
// the configuration flags exclude and --dump-dir needs.
CLI::Option* add_modes(CLI::App& app, Options& o)
{
    const std::string modes = "Modes (at most one; none: run as the service)";
    auto* once = app.add_flag("--once", o.once,
                              "bring the subnet up (discover, LIDs, route, program, activate) and exit with 0 "
                              "when it is up, 2 when up on tables that failed verification, 1 when not up")
                     ->group(modes);
    auto* fg = app.add_flag("--foreground", o.foreground,
                            "as the service, but logging to the console; traps and light sweeps re-route, "
                            "SIGHUP reloads")
                   ->group(modes);
    auto* disc = app.add_flag("--discover-only", o.discover_only,
                              "run one heavy sweep, print what was found and exit (configures nothing; reads "
                              "no configuration file)")
                     ->group(modes);
    auto* print = app.add_flag("--print-config", o.print_config,
                               "print the effective configuration (file + flags) as YAML and exit")
                      ->group(modes);
    once->excludes(fg)->excludes(disc)->excludes(print);
    fg->excludes(disc)->excludes(print);
    disc->excludes(print);
    return disc;
}

// The flags that override the configuration file; --discover-only reads none.
void add_configuration(CLI::App& app, Options& o, CLI::Option* discover_only)
{
    const std::string conf = "Configuration (override the file; not with --discover-only)";
    auto* config = app.add_option_function<std::string>(
                         "--config",
                         [&o](const std::string& v) {
                             o.no_config = v == "none";
                             if (o.no_config)
                                 o.config_file.reset();
                             else
                                 o.config_file = v;
                         },
                         "YAML configuration file; SIGHUP re-reads it. Default: " IBSMD_DEFAULT_CONFIG
                         " when it exists; 'none': built-in defaults only")
                       ->type_name("FILE")
                       ->group(conf);
    auto* state = app.add_option_function<std::string>(
                         "--state-dir", [&o](const std::string& v) { o.overrides.state_dir = v; },
                         "directory of guid2lid and the dump files (state_dir)")
                      ->type_name("DIR")
                      ->group(conf);
    auto* engine = app.add_option_function<std::string>(
                          "--engine", [&o](const std::string& v) { o.overrides.engines = std::vector<std::string>{v}; },
                          "routing engine chain, tried in order (routing.engines); known: " +
                              config::known_engines_text())
                       ->type_name("E[,E2...]")
                       ->check(
                           [](const std::string& v) -> std::string {
                               auto names = config::split_engine_list(v);
                               auto problem = config::check_engine_chain(names);
                               return problem ? problem->message : std::string();
                           },
                           "")
                       ->group(conf);
    auto* lmc = app.add_option_function<unsigned>("--lmc", [&o](unsigned v) { o.lmc = v; }, "LID mask control, 0..7 (routing.lmc)")
                    ->type_name("N")
                    ->check(range(config::limits::lmc))
                    ->group(conf);
    auto* verify_inc =
        app.add_flag_function(
               "--verify-incremental", [&o](std::int64_t) { o.overrides.verify_incremental = true; },
               "debugging: after every re-route gated incrementally, run the full gate too and log an error "
               "naming the first difference (routing.verify_incremental)")
            ->group(conf);
    for (auto* opt : {config, state, engine, lmc, verify_inc}) opt->excludes(discover_only);
}

// The SM's port: by GUID, or by CA and port number.
void add_port(CLI::App& app, Options& o)
{
    const std::string port = "Port of the SM (sm.port_guid, sm.ca, sm.port)";
    auto* guid = app.add_option_function<std::string>(
                        "--port-guid", [&o](const std::string& v) { o.overrides.port_guid = parse_guid(v); },
                        "local port to run on, by port GUID (as ibstat prints it); for ibsmd@<guid>.service")
                     ->type_name("GUID")
                     ->check([](const std::string& v) -> std::string {
                         return parse_guid(v) ? std::string() : "expected a non-zero hex port GUID, got '" + v + "'";
                     })
                     ->group(port);
    auto* ca = app.add_option_function<std::string>(
                      "--ca", [&o](const std::string& v) { o.overrides.ca = o.ca_name = v; },
                      "CA to run on (default: the first one with a usable port)")
                   ->type_name("NAME")
                   ->group(port);
    auto* portnum = app.add_option_function<unsigned>(
                           "--port",
                           [&o](unsigned v) {
                               o.port_num = static_cast<int>(v);
                               o.overrides.port = v;
                           },
                           "port of that CA, 1..254 (default: the first usable)")
                        ->type_name("N")
                        ->check(range(config::limits::sm_port))
                        ->group(port);
    guid->excludes(ca)->excludes(portnum);
}

void add_smp(CLI::App& app, Options& o)
{
    const std::string smp = "SMP transport (smp.*)";
    app.add_option_function<unsigned>(
           "--smp-window", [&o](unsigned v) { o.overrides.smp_window = o.window = v; },
           "SMPs kept outstanding, 1..4096 (default 16)")
        ->type_name("N")
        ->check(range(config::limits::smp_window))
        ->group(smp);
    app.add_option_function<unsigned>(
           "--smp-timeout-ms",
           [&o](unsigned v) {
               o.overrides.smp_timeout_ms = v;
               o.timeout = std::chrono::milliseconds(v);
           },
           "per-SMP response timeout, 1..60000 ms (default 100)")
        ->type_name("N")
        ->check(range(config::limits::smp_timeout_ms))
        ->group(smp);
    app.add_option_function<unsigned>(
           "--smp-retries", [&o](unsigned v) { o.overrides.smp_retries = o.retries = v; },
           "resends after a timeout, 0..100 (default 3)")
        ->type_name("N")
        ->check(range(config::limits::smp_retries))
        ->group(smp);
}

// --dump-dir belongs to --discover-only: the SM writes into its state directory.
void add_output(CLI::App& app, Options& o, CLI::Option* discover_only)
{
    const std::string out = "Output";
    app.add_option_function<std::string>(
           "--log-level", [&o](const std::string& v) { o.overrides.log_level = o.log_level = v; },
           "log level (log.level): " + config::known_log_levels_text() + " (default info)")
        ->type_name("LEVEL")
        ->check(
            [](const std::string& v) -> std::string {
                return config::parse_log_level(v) ? std::string()
                                                  : "unknown level '" + v + "' (known: " +
                                                        config::known_log_levels_text() + ")";
            },
            "")
        ->group(out);
    app.add_option_function<std::string>("--dump-dir", [&o](const std::string& v) { o.dump_dir = v; },
                    "with --discover-only: write DIR/topology.net (ibnetdiscover format); the SM itself writes "
                    "its dumps into the state directory")
        ->type_name("DIR")
        ->needs(discover_only)
        ->group(out);
}

} // namespace

// The groups in the order --help and ibsmd(8) list them.
std::shared_ptr<CLI::App> make_cli(Options& o)
{
    auto app = std::make_shared<CLI::App>(description);
    cli::setup(*app, "ibsmd");
    auto* discover_only = add_modes(*app, o);
    add_configuration(*app, o, discover_only);
    add_port(*app, o);
    add_smp(*app, o);
    add_output(*app, o, discover_only);
    app->footer(cli::exit_status_text(exit_statuses()));
    return app;
}

Options parse_options(const std::vector<std::string>& args)
{
    Options o;
    auto app = make_cli(o);
    try {
        o.help = cli::parse_or_throw(*app, args);
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    return o;
}

} // namespace ibsm::daemon
