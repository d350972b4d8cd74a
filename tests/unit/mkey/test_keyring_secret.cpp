// What a KeyRing does with its secret beyond deriving keys: equality looks
// at every byte (the result; that it takes constant time is in the code, a
// unit test cannot time it reliably), and a ring that dies leaves no copy of
// the secret or of the fixed key in its memory.
#include "mkey/keys.h"
#include "mkey/siphash.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <new>
#include <optional>

using namespace ibsm;
using namespace ibsm::mkey;

namespace {

SipKey secret_with(std::uint8_t first)
{
    SipKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(first + i);
    return k;
}

// Storage of our own for one KeyRing, so its bytes can be read after the
// ring's destructor ran (an unsigned char array outlives the object built
// in it; reading it is defined).
struct RingStorage {
    alignas(KeyRing) std::array<unsigned char, sizeof(KeyRing)> bytes{};

    template <std::size_t N> bool holds(const std::array<unsigned char, N>& pattern) const
    {
        return std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end()) != bytes.end();
    }
    bool all_zero() const
    {
        return std::all_of(bytes.begin(), bytes.end(), [](unsigned char b) { return b == 0; });
    }
};

std::array<unsigned char, 8> bytes_of(std::uint64_t v)
{
    std::array<unsigned char, 8> out{};
    std::copy_n(reinterpret_cast<const unsigned char*>(&v), 8, out.begin());
    return out;
}

} // namespace

TEST_CASE("KeyRings are equal exactly when mode, secret and key are")
{
    const SipKey a = secret_with(0xa0);
    CHECK(KeyRing::per_port(a) == KeyRing::per_port(a));
    CHECK(KeyRing::per_port(a) == KeyRing::per_port(secret_with(0xa0)));
    // A difference in any one byte, first, middle or last, is seen.
    for (std::size_t i = 0; i < a.size(); ++i) {
        SipKey b = a;
        b[i] ^= 0x01;
        INFO("byte " << i);
        CHECK_FALSE(KeyRing::per_port(a) == KeyRing::per_port(b));
        CHECK_FALSE(KeyRing::per_port(b) == KeyRing::per_port(a));
    }
    CHECK(KeyRing::fixed(0xdeadbeef) == KeyRing::fixed(0xdeadbeef));
    // Either half of the 64-bit key.
    CHECK_FALSE(KeyRing::fixed(0xdeadbeef) == KeyRing::fixed(0xdeadbeee));
    CHECK_FALSE(KeyRing::fixed(0x1'0000'0001) == KeyRing::fixed(0x2'0000'0001));
    CHECK_FALSE(KeyRing::fixed(0x1234) == KeyRing::per_port(a));
    CHECK_FALSE(KeyRing::per_port(a) == KeyRing::fixed(0x1234));
    // A copy is equal, and stays equal after the original died.
    std::optional<KeyRing> original = KeyRing::per_port(a);
    const KeyRing copy = *original;
    CHECK(copy == *original);
    original.reset();
    CHECK(copy == KeyRing::per_port(a));
    CHECK(copy.key_of(Guid{0x0002c90300000001}) == KeyRing::per_port(a).key_of(Guid{0x0002c90300000001}));
}

TEST_CASE("a per-port KeyRing wipes its secret when it dies")
{
    const SipKey secret = secret_with(0xa0);
    RingStorage s;
    auto* ring = new (s.bytes.data()) KeyRing(KeyRing::per_port(secret));
    REQUIRE(s.holds(secret)); // alive, the ring holds the secret where we can see it
    CHECK(ring->key_of(Guid{1}) != 0);
    ring->~KeyRing();
    CHECK_FALSE(s.holds(secret));
    CHECK(s.all_zero());
}

TEST_CASE("a fixed KeyRing wipes its key when it dies, and an assigned-over ring keeps no old secret")
{
    const std::uint64_t key = 0x0123456789abcdef;
    RingStorage s;
    auto* ring = new (s.bytes.data()) KeyRing(KeyRing::fixed(key));
    REQUIRE(s.holds(bytes_of(key)));
    ring->~KeyRing();
    CHECK_FALSE(s.holds(bytes_of(key)));
    CHECK(s.all_zero());

    const SipKey old_secret = secret_with(0x10);
    ring = new (s.bytes.data()) KeyRing(KeyRing::per_port(old_secret));
    REQUIRE(s.holds(old_secret));
    *ring = KeyRing::per_port(secret_with(0x60));
    CHECK_FALSE(s.holds(old_secret));
    ring->~KeyRing();
    CHECK(s.all_zero());
}
