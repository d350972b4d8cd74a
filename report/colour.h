// How a link's load looks: colour and stroke width from its load relative to
// the fabric's maximum.
//
// Why: operators look for the hot links first; a fixed scale from cool
// (unused: grey; light load: blue) through green and yellow to red at the
// maximum makes them stand out, and width doubles the cue for colour-blind
// readers. Pure functions so the scale is unit-tested.
#pragma once

#include <cstdint>
#include <string>

namespace ibsm::report {

// "#rrggbb". load 0 -> grey; otherwise a ramp over load / max (max 0 -> grey).
std::string load_colour(std::uint64_t load, std::uint64_t max);
// Stroke width in user units: 1 at no load .. 6 at max; bundles get
// + log2(cables) so parallel cables read thicker.
double load_width(std::uint64_t load, std::uint64_t max, std::size_t cables = 1);
// Utilisation (0..1 of the link's capacity, larger clamps to 1) on a fixed
// scale, the same in every report so 80 % looks the same on any fabric: blue
// (idle) -> green -> yellow -> red (full). Unmeasured links are not coloured
// by it (the health drawing greys them).
std::string utilisation_colour(double utilisation);
// Diverging scale for --compare differences: blue (less load) .. grey (same) .. red (more).
std::string diff_colour(std::int64_t diff, std::uint64_t max_abs);

} // namespace ibsm::report
