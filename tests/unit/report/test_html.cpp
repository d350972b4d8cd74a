// render_html on hand-made analyses, models and layouts: the drawing has one
// line per bundle, credit-loop bundles are marked, every summary value is
// the to_json value at its data-key, names are escaped and repaired to
// UTF-8, nothing external is referenced; and the escaping helpers.
#include "report/html.h"
#include "report/html_drawing.h"
#include "report/html_text.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <regex>
#include <string>

using namespace ibsm;
using namespace ibsm::report;
namespace ra = ibsm::routing::analysis;

namespace {

std::size_t count(const std::string& hay, const std::string& needle)
{
    std::size_t n = 0;
    for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
    return n;
}

ra::NamedLink named(const std::string& a, std::uint64_t ga, unsigned pa, const std::string& b, std::uint64_t gb,
                    unsigned pb)
{
    return ra::NamedLink{{a, Guid(ga), pa}, {b, Guid(gb), pb}};
}

ra::Report sample_report()
{
    ra::Report r;
    r.engine = "ftree<&>";
    r.switches = 2;
    r.hosts = 1;
    r.links = 3;
    r.lids = {1, 2, 3, 1, 3, 0xC000, {0}, 0};
    for (auto c : {ra::PairClass::ca_to_ca, ra::PairClass::ca_to_switch, ra::PairClass::switch_to_ca,
                   ra::PairClass::switch_to_switch}) {
        ra::ClassReport cr;
        cr.cls = c;
        cr.pairs = 12;
        cr.delivered = 5;
        cr.unreachable = 7;
        cr.hops_mean = 2.0 / 3.0;
        cr.stretch_mean = 1.0000000000000002;
        cr.hops_max = 3;
        r.classes.push_back(cr);
    }
    r.classes[0].unreachable_examples.push_back({"host\xff<1>", Guid(3), 9, "sw-b"});
    r.classes[3].counted = false;
    r.credit_ca_only.computed = true;
    r.credit_ca_only.vls.push_back({0, 17, {named("sw-a", 1, 1, "sw-b", 2, 1), named("sw-b", 2, 2, "sw-a", 1, 2)}});
    r.credit_all.computed = false;
    r.efi_all = {6, 4, 1.0 / 3.0, named("sw-a", 1, 1, "sw-b", 2, 1)};
    r.link_loads.push_back({named("sw-a", 1, 1, "sw-b", 2, 1), 4, true, {}});
    r.link_loads.push_back({named("sw-b", 2, 1, "sw-a", 1, 1), 1, true, {}});
    r.link_loads.push_back({named("sw-a", 1, 3, "host\xff<1>", 3, 1), 0, false, {}});
    ra::EbbResult e;
    e.ebb = 0.123456789;
    e.min = 0.1;
    e.max = 0.2;
    e.bisections = 50;
    e.seed = 11;
    r.ebb = e;
    return r;
}

Model sample_model()
{
    Model m;
    m.nodes = {{"sw-a", Guid(1), NodeKind::switch_node, 2, 0},
               {"sw-b", Guid(2), NodeKind::switch_node, 1, 0},
               {"host\xff<1>", Guid(3), NodeKind::host, 0, 0}};
    Link ab;
    ab.a = 0;
    ab.b = 1;
    ab.cables = {{1, 1, 4, 1}, {2, 2, 0, 0}};
    ab.switch_link = true;
    ab.on_credit_loop = true;
    ab.examples = {{"host\xff<1>", "sw-b"}};
    Link ah;
    ah.a = 0;
    ah.b = 2;
    ah.cables = {{3, 1, 0, 0}};
    m.links = {ab, ah};
    m.max_load = 4;
    return m;
}

Layout sample_layout()
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

TEST_CASE("valid_utf8 keeps valid text and replaces every invalid sequence by U+FFFD", "[report][html]")
{
    const std::string fffd = "\xEF\xBF\xBD";
    CHECK(valid_utf8("plain") == "plain");
    CHECK(valid_utf8("\xC3\xA9t\xC3\xA9") == "\xC3\xA9t\xC3\xA9");    // été
    CHECK(valid_utf8("\xF0\x9F\x98\x80") == "\xF0\x9F\x98\x80");      // 4-byte emoji
    CHECK(valid_utf8("a\xff" "b") == "a" + fffd + "b");
    CHECK(valid_utf8("\xC0\xAF") == fffd + fffd);                      // overlong '/'
    CHECK(valid_utf8("\xED\xA0\x80") == fffd + fffd + fffd);           // surrogate
    CHECK(valid_utf8("\xE2\x82") == fffd + fffd);                      // truncated
    CHECK(valid_utf8("\xF4\x90\x80\x80") == fffd + fffd + fffd + fffd); // above U+10FFFF
}

TEST_CASE("html_escape escapes markup characters and script_safe_json hides </script>", "[report][html]")
{
    CHECK(html_escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    CHECK(html_escape("x\xfe") == "x\xEF\xBF\xBD");
    const std::string j = script_safe_json(R"({"n":"</script><b>"})");
    CHECK(j.find('<') == std::string::npos);
    CHECK(nlohmann::json::parse(j)["n"] == "</script><b>");
}

TEST_CASE("render_html draws one line per bundle and marks the credit loop", "[report][html]")
{
    const ra::Report r = sample_report();
    const Model m = sample_model();
    const std::string html = render_html({{"tree", &r, &m}}, sample_layout(), {"test"});

    CHECK(count(html, "<svg class=\"fab\"") == 1);
    CHECK(count(html, "<line class=\"l") == 2);
    CHECK(count(html, "<line class=\"l cl\" data-i=\"0\"") == 1);
    CHECK(count(html, "<rect class=\"s\"") == 2);
    CHECK(count(html, "<circle class=\"h\"") == 1);
    CHECK(count(html, "<svg class=\"diff\"") == 0);
    // The credit-loop cycle is printed link by link.
    CHECK(html.find("sw-a[1] &rarr; sw-b[1]") != std::string::npos);
    CHECK(html.find("sw-b[2] &rarr; sw-a[2]") != std::string::npos);
    // Top links table: hottest first.
    CHECK(html.find("<tr data-load=\"4\"><td class=\"n\">1</td>") != std::string::npos);
    // Host links (load fixed by the host count) stay out while there are switch links.
    CHECK(html.find("The 2 most loaded directed switch-to-switch links") != std::string::npos);
    CHECK(html.find("<tr data-load=\"0\">") == std::string::npos);
}

TEST_CASE("render_html summary values are to_json's values at their data-key", "[report][html]")
{
    const ra::Report r = sample_report();
    const Model m = sample_model();
    const std::string html = render_html({{"tree", &r, &m}}, sample_layout(), {"test"});
    const auto json = nlohmann::json::parse(ra::to_json(r));

    const std::regex value(R"re(data-key="([^"]+)" data-v="([^"]*)")re");
    std::size_t n = 0;
    for (auto it = std::sregex_iterator(html.begin(), html.end(), value); it != std::sregex_iterator(); ++it, ++n) {
        std::string key = (*it)[1], v = (*it)[2];
        // Undo html_escape's entities for the JSON text.
        for (auto [ent, ch] : {std::pair{"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&#39;", "'"}, {"&amp;", "&"}})
            for (std::size_t p; (p = v.find(ent)) != std::string::npos;) v.replace(p, std::string(ent).size(), ch);
        std::string pointer = "/" + key;
        for (auto& c : pointer)
            if (c == '.') c = '/';
        INFO(key << " = " << v);
        CHECK(nlohmann::json::parse(v) == json.at(nlohmann::json::json_pointer(pointer)));
    }
    CHECK(n > 40);
    CHECK(html.find("data-key=\"pairs.ca_to_ca.unreachable\" data-v=\"7\"") != std::string::npos);
    CHECK(html.find("data-key=\"pairs.switch_to_switch.counted\" data-v=\"false\"") != std::string::npos);
    CHECK(html.find("data-key=\"ebb.value\" data-v=\"" + json["ebb"]["value"].dump() + "\"") != std::string::npos);
    CHECK(html.find("data-key=\"shifts\" data-v=\"null\"") != std::string::npos);
}

TEST_CASE("render_html escapes names, repairs UTF-8 and references nothing external", "[report][html]")
{
    const ra::Report r = sample_report();
    const Model m = sample_model();
    const std::string html = render_html({{"<title>", &r, &m}}, sample_layout(), {"gen <x>"});
    CHECK(valid_utf8(html) == html);
    CHECK(html.find("host\xEF\xBF\xBD&lt;1&gt;") != std::string::npos);
    CHECK(html.find("<1>") == std::string::npos);
    CHECK(html.find("ftree&lt;&amp;&gt;") != std::string::npos);
    CHECK(html.find("&lt;title&gt;") != std::string::npos);
    CHECK(html.find("http") == std::string::npos);
    CHECK(html.find(" src=") == std::string::npos);
    // Only the page's own </script> tags close scripts.
    CHECK(count(html, "</script>") == 3);
}

TEST_CASE("render_html --compare draws both sides and the difference of every bundle", "[report][html]")
{
    const ra::Report r = sample_report();
    const Model first = sample_model();
    Model second = sample_model();
    second.links.pop_back(); // the host cable is gone in the second routing
    second.links[0].cables[0].load_ab = 9;
    second.max_load = 9;
    const std::string html = render_html({{"a", &r, &first}, {"b", &r, &second}}, sample_layout(), {"test"});
    CHECK(count(html, "<svg class=\"fab\"") == 2);
    CHECK(count(html, "<svg class=\"diff\" viewBox") == 1);
    CHECK(count(html, "data-side=\"1\" data-key=\"engine\"") == 1);
    // 2 + 1 lines in the drawings, 2 in the difference (union of bundles).
    CHECK(count(html, "<line class=\"l") == 5);
    CHECK(html.find("<td class=\"n\">+5</td>") != std::string::npos);
    CHECK(html.find("<td class=\"n\">4</td><td class=\"n\">9</td>") != std::string::npos);
}

TEST_CASE("render_html wants one or two sides and a position for every node", "[report][html]")
{
    const ra::Report r = sample_report();
    const Model m = sample_model();
    CHECK_THROWS_AS(render_html({}, sample_layout(), {}), std::invalid_argument);
    CHECK_THROWS_AS(render_html({{"a", &r, &m}, {"b", &r, &m}, {"c", &r, &m}}, sample_layout(), {}),
                    std::invalid_argument);
    Layout missing = sample_layout();
    missing.at.erase(Guid(3));
    CHECK_THROWS_AS(render_html({{"a", &r, &m}}, missing, {}), std::invalid_argument);
}

TEST_CASE("svg_histogram bars cover 0..max in equal ranges, no bar beyond the maximum", "[report][html]")
{
    auto loads = [](std::initializer_list<std::uint64_t> values) {
        std::vector<ra::LinkLoad> v;
        for (auto x : values) v.push_back({{}, x, true, {}});
        return v;
    };
    CHECK(svg_histogram({}).empty());
    const std::string small = svg_histogram(loads({0, 1, 4, 4}));
    CHECK(small.find("data-bars=\"5\"") != std::string::npos); // one bar per load 0..4
    CHECK(count(small, "data-count=\"2\"") == 1);
    CHECK(small.find("load 4: 2 directed links") != std::string::npos);
    const std::string wide = svg_histogram(loads({0, 12, 31, 31, 31}));
    CHECK(wide.find("data-bars=\"16\"") != std::string::npos); // ranges of 2: 0-1 .. 30-31
    CHECK(wide.find("load 30-31: 3 directed links") != std::string::npos);
    CHECK(wide.find("load 32") == std::string::npos);
}

TEST_CASE("link_diffs sees routes move between parallel cables under an equal hottest load", "[report][html]")
{
    const Model first = sample_model();
    // The second model lists the nodes the other way round (sw-b first): the
    // bundle and its cables are matched by GUIDs and ports, not by index.
    Model second;
    second.nodes = {first.nodes[1], first.nodes[0], first.nodes[2]};
    Link ba;
    ba.a = 0;
    ba.b = 1;
    ba.cables = {{1, 1, 1, 0}, {2, 2, 0, 4}}; // sw-b -> sw-a now 1 on cable 1; sw-a -> sw-b now 4 on cable 2
    second.links = {ba};
    const auto diffs = link_diffs(first, second);
    REQUIRE(diffs.size() == 2);
    const LinkDiff& ab = diffs[0]; // GUIDs 1-2 sort before 1-3
    CHECK(ab.name_a == "sw-a");
    CHECK(ab.name_b == "sw-b");
    CHECK(ab.first == 4);
    CHECK(ab.second == 4);
    CHECK(ab.diff() == -4); // cable 1 sw-a -> sw-b: 4 -> 0 (cable 2 gains +4: a tie keeps the first found)
    CHECK(diffs[1].first == 0);
    CHECK(diffs[1].second == 0);
    CHECK(diffs[1].diff() == 0);
}
