#include "mad/types.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("DrPath extends, prints and parses")
{
    DrPath p;
    CHECK(p.hops() == 0);
    CHECK(p.str() == "0");
    auto q = p.extended(PortNum(1)).extended(PortNum(13));
    CHECK(q.hops() == 2);
    CHECK(q[0] == 1);
    CHECK(q[1] == 13);
    CHECK(q.str() == "0,1,13");
    auto parsed = DrPath::parse("0,1,13");
    REQUIRE(parsed);
    CHECK(*parsed == q);
    CHECK(DrPath::parse("1,13") == q);
    CHECK_FALSE(DrPath::parse("0,,1"));
    CHECK_FALSE(DrPath::parse("0,256"));
    CHECK_FALSE(DrPath::parse("0,x"));
    CHECK_FALSE(DrPath::parse("0,1,"));
}

TEST_CASE("DrPath holds at most 63 hops")
{
    DrPath p;
    for (int i = 0; i < 63; ++i) p = p.extended(PortNum(1));
    CHECK(p.full());
    std::string s = "0";
    for (int i = 0; i < 64; ++i) s += ",1";
    CHECK_FALSE(DrPath::parse(s));
}

TEST_CASE("Guid and Lid print and compare")
{
    CHECK(Guid(0x2c903001234).str() == "0x000002c903001234");
    CHECK(Guid(1) < Guid(2));
    CHECK(Lid(1).valid_unicast());
    CHECK_FALSE(Lid(0).valid_unicast());
    CHECK_FALSE(Lid(0xC000).valid_unicast());
}
