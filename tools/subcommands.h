// The ibsm subcommands, one source file each. A subcommand declares its
// options and help (CommandSpec, tools/args.h), gets them parsed as Args,
// returns the exit status, and throws UsageError for a bad combination
// that the declaration cannot express. To add one, declare it here and add
// it to the list in ibsm_cli.cpp.
#pragma once

#include "tools/args.h"

namespace ibsm::tools {

const CommandSpec& topogen_command();
const CommandSpec& route_command();
const CommandSpec& topodiff_command();
const CommandSpec& analyze_command();
const CommandSpec& status_command();
const CommandSpec& report_command();
// Live, over the daemon's control socket (control.cpp).
const CommandSpec& ports_command();
const CommandSpec& port_command();
const CommandSpec& resweep_command();
const CommandSpec& log_level_command();
const CommandSpec& events_command();
const CommandSpec& mkey_command();
const CommandSpec& drain_command();
const CommandSpec& undrain_command();
// Offline: a planned change's effect on the routing (whatif.cpp).
const CommandSpec& whatif_command();
// Offline: OpenSM's configuration as an ibsmd.yaml (import_opensm.cpp).
const CommandSpec& import_opensm_command();

} // namespace ibsm::tools
