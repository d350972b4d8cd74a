#include "mkey/keys.h"
#include "mkey/secret_file.h"
#include "mkey/siphash.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <variant>
#include <vector>

using namespace ibsm;
using namespace ibsm::mkey;

namespace {

SipKey counting_key()
{
    SipKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i);
    return k;
}

const SipKey secret_a = [] {
    SipKey k{};
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(0xa0 + i);
    return k;
}();

} // namespace

TEST_CASE("siphash24 matches the reference vectors of the SipHash paper")
{
    // Key 00..0f, message 00..n-1 (the reference implementation's
    // vectors_sip64); n = 15 is the paper's worked example (appendix A).
    const std::uint64_t expected[] = {
        0x726fdb47dd0e0e31, 0x74f839c593dc67fd, 0x0d6c8009d9a94f5a, 0x85676696d7fb7e2d, 0xcf2794e0277187b7,
        0x18765564cd99a68d, 0xcbc9466e58fee3ce, 0xab0200f58b01d137, 0x93f5f5799a932462, 0x9e0082df0ba9e4b0,
        0x7a5dbbc594ddb9f3, 0xf4b32f46226bada7, 0x751e8fbc860ee5fb, 0x14ea5627c0843d90, 0xf723ca908e7af2ee,
        0xa129ca6149be45e5, 0x3f2acc7f57c29bdb,
    };
    std::vector<std::uint8_t> msg;
    for (std::size_t n = 0; n < std::size(expected); ++n) {
        INFO("message length " << n);
        CHECK(siphash24(counting_key(), msg) == expected[n]);
        msg.push_back(static_cast<std::uint8_t>(n));
    }
    CHECK(siphash24(SipKey{}, {}) == 0x1e924b9d737700d7);
}

TEST_CASE("per-port keys differ per port and per secret, are stable and never 0")
{
    const auto ring = KeyRing::per_port(secret_a);
    SipKey other = secret_a;
    other[15] ^= 1;
    const auto ring2 = KeyRing::per_port(other);
    std::set<std::uint64_t> keys;
    for (std::uint64_t g = 0x0002c90300000001; g < 0x0002c90300000001 + 1000; ++g) {
        const auto k = ring.key_of(Guid{g});
        CHECK(k != 0);
        CHECK(k == ring.key_of(Guid{g}));
        CHECK(k != ring2.key_of(Guid{g}));
        keys.insert(k);
    }
    CHECK(keys.size() == 1000);
    // The GUID enters in wire order: the key is the hash of its 8 bytes.
    const std::uint8_t wire[8] = {0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x00, 0x01};
    CHECK(ring.key_of(Guid{0x0002c90300000001}) == siphash24(secret_a, wire));
    CHECK(ring.fingerprint() != ring2.fingerprint());
    CHECK(ring.fingerprint().size() == 16);
}

TEST_CASE("a fixed key is the key of every port")
{
    const auto ring = KeyRing::fixed(0x1234);
    CHECK(ring.key_of(Guid{1}) == 0x1234);
    CHECK(ring.key_of(Guid{0xffff}) == 0x1234);
    CHECK(ring.is_fixed());
}

TEST_CASE("the secret file: per-port and fixed values, comments, errors name file and line")
{
    const std::string p = "/etc/ibsmd/mkey.secret";
    auto ok = parse_secret("# ibsmd M_Key secret\n\n a0a1a2a3a4a5a6a7a8a9aaabacadaeaf  # made by openssl rand\n",
                           SecretKind::per_port, p);
    REQUIRE(std::holds_alternative<KeyRing>(ok));
    CHECK(std::get<KeyRing>(ok) == KeyRing::per_port(secret_a));

    auto fixed = parse_secret("0x00000000DEADBEEF\n", SecretKind::fixed, p);
    REQUIRE(std::holds_alternative<KeyRing>(fixed));
    CHECK(std::get<KeyRing>(fixed).key_of(Guid{7}) == 0xdeadbeef);

    auto err = [&](std::string_view text, SecretKind kind) {
        auto r = parse_secret(text, kind, p);
        REQUIRE(std::holds_alternative<std::string>(r));
        return std::get<std::string>(r);
    };
    CHECK(err("# only a comment\n", SecretKind::per_port) == p + ": no secret in the file");
    CHECK(err("\n\na0a1a2\n", SecretKind::per_port) == p + ":3: expected 32 hex digits (128 bits), found 6");
    CHECK(err("a0a1a2a3a4a5a6a7a8a9aaabacadaeaX\n", SecretKind::per_port) == p + ":1: 'X' is not a hex digit");
    CHECK(err("00000000000000000000000000000000", SecretKind::per_port) == p + ":1: the secret is all zeros");
    CHECK(err("0x0\n", SecretKind::fixed) == p + ":1: the key is 0, which disables the M_Key check");
    CHECK(err("1\n2\n", SecretKind::fixed) == p + ":2: a second value (the secret is on line 1); the file holds one");
    CHECK(err("12345678901234567\n", SecretKind::fixed) ==
          p + ":1: expected a 64-bit key (1 to 16 hex digits), found 17");
}

TEST_CASE("the secret file must be root's and unreadable by group and others")
{
    CHECK(permission_problem("/s", 0, S_IFREG | 0600).empty());
    CHECK(permission_problem("/s", 0, S_IFREG | 0400).empty());
    CHECK(permission_problem("/s", 0, S_IFREG | 0640) ==
          "/s has mode 0640: group or others may read the M_Key secret (chmod 600 /s)");
    CHECK(permission_problem("/s", 0, S_IFREG | 0604) ==
          "/s has mode 0604: group or others may read the M_Key secret (chmod 600 /s)");
    CHECK(permission_problem("/s", 1000, S_IFREG | 0600) ==
          "/s is owned by uid 1000, not root: refusing to trust its M_Key secret");
    CHECK(permission_problem("/s", 0, S_IFDIR | 0700) == "/s is not a regular file");
}

TEST_CASE("load_secret_file reads a root-only file and refuses a readable one")
{
    char path[] = "/tmp/ibsm_mkey_XXXXXX";
    const int fd = ::mkstemp(path);
    REQUIRE(fd >= 0);
    ::close(fd);
    {
        std::ofstream(path) << "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf\n";
    }
    ::chmod(path, 0600);
    if (::geteuid() == 0) {
        auto r = load_secret_file(path, SecretKind::per_port);
        REQUIRE(std::holds_alternative<KeyRing>(r));
        CHECK(std::get<KeyRing>(r) == KeyRing::per_port(secret_a));
    }
    ::chmod(path, 0644);
    auto bad = load_secret_file(path, SecretKind::per_port);
    REQUIRE(std::holds_alternative<std::string>(bad));
    CHECK(std::get<std::string>(bad).find(path) == 0);
    ::unlink(path);
    auto missing = load_secret_file(path, SecretKind::per_port);
    REQUIRE(std::holds_alternative<std::string>(missing));
    CHECK(std::get<std::string>(missing) == std::string(path) + ": No such file or directory");
}
