#include "lidassign/lid_map.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ibsm;
using namespace ibsm::lidassign;
using topology::NodeId;
using topology::PortRef;

namespace {
PortRef pr(std::uint32_t n, std::uint8_t p) { return PortRef{NodeId{n}, PortNum(p)}; }
} // namespace

TEST_CASE("LidMap assigns LMC blocks and looks them up both ways")
{
    LidMap m;
    CHECK(m.top() == Lid(0));
    m.assign(pr(0, 0), Lid(1), 0);
    m.assign(pr(1, 1), Lid(8), 2);
    CHECK(m.top() == Lid(11));
    CHECK(m.port_count() == 2);
    CHECK(m.lids_of(pr(1, 1))->base == Lid(8));
    CHECK(m.lids_of(pr(1, 1))->count() == 4);
    CHECK_FALSE(m.lids_of(pr(2, 1)));
    for (std::uint16_t l = 8; l <= 11; ++l) CHECK(m.port_of(Lid(l)) == pr(1, 1));
    CHECK_FALSE(m.port_of(Lid(2)));
    CHECK_FALSE(m.port_of(Lid(12)));
    CHECK_FALSE(m.port_of(Lid(0)));

    m.assign(pr(2, 1), Lid(4), 1);
    CHECK(m.lid_count() == 1 + 4 + 2); // each port its own LMC
    auto e = m.entries();
    REQUIRE(e.size() == 3);
    CHECK(e[0].second.base == Lid(1));
    CHECK(e[1].second.base == Lid(4));
    CHECK(e[2].second.base == Lid(8));
}

TEST_CASE("LidMap rejects bad assignments")
{
    LidMap m;
    m.assign(pr(1, 1), Lid(8), 2);
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(10), 1), Catch::Contains("LID 10") && Catch::Contains("already taken"));
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(6), 2), Catch::Contains("not aligned"));
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(0), 0), Catch::Contains("unicast range"));
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(0xBFFF), 1), Catch::Contains("unicast range"));
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(0xC000), 0), Catch::Contains("unicast range"));
    CHECK_THROWS_WITH(m.assign(pr(1, 1), Lid(16), 0), Catch::Contains("already has LIDs"));
    CHECK_THROWS_WITH(m.assign(pr(2, 1), Lid(128), 8), Catch::Contains("LMC 8"));
    // A failed assign leaves the map unchanged.
    CHECK(m.port_count() == 1);
    CHECK(m.top() == Lid(11));
    m.assign(pr(2, 1), Lid(0xBFFE), 0);
    m.assign(pr(3, 1), Lid(0xBFFF), 0);
    CHECK(m.top() == Lid(0xBFFF));
}
