// Live M_Key rotation: `ibsm mkey rotate` and a reload whose security.mkey
// (or secret file) changed hand the key book a new key ring, and the next
// sweep re-keys the fabric with no outage (core/mkey_book.h: each PortInfo
// Set carries the key the port holds and sets the new one; both rings are
// tried until every port of the fabric confirmed its new key).
//
// Why a decision apart from the book: a rotation is the operator's act, so
// one that would change nothing (the file still holds the secret in use) or
// cannot be made (M_Key off, a file refused for its modes) is refused with
// the reason, and the keys in use stay; the rules are tested without a
// file, a socket or a fabric (like service/reload.h).
//
// Algorithm: the secret file is read again under the running configuration
// (settings.h: mkey_settings); unreadable -> refuse with its error; M_Key
// off before and after -> refuse; the same settings -> refuse, naming the
// file to write a new secret to; else start: the book takes the settings
// and the caller asks for a heavy sweep.
#pragma once

#include "config/config.h"
#include "daemon/core/mkey_book.h"

#include <string>
#include <variant>

namespace ibsm::daemon {

struct RotationDecision {
    bool start = false;
    std::string text; // why refused, or what changes (fingerprints only, never a key)
};

// Pure: `next` is the settings the configuration and its secret file give
// now (or why they cannot be had); `secret_file` is named in a refusal.
RotationDecision decide_rotation(const MkeySettings& running, const std::variant<MkeySettings, std::string>& next,
                                 const std::string& secret_file);

// Reads the secret file of `running_config` again, decides, logs the
// decision, and on start hands the book the new settings. The caller queues
// the heavy sweep that carries the rotation out.
RotationDecision rotate_mkeys(MkeyBook& book, const config::Config& running_config);

} // namespace ibsm::daemon
