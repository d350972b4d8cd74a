// What each control command does, as a pure map from a Request to an
// answer through ControlHandlers (docs/operations.md, "Live control").
//
// Why handlers: the control wing knows none of the wings that act (the
// scheduler's queue, the status reporter, the health monitor, the log); the
// composition root hands it one function per command, so this wing builds
// alone and the dispatcher is tested with fakes.
//
// Data structures: ControlHandlers, one std::function per command, each
// optional: a command whose handler is not set is answered with an error
// saying this daemon does not offer it.
//
// Algorithm: dispatch() calls the command's handler and turns its result,
// or the exception it throws, into the answer line's object; `events`
// answers at once and asks the caller to follow the feed.
#pragma once

#include "daemon/control/protocol.h"
#include "health/port_health.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::daemon::control {

// An isolation or clear: done, or refused (text says why either way).
struct PortActionResult {
    bool ok = false;
    std::string text;
};

// `mkey show`: what the SM knows of one port's key (core/mkey_book.h).
struct MkeyPortView {
    bool known = false;          // a port of the fabric, or one the SM keyed
    std::optional<std::uint64_t> held; // the key it was last seen to hold
    std::uint64_t desired = 0;   // the key the SM wants it to hold (0: M_Key off)
    bool present = false;        // in the last sweep's fabric
};

// A drain or undrain (service/control_handlers.h): done, refused or, for a
// dry run, predicted; `text` says which and why, `whatif` carries the
// prediction (whatif/whatif.h: to_json) when there is one.
struct DrainOrder {
    DrainKind kind = DrainKind::switch_node;
    std::string target;
    bool dry_run = false;
};
struct DrainAnswer {
    bool ok = false;
    std::string text;
    nlohmann::json whatif; // null: none
};

struct LevelChange {
    config::LogLevel old_level = config::LogLevel::info;
    config::LogLevel new_level = config::LogLevel::info;
};

struct ControlHandlers {
    std::function<nlohmann::json()> status;                      // the live state.json object
    std::function<std::vector<health::PortHealth>()> port_rows;  // worst first
    std::function<nlohmann::json(const health::PortHealth&)> port_json; // one entry of "ports"
    std::function<PortActionResult(health::PortId, const std::string& reason)> isolate;
    std::function<PortActionResult(health::PortId)> clear;
    std::function<std::string(bool heavy)> resweep;              // what was queued, for the answer
    std::function<LevelChange(config::LogLevel)> log_level;
    std::function<PortActionResult()> mkey_rotate;   // started, or why not
    std::function<MkeyPortView(Guid)> mkey_show;
    std::function<DrainAnswer(const DrainOrder&)> drain;
    std::function<DrainAnswer(const DrainOrder&)> undrain;
};

struct Dispatched {
    nlohmann::json response;
    bool follow = false; // the connection now receives the events feed
};

// The reason an isolation by command carries into the health state.
inline constexpr const char* isolate_reason = "isolated by ibsm port isolate";

Dispatched dispatch(const Request& request, const ControlHandlers& handlers);

} // namespace ibsm::daemon::control
