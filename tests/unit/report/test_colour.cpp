// The load colour scale and stroke widths (report/colour.h).
#include "report/colour.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace ibsm::report;

namespace {

struct Rgb {
    int r, g, b;
};

Rgb parse(const std::string& hex)
{
    REQUIRE(hex.size() == 7);
    REQUIRE(hex[0] == '#');
    auto byte = [&](int i) { return std::stoi(hex.substr(static_cast<std::size_t>(1 + 2 * i), 2), nullptr, 16); };
    return {byte(0), byte(1), byte(2)};
}

// Hue in degrees (0 = red, 120 = green, 240 = blue).
double hue(Rgb c)
{
    const double r = c.r / 255.0, g = c.g / 255.0, b = c.b / 255.0;
    const double mx = std::max({r, g, b}), mn = std::min({r, g, b}), d = mx - mn;
    REQUIRE(d > 0.05); // a colour, not a grey
    double h = 0;
    if (mx == r)
        h = std::fmod((g - b) / d, 6.0);
    else if (mx == g)
        h = (b - r) / d + 2;
    else
        h = (r - g) / d + 4;
    h *= 60;
    return h < 0 ? h + 360 : h;
}

bool is_grey(Rgb c) { return c.r == c.g && c.g == c.b; }

double distance(Rgb a, Rgb b)
{
    return std::sqrt(double((a.r - b.r) * (a.r - b.r) + (a.g - b.g) * (a.g - b.g) + (a.b - b.b) * (a.b - b.b)));
}

} // namespace

TEST_CASE("load colour: grey when unused, red at the maximum, hue falling with the load")
{
    CHECK(is_grey(parse(load_colour(0, 100))));
    CHECK(is_grey(parse(load_colour(0, 0))));
    CHECK(is_grey(parse(load_colour(5, 0)))); // no maximum: nothing to compare with
    CHECK(load_colour(0, 7) == load_colour(0, 100));

    const Rgb top = parse(load_colour(100, 100));
    CHECK(top.r > 200);
    CHECK(top.g < 80);
    CHECK(top.b < 80);
    CHECK(load_colour(250, 100) == load_colour(100, 100)); // clamped

    const Rgb low = parse(load_colour(1, 100));
    CHECK_FALSE(is_grey(low));
    CHECK(hue(low) > 180); // blue side
    CHECK(hue(parse(load_colour(50, 100))) < 180);

    double previous = 360;
    for (std::uint64_t load = 1; load <= 100; ++load) {
        INFO("load " << load);
        const double h = hue(parse(load_colour(load, 100)));
        CHECK(h <= previous + 1e-9);
        previous = h;
    }
    CHECK(previous < 10);
}

TEST_CASE("load width: 1 unused, 6 at the maximum, monotone, bundles thicker")
{
    CHECK(load_width(0, 10) == Approx(1.0));
    CHECK(load_width(0, 0) == Approx(1.0));
    CHECK(load_width(10, 10) == Approx(6.0));
    CHECK(load_width(20, 10) == Approx(6.0));
    CHECK(load_width(5, 10) == Approx(3.5));
    double previous = 0;
    for (std::uint64_t load = 0; load <= 10; ++load) {
        const double w = load_width(load, 10);
        CHECK(w >= 1.0);
        CHECK(w <= 6.0);
        CHECK(w > previous);
        previous = w;
    }
    CHECK(load_width(5, 10, 1) == Approx(load_width(5, 10)));
    CHECK(load_width(5, 10, 2) == Approx(load_width(5, 10) + 1));
    CHECK(load_width(5, 10, 4) == Approx(load_width(5, 10) + 2));
    CHECK(load_width(5, 10, 3) > load_width(5, 10, 2));
    CHECK(load_width(0, 10, 8) == Approx(4.0));
}

TEST_CASE("difference colour: grey when equal, red for more, blue for less, stronger with size")
{
    const Rgb grey = parse(diff_colour(0, 10));
    CHECK(is_grey(grey));
    CHECK(is_grey(parse(diff_colour(3, 0))));

    const Rgb more = parse(diff_colour(10, 10));
    const Rgb less = parse(diff_colour(-10, 10));
    CHECK(more.r > more.b);
    CHECK(less.b > less.r);
    CHECK(diff_colour(10, 10) == load_colour(1, 1)); // the same red as the hottest link
    // The smallest change is visible; larger ones move further from grey.
    CHECK(distance(parse(diff_colour(1, 1000)), grey) > 20);
    double previous = 0;
    for (std::int64_t d = 1; d <= 10; ++d) {
        const double up = distance(parse(diff_colour(d, 10)), grey);
        const double down = distance(parse(diff_colour(-d, 10)), grey);
        CHECK(up > previous);
        CHECK(down > 0);
        previous = up;
    }
    CHECK(diff_colour(std::numeric_limits<std::int64_t>::min(), 1) == diff_colour(-1, 1));
}
