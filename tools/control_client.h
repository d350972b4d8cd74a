// ibsm's side of the control socket (docs/operations.md, "Live control"):
// which socket, connecting, one request and its answer, or the events feed.
//
// Why one place: every live command finds the socket the same way as
// `ibsm status` finds state.json (--socket, else the control.socket that
// the daemon's state.json names under --state-dir or --config's state_dir,
// else the daemon's default for that state directory) and reports the same
// errors: the daemon is not
// running, the caller is not root, the daemon refused the request.
#pragma once

#include "tools/args.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace ibsm::tools {

// Cannot talk to the daemon at all (not running, permission denied).
class ControlUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The daemon answered {"ok": false}: its error text.
class ControlRefused : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The options every live command takes.
std::vector<OptionSpec> control_options();

// The daemon's state directory from --state-dir or --config (the default
// state_dir without either); UsageError when both are given.
std::string state_dir_of(const Args& args);

// The socket: --socket, else --config's control.socket, else state.json's
// control.socket, else ibsmd's default for the state directory
// (daemon/control/socket_rules.h).
std::string control_socket_of(const Args& args);

class ControlClient {
public:
    // Connects; ControlUnavailable says why not.
    explicit ControlClient(std::string path);
    ~ControlClient();
    ControlClient(const ControlClient&) = delete;
    ControlClient& operator=(const ControlClient&) = delete;

    // Sends `request` and returns the answer's object (ok: true);
    // ControlRefused with the daemon's error otherwise.
    nlohmann::json call(const nlohmann::json& request);
    // After a request that follows (events): every further line until the
    // daemon closes the connection or `line` returns false.
    void follow(const std::function<bool(const std::string& line)>& line);

    const std::string& path() const { return path_; }

private:
    std::optional<std::string> read_line();

    std::string path_;
    int fd_ = -1;
    std::string buffered_;
};

} // namespace ibsm::tools
