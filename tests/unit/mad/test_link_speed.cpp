#include "mad/link_speed.h"

#include <catch2/catch.hpp>

#include <array>

using namespace ibsm;
using namespace ibsm::mad;

TEST_CASE("rate table: every IBA rate code up to XDR, by bandwidth")
{
    // IBA 15.2.5.16 table 205 and Linux's ib_rate: code -> Gb/s x 10.
    const std::array<std::pair<int, unsigned>, 24> expected{{
        {2, 25},    {3, 100},   {4, 300},   {5, 50},    {6, 200},   {7, 400},    {8, 600},    {9, 800},
        {10, 1200}, {11, 140},  {12, 560},  {13, 1120}, {14, 1680}, {15, 250},   {16, 1000},  {17, 2000},
        {18, 3000}, {19, 280},  {20, 500},  {21, 4000}, {22, 6000}, {23, 8000},  {24, 12000}, {25, 16000},
    }};
    for (auto [code, deci] : expected) {
        INFO("code " << code);
        REQUIRE(rate_mbps(static_cast<std::uint8_t>(code)));
        CHECK(*rate_mbps(static_cast<std::uint8_t>(code)) == deci * 100);
        CHECK(rate_code_for(deci * 100) == std::uint8_t(code));
    }
    CHECK_FALSE(rate_mbps(0));
    CHECK_FALSE(rate_mbps(1));
    CHECK_FALSE(rate_mbps(26));
    CHECK(compare_rate_codes(3, 5) > 0);   // 10 > 5, though 3 < 5
    CHECK(compare_rate_codes(19, 20) < 0); // 28 < 50
    CHECK(compare_rate_codes(21, 16) > 0); // 400 > 100
    CHECK(compare_rate_codes(25, 24) > 0);
    CHECK(compare_rate_codes(7, 7) == 0);
}

TEST_CASE("rate of every width x lane speed, 1x..12x x SDR..XDR")
{
    // Gb/s per lane: SDR 2.5 DDR 5 QDR 10 FDR 14 EDR 25 HDR 50 NDR 100 XDR 200.
    struct Row {
        std::uint8_t width;
        std::array<int, 8> codes; // SDR .. XDR
    };
    const std::array<Row, 5> rows{{
        {1, {2, 5, 3, 11, 15, 20, 16, 17}},   // 1x: 2.5 5 10 14 25 50 100 200
        {16, {5, 3, 6, 19, 20, 16, 17, 21}},  // 2x: 5 10 20 28 50 100 200 400
        {2, {3, 6, 7, 12, 16, 17, 21, 23}},   // 4x: 10 20 40 56 100 200 400 800
        {4, {6, 7, 9, 13, 17, 21, 23, 25}},   // 8x: 20 40 80 112 200 400 800 1600
        {8, {4, 8, 10, 14, 18, 22, 24, 25}},  // 12x: 30 60 120 168 300 600 1200, 2400 -> 1600
    }};
    for (const auto& r : rows)
        for (unsigned s = 0; s < 8; ++s) {
            const auto speed = static_cast<LaneSpeed>(s + 1);
            INFO(width_name(r.width) << " " << speed_name(speed));
            CHECK(rate_code(r.width, speed) == std::uint8_t(r.codes[s]));
        }
    // No exact code: the largest not above it.
    CHECK(rate_code_for(2'400'000) == std::uint8_t{25});
    CHECK(rate_code_for(45'000) == std::uint8_t{7}); // 40
    CHECK_FALSE(rate_code_for(2'000));
    CHECK_FALSE(rate_code(3, LaneSpeed::qdr));
    CHECK_FALSE(rate_code(2, LaneSpeed::none));
}

TEST_CASE("widths and speeds by name")
{
    CHECK(width_name(16) == "2x");
    CHECK(width_name(8) == "12x");
    CHECK(lanes(16) == 2);
    CHECK(widest(1 | 2 | 16) == 2);  // 4x
    CHECK(widest(1 | 16) == 16);     // 2x
    CHECK(widest(0) == 0);
    CHECK(speed_name(LaneSpeed::xdr) == "XDR");
    CHECK(lane_signal_gbps(LaneSpeed::xdr) == 212.5);
    CHECK(lane_mbps(LaneSpeed::ndr) == 100'000);
    CHECK(fastest(speed_bit(LaneSpeed::qdr) | speed_bit(LaneSpeed::hdr)) == LaneSpeed::hdr);
    CHECK(fastest(0) == LaneSpeed::none);
}

TEST_CASE("active speed: the extended fields override the older ones")
{
    CHECK(active_speed(4, 0, 0) == LaneSpeed::qdr);
    CHECK(active_speed(4, 1, 0) == LaneSpeed::fdr);
    CHECK(active_speed(1, 2, 0) == LaneSpeed::edr);
    CHECK(active_speed(1, 4, 0) == LaneSpeed::hdr);
    CHECK(active_speed(1, 8, 0) == LaneSpeed::ndr);
    CHECK(active_speed(1, 8, 1) == LaneSpeed::xdr);
    CHECK(active_speed(0, 0, 0) == LaneSpeed::none);
}

TEST_CASE("port speeds: extended fields count only under their capability bits")
{
    PortInfo pi;
    pi.link_width_active = 2;
    pi.link_width_supported = 1 | 2 | 16;
    pi.link_width_enabled = 255; // "set to supported"
    pi.link_speed_active = 1;
    pi.link_speed_supported = 7;
    pi.link_speed_enabled = 7;
    pi.link_speed_ext_active = 8;
    pi.link_speed_ext_supported = 0xf;
    pi.link_speed_ext_enabled = 0xf;
    pi.link_speed_ext_supported2 = 1;
    pi.link_speed_ext_enabled2 = 1;

    auto s = port_speeds(pi, 0, 0); // no capability: SDR..QDR only
    CHECK(s.width_active == 2);
    CHECK(s.widths_enabled == (1 | 2 | 16));
    CHECK(s.speed_active == LaneSpeed::ndr);
    CHECK(fastest(s.speeds_supported) == LaneSpeed::qdr);

    s = port_speeds(pi, cap_is_extended_speeds_supported, 0);
    CHECK(fastest(s.speeds_supported) == LaneSpeed::ndr);
    CHECK(fastest(s.speeds_enabled) == LaneSpeed::ndr);

    s = port_speeds(pi, cap_is_extended_speeds_supported, cap2_is_extended_speeds2_supported);
    CHECK(fastest(s.speeds_supported) == LaneSpeed::xdr);
    CHECK(fastest(s.speeds_enabled) == LaneSpeed::xdr);

    pi.link_speed_ext_enabled = 30; // extended speeds disabled
    pi.link_speed_ext_enabled2 = 0;
    s = port_speeds(pi, cap_is_extended_speeds_supported, cap2_is_extended_speeds2_supported);
    CHECK(fastest(s.speeds_enabled) == LaneSpeed::qdr);
    CHECK(fastest(s.speeds_supported) == LaneSpeed::xdr);
}
