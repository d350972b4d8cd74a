#include "daemon/control/socket_rules.h"

#include <string_view>

namespace ibsm::daemon::control {

std::string socket_path(const std::string& configured, const char* runtime_directory)
{
    if (!configured.empty()) return configured;
    std::string_view dir = runtime_directory ? runtime_directory : "";
    dir = dir.substr(0, dir.find(':'));
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    if (dir.empty() || dir.front() != '/') dir = fallback_socket_dir;
    return std::string(dir) + (dir == "/" ? "" : "/") + socket_name;
}

std::optional<std::string> refuse_peer(std::optional<uid_t> uid)
{
    if (!uid) return "permission denied: the control socket cannot tell who is connecting";
    if (*uid != 0) return "permission denied: the control socket serves root only";
    return std::nullopt;
}

} // namespace ibsm::daemon::control
