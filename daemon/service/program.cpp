#include "daemon/service/program.h"

#include "config/describe.h"
#include "daemon/service/discover_only.h"
#include "daemon/service/log_setup.h"
#include "daemon/service/run_report.h"
#include "daemon/service/settings.h"
#include "daemon/service/startup_checks.h"

#include <iostream>

namespace ibsm::daemon {

namespace {

// --once: configure the subnet and exit (0 up, 2 up but degraded, 1 not up).
// --foreground or the service: the long-running SM.
int start_sm(const Options& opts, const Serve& serve)
{
    const config::Config cfg = effective_config(opts);
    auto settings = bringup_settings(cfg); // before the log moves to its file: errors reach the console
    // --once leaves no SA behind: no host is asked to re-register with one.
    settings.ports.client_reregister = !opts.once;
    auto mkeys = checked_mkey_settings(cfg);
    check_state_dir(cfg.state_dir);
    auto log_file = setup_sm_logging(opts, cfg);
    auto [ca_name, port_num] = sm_port(cfg);
    mad::UmadPort port(ca_name, port_num, /*claim_sm=*/true);
    log_start(opts, cfg, port.attributes(), mkeys);
    SmStart start{opts, cfg, std::move(settings), std::move(mkeys), port, std::move(log_file)};
    return serve(start);
}

} // namespace

int run_ibsmd(int argc, char** argv, const Serve& serve)
{
    Options opts;
    {
        auto app = make_cli(opts);
        if (auto exit_code = cli::parse(*app, argc, argv)) return *exit_code;
    }
    setup_startup_logging(opts);

    try {
        if (opts.discover_only) return run_discovery(opts);
        if (opts.print_config) {
            std::cout << config::describe(effective_config(opts));
            return 0;
        }
        return start_sm(opts, serve);
    } catch (const config::ConfigError& e) {
        log_fatal(e.what());
        return cli::exit_config;
    } catch (const std::exception& e) {
        log_fatal(e.what());
        return cli::exit_failure;
    }
}

} // namespace ibsm::daemon
