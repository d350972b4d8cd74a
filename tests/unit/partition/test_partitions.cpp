// Partition membership, P_Key table blocks and the partition of a path.
#include "partition/partitions.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::partition;

namespace {

MemberRule port(std::uint64_t g, Membership m) { return MemberRule{Who::port, Guid(g), m}; }

Partitions sample()
{
    Rule storage{"storage", 0x0001, true, {}, false, {port(0x10, Membership::full), port(0x11, Membership::limited),
                                                       port(0x12, Membership::limited)}, {}, 1};
    Rule mgmt{"mgmt", 0x0002, false, {}, false, {port(0x11, Membership::full)}, {}, 2};
    const std::vector<EndPort> ports{{Guid(0x10)}, {Guid(0x11)}, {Guid(0x12)}, {Guid(0x55)}, {Guid(0x99)}};
    return Partitions(effective_rules({storage, mgmt}, true), ports, Settings{Guid(0x99), false});
}

} // namespace

TEST_CASE("Without configuration every port holds the default partition as a full member")
{
    const Partitions p;
    CHECK(p.keys_of(Guid(0x1234)) == std::vector<std::uint16_t>{0xffff});
    REQUIRE(p.partitions().size() == 1);
    CHECK(p.partitions()[0].pkey == 0x7fff);
    CHECK(p.partitions()[0].ipoib);
    CHECK(p.path_pkey(Guid(1), Guid(2)) == std::uint16_t{0xffff});
}

TEST_CASE("Configured partitions add keys with their membership bit; the default partition is limited but for the SM")
{
    const auto p = sample();
    CHECK(p.keys_of(Guid(0x10)) == std::vector<std::uint16_t>{0x8001, 0x7fff});
    CHECK(p.keys_of(Guid(0x11)) == std::vector<std::uint16_t>{0x0001, 0x8002, 0x7fff});
    CHECK(p.keys_of(Guid(0x99)) == std::vector<std::uint16_t>{0xffff});
    CHECK(p.keys_of(Guid(0x55)) == std::vector<std::uint16_t>{0x7fff});
}

TEST_CASE("A path uses a partition both hold with a full member on one side")
{
    const auto p = sample();
    CHECK(p.path_pkey(Guid(0x10), Guid(0x11), std::uint16_t{0x0001}) == std::uint16_t{0x8001});
    CHECK(p.path_pkey(Guid(0x11), Guid(0x10), std::uint16_t{0x8001}) == std::uint16_t{0x0001});
    // Two limited members of storage cannot talk in it, nor in the default partition.
    CHECK_FALSE(p.path_pkey(Guid(0x11), Guid(0x12), std::uint16_t{0x0001}));
    CHECK_FALSE(p.path_pkey(Guid(0x11), Guid(0x12)));
    // Not a member at all.
    CHECK_FALSE(p.path_pkey(Guid(0x10), Guid(0x55), std::uint16_t{0x0001}));
    CHECK_FALSE(p.path_pkey(Guid(0x10), Guid(0x11), std::uint16_t{0x0003}));
    // The SM's port, a full member of the default partition, reaches everyone.
    CHECK(p.path_pkey(Guid(0x11), Guid(0x99)) == std::uint16_t{0x7fff});
    CHECK(p.path_pkey(Guid(0x10), Guid(0x11)) == std::uint16_t{0x8001});
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
