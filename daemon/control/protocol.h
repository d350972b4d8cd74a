// The control socket's protocol (docs/operations.md, "Live control"): one
// JSON object per line each way. A request is {"id": any, "cmd": "...",
// ...arguments}; its answer {"id": same, "ok": true, ...result} or
// {"id": same, "ok": false, "error": "..."}.
//
// Why pure and separate: the reader sees bytes from whoever connects, so it
// is fuzzed (tests/fuzz/fuzz_control.cpp) and unit-tested apart from the
// socket; `ibsm` shares the command names and limits with the daemon.
//
// Data structures: LineReader keeps the bytes of an unfinished line
// (bounded by max_line); Request holds one validated command with typed
// arguments; RequestError the id (when it could be read) and what is wrong.
//
// Algorithm: bytes are split at '\n' (a '\r' before it is dropped, blank
// lines are skipped); a line longer than max_line ends the reading for good
// (the connection is closed: no resynchronisation inside a line). Each line
// is parsed as JSON, then every key is checked against the command's list:
// unknown keys, missing and mistyped arguments are errors naming the key.
#pragma once

#include "config/config.h"
#include "mad/types.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ibsm::daemon::control {

inline constexpr std::size_t max_line = 64 * 1024; // bytes of one request line
inline constexpr std::size_t max_limit = 1'000'000; // ports: the largest `limit`
inline constexpr std::size_t max_target = 256;      // drain: the longest target name

enum class Command { status, ports, port, resweep, log_level, events, mkey, drain, undrain };
enum class DrainKind { switch_node, link };
enum class PortAction { isolate, clear };
enum class MkeyAction { rotate, show };

std::string_view command_name(Command c); // "log-level"
std::string_view action_name(PortAction a);
std::string_view action_name(MkeyAction a);
std::string_view kind_name(DrainKind k); // "switch", "link"

struct Request {
    nlohmann::json id; // null when the request had none
    Command cmd = Command::status;
    std::optional<std::size_t> limit; // ports
    PortAction action = PortAction::isolate; // port
    Guid node_guid;                          // port
    PortNum port;                            // port
    bool heavy = false;                      // resweep
    config::LogLevel level = config::LogLevel::info; // log-level
    bool follow = false;                     // events
    MkeyAction mkey_action = MkeyAction::show; // mkey
    Guid port_guid;                            // mkey show
    DrainKind drain_kind = DrainKind::switch_node; // drain, undrain
    std::string target;                            // drain, undrain: NAME|GUID or GUID/PORT
    bool dry_run = false;                          // drain
};

struct RequestError {
    nlohmann::json id; // null when it could not be read
    std::string error;
};

using Parsed = std::variant<Request, RequestError>;

// One line (without its '\n') to a request or a precise error.
Parsed parse_request(std::string_view line);

// The request `ibsm` sends, as a JSON object (the inverse of parse_request).
nlohmann::json request_json(const Request& r);

// Answers, as objects; to_line() makes them one line (invalid UTF-8 in
// strings, as a node description may hold, is replaced, never thrown on).
nlohmann::json ok_response(const nlohmann::json& id, nlohmann::json result = nlohmann::json::object());
nlohmann::json error_response(const nlohmann::json& id, std::string_view error);
std::string to_line(const nlohmann::json& j);

// Incremental framing of a byte stream into lines.
class LineReader {
public:
    explicit LineReader(std::size_t limit = max_line) : limit_(limit) {}

    // The complete lines in `bytes` after what came before. Once a line
    // exceeds the limit, overlong() is true and nothing more is returned.
    std::vector<std::string> feed(std::string_view bytes);
    bool overlong() const { return overlong_; }
    std::size_t pending() const { return partial_.size(); }

private:
    std::size_t limit_;
    std::string partial_;
    bool overlong_ = false;
};

// The error a too-long line gets before the connection closes.
std::string overlong_error(std::size_t limit = max_line);

} // namespace ibsm::daemon::control
