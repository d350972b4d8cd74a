#include "mkey/keys.h"

#include "mkey/wipe.h"

#include <array>
#include <cstdio>

namespace ibsm::mkey {

KeyRing::~KeyRing()
{
    wipe(secret_.data(), secret_.size());
    wipe(&fixed_, sizeof fixed_);
}

bool KeyRing::operator==(const KeyRing& other) const
{
    // volatile: each byte's difference is folded in as written, so the
    // compiler cannot stop at the first byte that differs.
    volatile unsigned diff = 0;
    for (std::size_t i = 0; i < secret_.size(); ++i) diff = diff | static_cast<unsigned>(secret_[i] ^ other.secret_[i]);
    const std::uint64_t fixed_diff = fixed_ ^ other.fixed_;
    diff = diff | static_cast<unsigned>(fixed_diff | fixed_diff >> 32);
    return diff == 0;
}

KeyRing KeyRing::per_port(const SipKey& secret)
{
    KeyRing r;
    r.secret_ = secret;
    return r;
}

KeyRing KeyRing::fixed(std::uint64_t key)
{
    KeyRing r;
    r.fixed_ = key ? key : 1;
    return r;
}

std::uint64_t KeyRing::key_of(Guid port_guid) const
{
    if (fixed_ != 0) return fixed_;
    std::array<std::uint8_t, 9> in{};
    for (int i = 0; i < 8; ++i) in[i] = static_cast<std::uint8_t>(port_guid.value() >> (56 - 8 * i));
    if (auto k = siphash24(secret_, std::span(in).first(8))) return k;
    in[8] = 1;
    if (auto k = siphash24(secret_, in)) return k;
    return 1;
}

std::string KeyRing::fingerprint() const
{
    // The secret is the message here and the key is public: the result is
    // a one-way function of the secret, unrelated to any port's key.
    static constexpr SipKey label{'i', 'b', 's', 'm', 'd', ' ', 'm', 'k', 'e', 'y', ' ', 'f', 'p', 'r', 'n', 't'};
    std::array<std::uint8_t, 24> in{};
    for (std::size_t i = 0; i < 16; ++i) in[i] = secret_[i];
    for (int i = 0; i < 8; ++i) in[16 + i] = static_cast<std::uint8_t>(fixed_ >> (8 * i));
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(siphash24(label, in)));
    wipe(in.data(), in.size()); // a copy of the secret
    return buf;
}

} // namespace ibsm::mkey
