// Partition membership, P_Key table blocks and the partition of a path.
#include "partition/partitions.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::partition;

namespace {
Partitions sample()
{
    return Partitions({Definition{"storage", 0x0001, true, {{Guid(0x10), true}, {Guid(0x11), false}, {Guid(0x12), false}}},
                       Definition{"mgmt", 0x0002, false, {{Guid(0x11), true}}}},
                      Guid(0x99));
}
} // namespace

TEST_CASE("Every port holds the default partition as a full member, first")
{
    const Partitions p;
    CHECK(p.keys_of(Guid(0x1234)) == std::vector<std::uint16_t>{0xffff});
    REQUIRE(p.definitions().size() == 1);
    CHECK(p.definitions()[0].number == 0x7fff);
    CHECK(p.path_pkey(Guid(1), Guid(2)) == std::uint16_t{0xffff});
}

TEST_CASE("Configured partitions add keys with their membership bit; the SM port holds all in full")
{
    const auto p = sample();
    CHECK(p.keys_of(Guid(0x10)) == std::vector<std::uint16_t>{0xffff, 0x8001});
    CHECK(p.keys_of(Guid(0x11)) == std::vector<std::uint16_t>{0xffff, 0x0001, 0x8002});
    CHECK(p.keys_of(Guid(0x99)) == std::vector<std::uint16_t>{0xffff, 0x8001, 0x8002});
    CHECK(p.keys_of(Guid(0x55)) == std::vector<std::uint16_t>{0xffff});
}

TEST_CASE("A path uses a partition both hold with a full member on one side")
{
    const auto p = sample();
    CHECK(p.path_pkey(Guid(0x10), Guid(0x11), std::uint16_t{0x0001}) == std::uint16_t{0x8001});
    CHECK(p.path_pkey(Guid(0x11), Guid(0x10), std::uint16_t{0x8001}) == std::uint16_t{0x0001});
    // Two limited members of storage cannot talk in it.
    CHECK_FALSE(p.path_pkey(Guid(0x11), Guid(0x12), std::uint16_t{0x0001}));
    // Not a member at all.
    CHECK_FALSE(p.path_pkey(Guid(0x10), Guid(0x55), std::uint16_t{0x0001}));
    CHECK_FALSE(p.path_pkey(Guid(0x10), Guid(0x11), std::uint16_t{0x0003}));
    // Without a P_Key asked, the default partition joins everyone.
    CHECK(p.path_pkey(Guid(0x11), Guid(0x12)) == std::uint16_t{0xffff});
}

TEST_CASE("P_Key table blocks: 32 keys a block, zero-filled, capped at the port's capacity")
{
    std::vector<std::uint16_t> keys{0xffff, 0x8001};
    auto b = table_blocks(keys, 64);
    REQUIRE(b.size() == 1);
    CHECK(b[0].keys[0] == 0xffff);
    CHECK(b[0].keys[1] == 0x8001);
    CHECK(b[0].keys[2] == 0);
    std::vector<std::uint16_t> many(40);
    for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<std::uint16_t>(0x8000 | (i + 1));
    std::size_t dropped = 0;
    b = table_blocks(many, 64, &dropped);
    REQUIRE(b.size() == 2);
    CHECK(dropped == 0);
    CHECK(b[1].keys[7] == (0x8000 | 40));
    CHECK(b[1].keys[8] == 0);
    b = table_blocks(many, 8, &dropped);
    CHECK(b.size() == 1);
    CHECK(dropped == 32);
    CHECK(b[0].keys[8] == 0);
    CHECK(table_blocks({}, 0).size() == 1);
}
