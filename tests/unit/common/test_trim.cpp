#include "common/trim.h"

#include <catch2/catch.hpp>

using ibsm::common::trim;

TEST_CASE("trim drops spaces, tabs and carriage returns at both ends, nothing inside")
{
    CHECK(trim("") == "");
    CHECK(trim(" \t\r ") == "");
    CHECK(trim("abc") == "abc");
    CHECK(trim("  a b\tc \t") == "a b\tc");
    CHECK(trim("\r\tSwitch 36 \"S-1\"\r") == "Switch 36 \"S-1\"");
    // A line end is not a blank: line readers split on it before trimming.
    CHECK(trim("\nx\n") == "\nx\n");
    const std::string_view line = "  0x2c  ";
    const auto t = trim(line);
    CHECK(t.data() == line.data() + 2); // a view into the line, not a copy
    CHECK(t.size() == 4);
    static_assert(trim(" x ") == "x", "usable in constant expressions");
}
