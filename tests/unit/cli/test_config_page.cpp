// ibsmd.yaml(5) is generated from the sample configuration only while the
// sample matches the schema: these tests feed config_page samples that have
// drifted and expect the build (gen_docs) to stop.
#include "config/config.h"
#include "man/config_page.h"
#include "man/roff.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace ibsm;

namespace {

std::string sample()
{
    std::ifstream in(std::string(IBSMD_SOURCE_ROOT) + "/systemd/ibsmd.yaml");
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string without_line(std::string text, const std::string& starting)
{
    auto at = text.find(starting);
    REQUIRE(at != std::string::npos);
    text.erase(at, text.find('\n', at) + 1 - at);
    return text;
}

} // namespace

TEST_CASE("ibsmd.yaml(5) documents every key of the schema with its default", "[man]")
{
    const std::string page = man::config_page(sample(), "ibsmd.yaml");
    for (const auto& key : config::schema_keys()) {
        INFO(key);
        CHECK(page.find("\\fB" + man::escape(key) + "\\fR") != std::string::npos);
    }
    CHECK(page.find("\\fBrouting.lmc\\fR (default: 0)") != std::string::npos);
    CHECK(page.find(".TH IBSMD.YAML 5") != std::string::npos);
}

TEST_CASE("a sample that drifted from the schema stops the page", "[man]")
{
    // A key the schema has, dropped from the sample.
    CHECK_THROWS_AS(man::config_page(without_line(sample(), "  max_vls: 8"), "s.yaml"), man::SampleError);
    // A default shown that is not the built-in one.
    std::string wrong = sample();
    wrong.replace(wrong.find("  lmc: 0"), 8, "  lmc: 1");
    CHECK_THROWS_AS(man::config_page(wrong, "s.yaml"), man::SampleError);
    // A key the schema does not know (parse_config names it).
    CHECK_THROWS_AS(man::config_page(sample() + "extra: 1\n", "s.yaml"), config::ConfigError);
}

TEST_CASE("roff escaping keeps flags and leading dots literal", "[man]")
{
    CHECK(man::escape("--port-guid") == "\\-\\-port\\-guid");
    CHECK(man::escape(".hidden") == "\\&.hidden");
    CHECK(man::escape("a\\b") == "a\\eb");
    CHECK(man::paragraphs("text\n  kept  as is\nmore\n") == "text\n.nf\n  kept  as is\n.fi\nmore\n");
}
