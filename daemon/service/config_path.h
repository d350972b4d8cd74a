// Which configuration file ibsmd reads: the installed default
// (sysconfdir/ibsmd/ibsmd.yaml, /etc/ibsmd/ibsmd.yaml for a /usr install)
// when it exists and no --config was given, so the service and an operator
// at the console run with the same file; `--config none` for the built-in
// defaults even when it exists.
#pragma once

#include "daemon/service/options.h"

#include <filesystem>
#include <optional>

namespace ibsm::daemon {

// The default file of this build (from Meson's sysconfdir).
const char* default_config_file();

// nullopt: the built-in defaults.
std::optional<std::filesystem::path> config_file_to_read(const Options& opts,
                                                         const std::filesystem::path& default_file);

} // namespace ibsm::daemon
