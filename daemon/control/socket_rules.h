// The control socket's pure rules: where it lives and whom it serves.
//
// Why apart from the server: the path default and the peer check are the
// security of the socket; as pure functions they are unit-tested without
// a socket or a second user.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace ibsm::daemon::control {

inline constexpr const char* fallback_socket_dir = "/run/ibsmd";
inline constexpr const char* socket_name = "control.sock";

// control.socket when set; else the first directory of
// `runtime_directory` (systemd's RUNTIME_DIRECTORY, colon-separated when a
// unit names several; null or empty when not under systemd) with
// control.sock, else /run/ibsmd/control.sock.
std::string socket_path(const std::string& configured, const char* runtime_directory);

// The one line a refused peer gets, or nullopt to serve it. `uid` is the
// peer's (SO_PEERCRED), nullopt when the kernel did not say.
std::optional<std::string> refuse_peer(std::optional<uid_t> uid);

} // namespace ibsm::daemon::control
