#include "config/suggest.h"

#include <catch2/catch.hpp>

#include <array>

using namespace ibsm::config;

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps", "[config][suggest]")
{
    CHECK(edit_distance("", "") == 0);
    CHECK(edit_distance("abc", "") == 3);
    CHECK(edit_distance("", "ab") == 2);
    CHECK(edit_distance("window", "window") == 0);
    CHECK(edit_distance("windw", "window") == 1);   // deletion
    CHECK(edit_distance("windows", "window") == 1); // insertion
    CHECK(edit_distance("wundow", "window") == 1);  // substitution
    CHECK(edit_distance("egnines", "engines") == 1); // adjacent swap
    CHECK(edit_distance("kitten", "sitting") == 3);
    CHECK(edit_distance("timeout", "timeout_ms") == 3);
}

TEST_CASE("closest picks the nearest candidate within the limit", "[config][suggest]")
{
    constexpr std::array<std::string_view, 3> keys{"window", "timeout_ms", "retries"};
    CHECK(closest("windo", keys) == std::optional<std::string>("window"));
    CHECK(closest("retires", keys) == std::optional<std::string>("retries"));
    CHECK_FALSE(closest("timeout", keys));
    CHECK(closest("timeout", keys, 3) == std::optional<std::string>("timeout_ms"));
    CHECK_FALSE(closest("zzz", keys));
}
