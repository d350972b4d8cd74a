// Where ibsmd's log lines go, decided once at start (docs/design.md,
// "Layers and wings": the daemon owns I/O).
//
//   console (--once, --foreground, and before the configuration is read):
//     stderr; when stderr is journald's stream (journal_stream_sink.h):
//     "<N>" priority per line and no timestamp, else the timestamped,
//     coloured pattern as before.
//   service (no mode): log.file (LogFileSink: SIGUSR1 reopens it,
//     log.max_size_mb caps it), timestamped; under systemd also the
//     journal as above, so `systemctl status` shows the last lines and
//     `journalctl -p err` finds the errors.
#pragma once

#include "config/config.h"
#include "daemon/service/log_file_sink.h"
#include "daemon/service/options.h"

#include <memory>
#include <string>

namespace ibsm::daemon {

inline constexpr const char* file_log_pattern = "%Y-%m-%d %H:%M:%S.%e %^%l%$ %v";

// Makes `name` the default logger at `level`; returns the file sink in
// service mode (null on the console).
std::shared_ptr<LogFileSink> setup_logging(const char* name, bool console, const config::LogConfig& log);

// Before the configuration is read: the console, at --log-level.
void setup_startup_logging(const Options& opts);

// The SM's logging from `cfg`: log.file for the service, the console for
// --once and --foreground. A log file that cannot be opened throws
// std::runtime_error naming log.file and the fixes.
std::shared_ptr<LogFileSink> setup_sm_logging(const Options& opts, const config::Config& cfg);

// `ibsm log-level`: the default logger's level from now on (a SIGHUP
// reload sets log.level again); returns the level it had.
config::LogLevel set_log_level(config::LogLevel level);

// The one line a failed start ends with; on stderr when the log level hides
// errors, so even --log-level off says why ibsmd stopped.
void log_fatal(const std::string& what);

} // namespace ibsm::daemon
