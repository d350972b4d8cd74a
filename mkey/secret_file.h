// The M_Key secret file: what it may look like and who may read it.
//
// Why: the secret is the key to every port's management state, so it never
// sits in the YAML (which is world-readable and printed by --print-config)
// but in a file only root can read; a file others could read is refused
// rather than trusted, as ssh refuses a private key with loose modes.
//
// Format: '#' starts a comment; blank lines are ignored; one value on one
// line: per-port mode, the 128-bit secret as 32 hex digits; fixed mode, the
// 64-bit key as at most 16 hex digits (optional 0x), not 0.
#pragma once

#include "mkey/keys.h"

#include <string>
#include <string_view>
#include <sys/types.h>
#include <variant>

namespace ibsm::mkey {

enum class SecretKind { per_port, fixed };

// Pure: the key ring the text describes, or an error naming `path` and the
// line ("/etc/ibsmd/mkey.secret:3: expected 32 hex digits, found 31").
std::variant<KeyRing, std::string> parse_secret(std::string_view text, SecretKind kind, const std::string& path);

// Pure: nullopt-like empty string when a file of this owner and mode may
// hold the secret (owned by root, no group or other permission bits, a
// regular file); otherwise the reason, naming the path and the mode.
std::string permission_problem(const std::string& path, uid_t owner, mode_t mode);

// Reads and checks the file: the key ring or the reason it was refused.
std::variant<KeyRing, std::string> load_secret_file(const std::string& path, SecretKind kind);

} // namespace ibsm::mkey
