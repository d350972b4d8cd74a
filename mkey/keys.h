// M_Keys of the fabric's ports (IBA 14.2.4), derived from one secret.
//
// Why: a port's M_Key guards its management state (PortInfo, forwarding
// tables, ...) against SubnSets from anyone but the SM. One key for the
// whole subnet (OpenSM's m_key) is exposed by any host that reads its own
// port's key; per-port keys derived with a PRF (siphash.h) expose only that
// port, and the SM needs to store nothing but the secret.
//
// Data structures: the mode and either the 128-bit secret (per-port) or the
// one key (fixed). Algorithm: key = SipHash-2-4(secret, GUID as 8 bytes in
// wire order); 0 disables the M_Key check (IBA 14.2.4.1), so a 0 result is
// hashed again with a ninth byte, and 1 is used in the (2^-128) case that
// is 0 too.
//
// The secret and the fixed key are wiped from a ring's memory when it dies
// (explicit_bzero: a plain memset of an object at the end of its life is a
// dead store the compiler may drop), and two rings compare in constant time,
// so neither a core dump of freed memory nor the time a comparison takes
// tells anything about the key.
#pragma once

#include "mad/types.h"
#include "mkey/siphash.h"

#include <cstdint>
#include <string>

namespace ibsm::mkey {

class KeyRing {
public:
    KeyRing() = default; // the all-zero secret: a setting before its ring is loaded
    KeyRing(const KeyRing&) = default;
    KeyRing& operator=(const KeyRing&) = default;
    ~KeyRing();

    // Every port's key is the hash of its GUID under `secret`.
    static KeyRing per_port(const SipKey& secret);
    // Every port holds `key` (must not be 0: the parser refuses it).
    static KeyRing fixed(std::uint64_t key);

    // The key of the port with this GUID (a switch: its port 0, whose GUID
    // is the node GUID). Never 0.
    std::uint64_t key_of(Guid port_guid) const;
    // 16 hex digits that tell two secrets apart in logs without revealing
    // either (a hash of the secret under a fixed key, not a port's key).
    std::string fingerprint() const;
    bool is_fixed() const { return fixed_ != 0; }

    // Looks at every byte whatever the ones before were: the time does not
    // say how much of a key matched.
    bool operator==(const KeyRing& other) const;

private:
    SipKey secret_{};
    std::uint64_t fixed_ = 0;
};

} // namespace ibsm::mkey
