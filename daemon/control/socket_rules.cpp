#include "daemon/control/socket_rules.h"

#include "config/config.h"

#include <string_view>

namespace ibsm::daemon::control {

namespace {

// `dir` without trailing slashes, or empty when it is not absolute.
std::string_view absolute_dir(std::string_view dir)
{
    while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
    return !dir.empty() && dir.front() == '/' ? dir : std::string_view{};
}

std::string in_dir(std::string_view dir) { return std::string(dir) + (dir == "/" ? "" : "/") + socket_name; }

} // namespace

std::string socket_path(const std::string& configured, const char* runtime_directory, const std::string& state_dir)
{
    if (!configured.empty()) return configured;
    std::string_view runtime = runtime_directory ? runtime_directory : "";
    if (auto dir = absolute_dir(runtime.substr(0, runtime.find(':'))); !dir.empty()) return in_dir(dir);
    if (auto dir = absolute_dir(state_dir); !dir.empty()) {
        auto path = in_dir(dir);
        if (path.size() <= config::max_socket_path) return path;
    }
    return in_dir(fallback_socket_dir);
}

std::optional<std::string> refuse_peer(std::optional<uid_t> uid)
{
    if (!uid) return "permission denied: the control socket cannot tell who is connecting";
    if (*uid != 0) return "permission denied: the control socket serves root only";
    return std::nullopt;
}

} // namespace ibsm::daemon::control
