// Start-up checks of ibsmd (docs/design.md, "Error tiers", tier 1): what can be found
// wrong before the SM touches the fabric is found here and ends the start
// with one line saying what to do, instead of surfacing mid-sweep as a
// failed write. Later failures of the same kind (a disk that fills up) are
// run-time failures: logged, retried, the SM keeps running.
#pragma once

#include "config/config.h"
#include "daemon/core/mkey_book.h"

#include <string>

namespace ibsm::daemon {

// Creates `dir` if missing and proves it writable by creating and removing
// a file in it. Throws std::runtime_error naming the directory, the reason
// and the fix.
void check_state_dir(const std::string& dir);

// security.mkey's settings (settings.h: mkey_settings). A secret file that
// cannot be read, is refused for its modes or is malformed throws
// std::runtime_error naming the file: the SM does not start without the
// keys it was told to use.
MkeySettings checked_mkey_settings(const config::Config& cfg);

} // namespace ibsm::daemon
