// ibsmd from its command line to its exit status, around the SM that the
// composition root (daemon/main.cpp) builds and runs.
//
// Why here: the order of the start is a rule (docs/design.md, "Error
// tiers"): what can be found wrong before the SM touches the fabric is
// found first, while errors still reach the console (the configuration,
// routing.root_guid_file, the M_Key secret file, the state directory, the
// log file, the port), and each failure ends the start with one line and
// the exit status of its tier: 64 the command line, 78 the configuration
// (config::ConfigError), 1 anything else. Kept out of main.cpp, that is
// tested without a port.
//
// Algorithm: parse the command line; log to the console at --log-level;
// --discover-only and --print-config run and exit; otherwise read the
// configuration and everything it names, check the state directory, move
// the log to where the configuration says, open the SM's port, log the
// start, and hand all of it to `serve`, whose status is the exit status.
#pragma once

#include "config/config.h"
#include "daemon/core/mkey_book.h"
#include "daemon/service/log_file_sink.h"
#include "daemon/service/options.h"
#include "daemon/sweep/bringup.h"
#include "mad/umad_port.h"

#include <functional>
#include <memory>

namespace ibsm::daemon {

// What the start found, for the composition root.
struct SmStart {
    const Options& opts;
    const config::Config& cfg;
    BringupSettings bringup; // the partitions' rules included (settings.h)
    MkeySettings mkeys;
    mad::UmadPort& port;
    std::shared_ptr<LogFileSink> log_file; // null when logging to the console
};

// Runs the SM, returns the exit status (sm_loop.h).
using Serve = std::function<int(SmStart&)>;

int run_ibsmd(int argc, char** argv, const Serve& serve);

} // namespace ibsm::daemon
