#include "report/colour.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace ibsm::report {

namespace {

struct Rgb {
    double r, g, b;
};

constexpr Rgb grey{176, 176, 176};
constexpr Rgb blue{69, 117, 180};
constexpr Rgb green{26, 152, 80};
constexpr Rgb yellow{240, 200, 30};
constexpr Rgb red{215, 48, 39};

Rgb mix(Rgb a, Rgb b, double t)
{
    return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

std::string hex(Rgb c)
{
    auto byte = [](double v) { return static_cast<unsigned>(std::lround(std::clamp(v, 0.0, 255.0))); };
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(c.r), byte(c.g), byte(c.b));
    return buf;
}

double fraction(std::uint64_t load, std::uint64_t max)
{
    if (max == 0) return 0;
    return std::min(1.0, static_cast<double>(load) / static_cast<double>(max));
}

} // namespace

std::string load_colour(std::uint64_t load, std::uint64_t max)
{
    if (load == 0 || max == 0) return hex(grey);
    // Blue -> green -> yellow -> red in three equal steps; the hue falls
    // steadily with the load.
    static constexpr std::array<Rgb, 4> stops{blue, green, yellow, red};
    const double t = fraction(load, max) * 3.0;
    const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), 2);
    return hex(mix(stops[i], stops[i + 1], t - static_cast<double>(i)));
}

std::string utilisation_colour(double utilisation)
{
    static constexpr std::array<Rgb, 4> stops{blue, green, yellow, red};
    const double t = std::clamp(utilisation, 0.0, 1.0) * 3.0;
    const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), 2);
    return hex(mix(stops[i], stops[i + 1], t - static_cast<double>(i)));
}

double load_width(std::uint64_t load, std::uint64_t max, std::size_t cables)
{
    return 1.0 + 5.0 * fraction(load, max) + (cables > 1 ? std::log2(static_cast<double>(cables)) : 0.0);
}

std::string diff_colour(std::int64_t diff, std::uint64_t max_abs)
{
    if (diff == 0 || max_abs == 0) return hex(grey);
    // Any change shows: the ramp starts a quarter of the way from grey.
    const std::uint64_t mag = diff < 0 ? 0 - static_cast<std::uint64_t>(diff) : static_cast<std::uint64_t>(diff);
    const double t = 0.25 + 0.75 * fraction(mag, max_abs);
    return hex(mix(grey, diff < 0 ? blue : red, t));
}

} // namespace ibsm::report
