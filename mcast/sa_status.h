// SA-specific status codes (IBA 15.2.1.1, table 194), carried in bits 8..14
// of the MAD status of an SA response. The multicast and partition rules
// return them as values; the SA agent puts them on the wire.
#pragma once

#include <cstdint>

namespace ibsm::mcast {

enum class SaStatus : std::uint8_t {
    ok = 0,
    no_resources = 1,            // ERR_NO_RESOURCES
    req_invalid = 2,             // ERR_REQ_INVALID
    no_records = 3,              // ERR_NO_RECORDS
    too_many_records = 4,        // ERR_TOO_MANY_RECORDS
    invalid_gid = 5,             // ERR_REQ_INVALID_GID
    insufficient_components = 6, // ERR_REQ_INSUFFICIENT_COMPONENTS
    denied = 7,                  // ERR_REQ_DENIED
};

// The MAD status word of an SA response with this code (bits 8..14).
constexpr std::uint16_t mad_status(SaStatus s) { return static_cast<std::uint16_t>(static_cast<unsigned>(s) << 8); }

const char* to_string(SaStatus s);

} // namespace ibsm::mcast
