#include "mkey/siphash.h"

#include <bit>

namespace ibsm::mkey {

namespace {

std::uint64_t load_le(const std::uint8_t* p, std::size_t n)
{
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
    return v;
}

struct Lanes {
    std::uint64_t v0, v1, v2, v3;

    void round()
    {
        v0 += v1;
        v1 = std::rotl(v1, 13);
        v1 ^= v0;
        v0 = std::rotl(v0, 32);
        v2 += v3;
        v3 = std::rotl(v3, 16);
        v3 ^= v2;
        v0 += v3;
        v3 = std::rotl(v3, 21);
        v3 ^= v0;
        v2 += v1;
        v1 = std::rotl(v1, 17);
        v1 ^= v2;
        v2 = std::rotl(v2, 32);
    }

    void absorb(std::uint64_t m)
    {
        v3 ^= m;
        round();
        round();
        v0 ^= m;
    }
};

} // namespace

std::uint64_t siphash24(const SipKey& key, std::span<const std::uint8_t> message)
{
    const std::uint64_t k0 = load_le(key.data(), 8);
    const std::uint64_t k1 = load_le(key.data() + 8, 8);
    // The constants spell "somepseudorandomlygeneratedbytes".
    Lanes s{k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL, k0 ^ 0x6c7967656e657261ULL,
            k1 ^ 0x7465646279746573ULL};
    const std::size_t whole = message.size() / 8 * 8;
    for (std::size_t i = 0; i < whole; i += 8) s.absorb(load_le(message.data() + i, 8));
    const std::uint64_t last =
        (std::uint64_t{message.size() & 0xff} << 56) | load_le(message.data() + whole, message.size() - whole);
    s.absorb(last);
    s.v2 ^= 0xff;
    for (int i = 0; i < 4; ++i) s.round();
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

} // namespace ibsm::mkey
