// What a SIGHUP reload may change while ibsmd runs. Reloadable: everything
// under routing.* (the next heavy sweep re-routes with it), sweep.* (timers
// re-armed with the new periods), dump.* (read when the next dumps are
// written), qos (the next sweep compiles and programs the new policy),
// security.* (the next sweep re-keys the ports) and log.level.
// Everything else needs a restart: the SM's port (sm.port_guid, sm.ca,
// sm.port) is opened at start-up, state_dir holds the LID map in use, and the
// remaining keys are fixed when the transport, logger and timers are built.
#pragma once

#include "config/config.h"

#include <string>
#include <utility>
#include <vector>

namespace ibsm::config {

// Every dotted key with its value as text ("[ftree, minhop]", "0x...",
// "(not set)"), in schema order.
std::vector<std::pair<std::string, std::string>> flatten(const Config& config);

// routing.*, sweep.*, dump.*, perf.*, health.*, qos, security.*, log.level,
// sm.priority and sm.polling_*.
bool is_reloadable_key(std::string_view dotted_key);

// True when `next` differs from `running` only in reloadable keys. Otherwise
// false, and (if why_not is given) one line per offending key is appended:
//   "state_dir: '/var/lib/ibsmd' -> '/tmp/x' needs a restart (only routing.*, sweep.*, dump.*, perf.*, health.*, qos, security.*, log.level, sm.priority and sm.polling_* reload)"
bool reload_compatible(const Config& running, const Config& next, std::vector<std::string>* why_not);

} // namespace ibsm::config
