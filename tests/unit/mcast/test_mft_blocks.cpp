// MFT blocks of a switch and the diff that decides which are sent.
#include "mcast/mft_blocks.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::mcast;

TEST_CASE("A 36-port switch: 3 positions per block, masks split 16 ports a position")
{
    std::map<std::uint16_t, PortMask> masks;
    masks[0xC000].set(1);
    masks[0xC000].set(20);
    masks[0xC000].set(36);
    masks[0xC021].set(0);
    const auto blocks = switch_blocks(masks, 36, blocks_for(Lid(0xC021)));
    CHECK(blocks.size() == 6); // blocks 0 and 1, positions 0..2
    CHECK(blocks.at({0, 0}).masks[0] == 0x0002);
    CHECK(blocks.at({0, 1}).masks[0] == 0x0010);
    CHECK(blocks.at({0, 2}).masks[0] == 0x0010);
    CHECK(blocks.at({1, 0}).masks[1] == 0x0001);
    CHECK(blocks.at({1, 1}).masks[1] == 0);
    CHECK(blocks_for(Lid(0xC000)) == 1);
    CHECK(blocks_for(Lid(0xBFFF)) == 0);
    // 15 ports fit one position; 16 need two (port 16 is bit 0 of position 1).
    CHECK(switch_blocks({}, 15, 1).size() == 1);
    CHECK(switch_blocks({}, 16, 1).size() == 2);
}

TEST_CASE("Only blocks that differ from the confirmed content are sent")
{
    std::map<std::uint16_t, PortMask> masks;
    masks[0xC000].set(3);
    auto desired = switch_blocks(masks, 18, 1);
    ConfirmedMft confirmed;
    // First contact: nothing known, everything goes.
    CHECK(changed_blocks(desired, confirmed).size() == 2);
    for (const auto& [k, t] : desired) confirmed[k] = t;
    CHECK(changed_blocks(desired, confirmed).empty());
    // A join on port 17 changes position 1 only.
    masks[0xC000].set(17);
    desired = switch_blocks(masks, 18, 1);
    auto changed = changed_blocks(desired, confirmed);
    REQUIRE(changed.size() == 1);
    CHECK(changed[0] == MftBlockKey{0, 1});
    // A failed Set leaves the block unknown: it is sent again.
    confirmed[{0, 0}].reset();
    CHECK(changed_blocks(desired, confirmed).size() == 2);
}
