// The page's "Link health" part (report/html_health.h, svg_health): one line
// per bundle coloured by utilisation or greyed without counters, a badge per
// problem, the legend naming every mark, the table worst first with its
// numbers, the rows that did not match named; the section only with an
// overlay and after the other drawings.
#include "report/colour.h"
#include "report/html.h"
#include "report/html_drawing.h"
#include "report/html_health.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

using namespace ibsm;
using namespace ibsm::report;
using health::HealthState;

namespace {

std::size_t count(const std::string& hay, const std::string& needle)
{
    std::size_t n = 0;
    for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
    return n;
}

CableHealth cable(std::size_t link, const std::string& a, unsigned pa, const std::string& b, unsigned pb)
{
    CableHealth c;
    c.name_a = a;
    c.name_b = b;
    c.port_a = pa;
    c.port_b = pb;
    c.link = link;
    c.order = link;
    c.width = "4x";
    c.speed = "HDR";
    c.capacity_bytes_per_s = 25e9;
    return c;
}

// sw-a -- sw-b (two cables: one 50 % busy with errors, one downshifted and
// reported), sw-a -- host (isolated), sw-b -- host (no health row).
Model health_model()
{
    Model m;
    m.nodes = {{"sw-a", Guid(1), NodeKind::switch_node, 2, 0},
               {"sw-b", Guid(2), NodeKind::switch_node, 1, 0},
               {"host<1>", Guid(3), NodeKind::host, 0, 0}};
    Link ab;
    ab.a = 0;
    ab.b = 1;
    ab.cables = {{1, 1, 0, 0}, {2, 2, 0, 0}};
    Link ah;
    ah.a = 0;
    ah.b = 2;
    ah.cables = {{3, 1, 0, 0}};
    Link bh;
    bh.a = 1;
    bh.b = 2;
    bh.cables = {{3, 2, 0, 0}};
    m.links = {ab, ah, bh};

    HealthOverlay h;
    h.source = "ports<x>.json";
    h.rows = 6;
    h.matched = 5;
    h.unmatched = {"0x00000000000000ff[1]"};
    CableHealth busy = cable(0, "sw-a", 1, "sw-b", 1);
    busy.measured = true;
    busy.bytes_ab = 12.5e9;
    busy.bytes_ba = 1e9;
    busy.utilisation = 0.5;
    busy.errors_delta = 4;
    busy.errors_total = 12;
    CableHealth slow = cable(0, "sw-a", 2, "sw-b", 2);
    slow.downshifted = true;
    slow.state = HealthState::reported;
    slow.findings = {"width 1x of 4x", "sw-a[2]: downshifted"};
    CableHealth cut = cable(1, "sw-a", 3, "host<1>", 1);
    cut.state = HealthState::isolated;
    cut.errors_total = 99;
    cut.findings = {"sw-a[3]: flapping"};
    h.cables = {busy, slow, cut};
    m.health = h;

    LinkHealth lab;
    lab.cables = {0, 1};
    lab.utilisation = 0.5;
    lab.errors_delta = 4;
    lab.errors_total = 12;
    lab.downshifted = true;
    lab.state = HealthState::reported;
    m.links[0].health = lab;
    LinkHealth lah;
    lah.cables = {2};
    lah.errors_total = 99;
    lah.state = HealthState::isolated;
    m.links[1].health = lah;
    return m;
}

Layout layout()
{
    Layout l;
    l.method = "levels";
    l.width = 100;
    l.height = 50;
    l.node_spacing = 10;
    l.at = {{Guid(1), {0, 0}}, {Guid(2), {100, 0}}, {Guid(3), {50, 50}}};
    return l;
}

} // namespace

TEST_CASE("svg_health: a line per bundle by utilisation, badges for errors, downshift, isolation", "[report][html][health]")
{
    const Model m = health_model();
    Strings names;
    Json blob;
    const std::string svg = svg_health(m, layout(), 0, names, blob);

    CHECK(count(svg, "<svg class=\"hlt\"") == 1);
    CHECK(count(svg, "<line class=\"l") == 3);
    CHECK(count(svg, "<line class=\"l er\" data-i=\"0\"") == 1);
    CHECK(svg.find("stroke=\"" + utilisation_colour(0.5) + "\"") != std::string::npos);
    CHECK(count(svg, "<line class=\"l nm iso\" data-i=\"1\"") == 1);
    CHECK(count(svg, "<line class=\"l nm\" data-i=\"2\"") == 1);
    CHECK(count(svg, "class=\"b er\" data-i=\"0\"") == 1);
    CHECK(count(svg, "class=\"b ds\" data-i=\"0\"") == 1);
    CHECK(count(svg, "class=\"b rp\" data-i=\"0\"") == 1);
    CHECK(count(svg, "class=\"b iso\" data-i=\"1\"") == 1);
    CHECK(count(svg, "class=\"b ") == 4);

    REQUIRE(blob["links"].size() == 3);
    CHECK(blob["links"][0] == Json::array({0, 1}));
    CHECK(blob["links"][1] == Json::array({2}));
    CHECK(blob["links"][2].is_null());
    REQUIRE(blob["cables"].size() == 3);
    const Json& c0 = blob["cables"][0];
    CHECK(c0[5] == 0.5);
    CHECK(c0[6] == 12500000000ull);
    CHECK(c0[8] == 4);
    CHECK(names.all()[c0[4].get<std::size_t>()] == "4x HDR");
    CHECK(names.all()[blob["cables"][2][11].get<std::size_t>()] == "isolated");
}

TEST_CASE("health_table: worst first with the numbers, unmatched rows named", "[report][html][health]")
{
    const std::string t = health_table(health_model(), 0);
    CHECK(t.find("data-rows=\"6\" data-matched=\"5\" data-unmatched=\"1\"") != std::string::npos);
    CHECK(t.find("ports&lt;x&gt;.json") != std::string::npos);
    CHECK(t.find("1 port not cabled in this topology") != std::string::npos);
    CHECK(t.find("0x00000000000000ff[1]") != std::string::npos);
    CHECK(t.find("Busiest: sw-a[1] &harr; sw-b[1] at 50.0 %") != std::string::npos);
    const auto isolated = t.find("<tr data-state=\"isolated\""), reported = t.find("<tr data-state=\"reported\""),
               errors = t.find("<tr data-state=\"ok\" data-errors=\"4\"");
    REQUIRE(isolated != std::string::npos);
    REQUIRE(reported != std::string::npos);
    REQUIRE(errors != std::string::npos);
    CHECK(isolated < reported);
    CHECK(reported < errors);
    CHECK(t.find("host&lt;1&gt;[1]") != std::string::npos);
    CHECK(t.find("12.5 GB/s") != std::string::npos);
    CHECK(t.find("reported, downshifted") != std::string::npos);
    CHECK(t.find("width 1x of 4x") != std::string::npos);
    CHECK(count(health_table(health_model(), 0, 2), "<tr data-state=") == 2);

    Model calm = health_model();
    calm.health->cables = {};
    CHECK(health_table(calm, 0).find("No errors, downshifts or isolations") != std::string::npos);
}

TEST_CASE("health_legend names the scale and every mark", "[report][html][health]")
{
    const std::string l = health_legend();
    for (double u : {0.0, 0.25, 0.5, 0.75, 1.0}) CHECK(l.find(utilisation_colour(u)) != std::string::npos);
    for (const char* word : {"100 %", "no counters", "error counters grew", "reported", "downshifted", "isolated"})
        CHECK(l.find(word) != std::string::npos);
}

TEST_CASE("byte_rate_text", "[report][html][health]")
{
    CHECK(byte_rate_text(0) == "0 B/s");
    CHECK(byte_rate_text(999) == "999 B/s");
    CHECK(byte_rate_text(12.5e9) == "12.5 GB/s");
    CHECK(byte_rate_text(1234567) == "1.23 MB/s");
}

TEST_CASE("render_html has a Link health section only with an overlay, after the fabric", "[report][html][health]")
{
    routing::analysis::Report r;
    r.engine = "ftree";
    const Model with = health_model();
    Model without = health_model();
    without.health.reset();
    for (Link& l : without.links) l.health.reset();

    const std::string html = render_html({{"tree", &r, &with}}, layout(), {"test"});
    CHECK(count(html, "<h2>Link health</h2>") == 1);
    CHECK(count(html, "<svg class=\"hlt\"") == 1);
    CHECK(html.find("<svg class=\"fab\"") < html.find("<svg class=\"hlt\""));
    CHECK(html.find("<table class=\"t health\"") != std::string::npos);
    CHECK(html.find("utilisation:") != std::string::npos);
    // The script's blob carries the overlay.
    const auto start = html.find("id=\"report-data\">") + 17;
    const Json blob = Json::parse(html.substr(start, html.find("</script>", start) - start));
    CHECK(blob["sides"][0]["health"]["cables"].size() == 3);

    const std::string plain = render_html({{"tree", &r, &without}}, layout(), {"test"});
    CHECK(plain.find("Link health") == std::string::npos);
    CHECK(plain.find("<svg class=\"hlt\"") == std::string::npos);
}
