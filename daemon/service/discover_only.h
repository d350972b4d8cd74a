// ibsmd --discover-only: one heavy sweep's discovery, logged (and
// DIR/topology.net with --dump-dir), then exit.
//
// Why apart from the SM: it configures nothing and does not claim the SM
// role on its port, and reads no configuration file (only the command
// line's port and SMP flags), so it is safe on a fabric another SM runs.
#pragma once

#include "daemon/service/options.h"

namespace ibsm::daemon {

// 0 when every node answered, 2 when some did not.
int run_discovery(const Options& opts);

} // namespace ibsm::daemon
