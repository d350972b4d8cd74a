#include "mad/port_codes.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("MTU codes: 1..5 are 256..4096 bytes, every other code is none")
{
    // IBA 14.2.5.6 PortInfo NeighborMTU / MTUCap.
    CHECK(mad::mtu_bytes(1) == 256);
    CHECK(mad::mtu_bytes(2) == 512);
    CHECK(mad::mtu_bytes(3) == 1024);
    CHECK(mad::mtu_bytes(4) == 2048);
    CHECK(mad::mtu_bytes(5) == 4096);
    for (unsigned code : {0u, 6u, 7u, 15u, 255u}) {
        INFO("code " << code);
        CHECK(mad::mtu_bytes(static_cast<std::uint8_t>(code)) == 0);
    }
}

TEST_CASE("VL codes: 1..5 are 1, 2, 4, 8 and 15 data VLs, every other code is none")
{
    // IBA 14.2.5.6 PortInfo VLCap / OperationalVLs: 1 = VL0, 2 = VL0-1,
    // 3 = VL0-3, 4 = VL0-7, 5 = VL0-14; 0 and 6..15 reserved (0 in an
    // OperationalVLs Set: no change). Unknown is 0, not 1: the callers that
    // need VL0 regardless say so themselves.
    CHECK(mad::vl_count(1) == 1);
    CHECK(mad::vl_count(2) == 2);
    CHECK(mad::vl_count(3) == 4);
    CHECK(mad::vl_count(4) == 8);
    CHECK(mad::vl_count(5) == 15);
    for (unsigned code : {0u, 6u, 8u, 15u, 255u}) {
        INFO("code " << code);
        CHECK(mad::vl_count(static_cast<std::uint8_t>(code)) == 0);
    }
    static_assert(mad::vl_count(4) == 8 && mad::mtu_bytes(5) == 4096, "usable in constant expressions");
}
