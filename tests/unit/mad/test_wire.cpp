#include "mad/wire.h"

#include <catch2/catch.hpp>

#include <array>

using namespace ibsm::mad;

TEST_CASE("wire::get reads MSB-first bit fields across byte boundaries")
{
    const std::array<std::uint8_t, 10> b = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22};
    CHECK(wire::get(b, 0, 8) == 0x12);
    CHECK(wire::get(b, 0, 4) == 0x1);
    CHECK(wire::get(b, 4, 4) == 0x2);
    CHECK(wire::get(b, 4, 8) == 0x23);        // straddles bytes 0 and 1
    CHECK(wire::get(b, 3, 1) == 1);           // 0x12 = 0001 0010
    CHECK(wire::get(b, 2, 1) == 0);
    CHECK(wire::get(b, 8, 24) == 0x345678);
    CHECK(wire::get(b, 0, 64) == 0x123456789abcdef0ull);
    CHECK(wire::get(b, 4, 64) == 0x23456789abcdef01ull); // unaligned 64-bit
    CHECK(wire::get(b, 77, 3) == 0x2);        // last three bits of 0x22
}

TEST_CASE("wire::put writes a field and leaves its neighbours alone")
{
    std::array<std::uint8_t, 10> b;
    b.fill(0xff);
    wire::put(b, 4, 8, 0x00);
    CHECK(b[0] == 0xf0);
    CHECK(b[1] == 0x0f);
    CHECK(b[2] == 0xff);

    b.fill(0x00);
    wire::put(b, 5, 3, 0x7);
    CHECK(b[0] == 0x07);
    wire::put(b, 5, 3, 0xF8); // only the low 3 bits count
    CHECK(b[0] == 0x00);

    b.fill(0x00);
    wire::put(b, 4, 64, 0x23456789abcdef01ull);
    CHECK(b[0] == 0x02);
    CHECK(b[1] == 0x34);
    CHECK(b[7] == 0xf0);
    CHECK(b[8] == 0x10);
    CHECK(b[9] == 0x00);
    CHECK(wire::get(b, 4, 64) == 0x23456789abcdef01ull);
}
