#include "daemon/service/run_report.h"

#include "daemon/service/config_path.h"

#include <spdlog/spdlog.h>

#include <string>

namespace ibsm::daemon {

void log_start(const Options& opts, const config::Config& cfg, const mad::PortAttributes& port,
               const MkeySettings& mkeys)
{
    spdlog::info("ibsmd: SM on {} port {} (port GUID {}), engines {}, LMC {}, state dir {}", port.ca_name,
                 port.port_num, port.port_guid.str(), fmt::join(cfg.routing.engines, ","), cfg.routing.lmc,
                 cfg.state_dir);
    auto file = config_file_to_read(opts, default_config_file());
    spdlog::info("configuration: {}", file ? file->string() : std::string("built-in defaults"));
    if (mkeys.enabled)
        spdlog::info("M_Key protection on: {} keys (secret fingerprint {}), protect bits {}, lease {} s",
                     mkeys.ring.is_fixed() ? "fixed" : "per-port", mkeys.ring.fingerprint(), mkeys.protect_bits,
                     mkeys.lease_period_s);
}

void log_totals(const mad::TransportCounters& tc, const SmInfoCounters& rc, const SaCounters& sc)
{
    spdlog::info("inbound MADs: {} requests/traps (SMInfo Gets answered {}, traps {}, other {} of which {} answered "
                 "'unsupported'), {} malformed, {} unmatched responses",
                 tc.unsolicited, rc.sm_info_answered, rc.traps, rc.ignored, rc.unsupported_answered, tc.malformed,
                 tc.unmatched);
    spdlog::info("SA: {} MADs received, {} answered ({} with an error status, {} malformed), {} RMPP transfers "
                 "({} completed, {} aborted, {} segments), {} Reports ({} acknowledged, {} given up)",
                 sc.received, sc.answered, sc.errors, sc.malformed, sc.rmpp_transfers, sc.rmpp_completed,
                 sc.rmpp_aborted, sc.rmpp_segments, sc.reports_sent, sc.reports_acked, sc.reports_failed);
}

void log_exit(bool signalled, int exit_code)
{
    spdlog::info("ibsmd: exiting ({})", signalled        ? "signal"
                                        : exit_code == 0 ? "ok"
                                        : exit_code == 2 ? "subnet up but degraded"
                                                         : "subnet not up");
}

} // namespace ibsm::daemon
