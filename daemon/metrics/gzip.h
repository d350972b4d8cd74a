// gzip (RFC 1952) of a whole response body, through zlib.
//
// Why zlib itself: one call per scrape on a string already in memory needs
// deflate and nothing else; Boost.Iostreams' gzip filter is a compiled Boost
// library of its own on top of the same zlib, with a stream layer we would
// not use. Level 1: the exposition text repeats its label sets line after
// line, so the fastest level already shrinks it 8 to 10 times, at a fraction
// of the CPU of the default level (docs/scale.md, "Telemetry").
#pragma once

#include <string>
#include <string_view>

namespace ibsm::daemon::metrics {

// Throws std::runtime_error naming zlib's message when deflate fails (only
// out of memory).
std::string gzip(std::string_view data, int level = 1);

} // namespace ibsm::daemon::metrics
