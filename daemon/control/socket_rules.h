// The control socket's pure rules: where it lives and whom it serves.
//
// Why apart from the server: the path default and the peer check are the
// security of the socket; as pure functions they are unit-tested without
// a socket or a second user. ibsmd and `ibsm` take the default from the
// same function, so `ibsm --state-dir DIR` finds the socket of the ibsmd
// that runs on DIR even without its state.json.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace ibsm::daemon::control {

inline constexpr const char* fallback_socket_dir = "/run/ibsmd";
inline constexpr const char* socket_name = "control.sock";

// Where the socket is, first that applies:
//  1. control.socket (`configured`) when set;
//  2. the first directory of `runtime_directory` (systemd's
//     RUNTIME_DIRECTORY, colon-separated when a unit names several; null or
//     empty when not under systemd) with control.sock: the units' own;
//  3. `state_dir`/control.sock, so that SMs with their own state
//     directories (two `ibsmd --foreground` on one host) have their own
//     sockets; `state_dir` must be absolute (the callers make it so) and
//     the path must fit a Unix socket address (config::max_socket_path);
//  4. /run/ibsmd/control.sock.
std::string socket_path(const std::string& configured, const char* runtime_directory, const std::string& state_dir);

// The one line a refused peer gets, or nullopt to serve it. `uid` is the
// peer's (SO_PEERCRED), nullopt when the kernel did not say.
std::optional<std::string> refuse_peer(std::optional<uid_t> uid);

} // namespace ibsm::daemon::control
