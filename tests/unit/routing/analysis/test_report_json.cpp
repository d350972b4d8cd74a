// The analyzer's JSON (routing/analysis/report.cpp, nlohmann-json): it
// parses back, keeps the documented key order, and bytes that are not UTF-8
// in a name become U+FFFD instead of invalid JSON.
#include "routing/analysis/report.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace ibsm;
using namespace ibsm::routing::analysis;

namespace {

Report with_names(const std::string& a, const std::string& b)
{
    Report r;
    r.engine = "test";
    r.classes.resize(4);
    for (std::size_t c = 0; c < 4; ++c) r.classes[c].cls = static_cast<PairClass>(c);
    r.classes[0].unreachable_examples.push_back(NamedPair{a, Guid(0x10), 7, b});
    r.credit_ca_only.computed = true;
    r.credit_ca_only.vls.push_back(VlCreditReport{0, 3, {NamedLink{NamedPort{a, Guid(0x20), 1}, NamedPort{b, Guid(0x30), 2}}}});
    r.efi_all.max_link = NamedLink{NamedPort{a, Guid(0x20), 1}, NamedPort{b, Guid(0x30), 2}};
    r.seconds = {{"load", 0.25}, {"total", 0.5}};
    return r;
}

} // namespace

TEST_CASE("JSON report parses back with its values")
{
    auto j = nlohmann::json::parse(to_json(with_names("sw \"one\"\\", "tab\there")));
    CHECK(j["engine"] == "test");
    CHECK(j["pairs"]["ca_to_ca"]["unreachable_examples"][0]["source"] == "sw \"one\"\\");
    CHECK(j["pairs"]["ca_to_ca"]["unreachable_examples"][0]["source_guid"] == "0x0000000000000010");
    CHECK(j["pairs"]["ca_to_ca"]["unreachable_examples"][0]["destination"] == "tab\there");
    CHECK(j["credit_loops"]["ca_traffic"]["has_loop"] == true);
    CHECK(j["credit_loops"]["ca_traffic"]["vls"][0]["cycle"][0]["to"]["port"] == 2);
    CHECK(j["credit_loops"]["all_traffic"] == nlohmann::json{{"computed", false}});
    CHECK(j["edge_forwarding"]["all_links"]["max_link"] == "sw \"one\"\\[1] -> tab\there[2]");
    CHECK(j["edge_forwarding"]["switch_links"]["max_link"].is_null());
    CHECK(j["ebb"].is_null());
    CHECK(j["seconds"]["load"] == 0.25);
    // Keys in the documented order, not sorted.
    auto text = to_json(with_names("a", "b"));
    CHECK(text.find("\"engine\"") < text.find("\"fabric\""));
    CHECK(text.find("\"fabric\"") < text.find("\"credit_loops\""));
    CHECK(text.find("\"ca_to_ca\"") < text.find("\"switch_to_switch\""));
}

TEST_CASE("Names that are not UTF-8 are replaced by U+FFFD, valid UTF-8 kept")
{
    const std::string bad = std::string("leaf\xff\xfe-1"), lone = std::string("x\x80y"), good = "Kn\xc3\xb6ten";
    std::string text = to_json(with_names(bad, lone));
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(text)); // parse() throws on invalid UTF-8
    CHECK(j["pairs"]["ca_to_ca"]["unreachable_examples"][0]["source"] == "leaf\xef\xbf\xbd\xef\xbf\xbd-1");
    CHECK(j["pairs"]["ca_to_ca"]["unreachable_examples"][0]["destination"] == "x\xef\xbf\xbdy");
    j = nlohmann::json::parse(to_json(with_names(good, "a")));
    CHECK(j["credit_loops"]["ca_traffic"]["vls"][0]["cycle"][0]["from"]["name"] == good);
}
