#include "daemon/service/config_path.h"

#include "daemon/service/install_paths.h"

#include <system_error>

namespace ibsm::daemon {

const char* default_config_file() { return IBSMD_DEFAULT_CONFIG; }

std::optional<std::filesystem::path> config_file_to_read(const Options& opts,
                                                         const std::filesystem::path& default_file)
{
    if (opts.config_file) return std::filesystem::path(*opts.config_file);
    if (opts.no_config) return std::nullopt;
    std::error_code ec;
    // A file that exists but cannot be read is an error load_config_file
    // names; only a missing file means "use the defaults".
    if (std::filesystem::exists(default_file, ec)) return default_file;
    return std::nullopt;
}

} // namespace ibsm::daemon
