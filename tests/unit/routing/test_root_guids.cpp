#include "routing/root_guids.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <stdexcept>

using namespace ibsm;

TEST_CASE("root GUID files: one GUID per line, comments and blank lines allowed")
{
    std::istringstream in("# roots of the core\n0x0002c90200000001\n\n  0x0002c90200000002   # second\n17\n");
    auto roots = routing::parse_root_guids(in, "roots.txt");
    REQUIRE(roots.size() == 3);
    CHECK(roots[0] == Guid(0x0002c90200000001));
    CHECK(roots[1] == Guid(0x0002c90200000002));
    CHECK(roots[2] == Guid(17));
}

TEST_CASE("root GUID files: a bad line names file and line")
{
    auto error_of = [](const std::string& text) {
        std::istringstream in(text);
        try {
            routing::parse_root_guids(in, "roots.txt");
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of("0x1\n0x2 0x3\n") == "roots.txt:2: expected one node GUID, got '0x2 0x3'");
    CHECK(error_of("0x1\n\nspine1\n") == "roots.txt:3: expected one node GUID, got 'spine1'");
    CHECK(error_of("0\n") == "roots.txt:1: expected one node GUID, got '0'");
    CHECK(error_of("0x12zz\n") == "roots.txt:1: expected one node GUID, got '0x12zz'");
}
