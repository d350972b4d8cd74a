// The page around the drawings: summary cards, load tables, problems.
//
// The cards read their numbers from to_json(report) itself, by the JSON path
// they carry in data-key, and keep that JSON value verbatim in data-v: the
// page cannot show a number `ibsm analyze --json` would print differently,
// and the browser test compares the two directly.
#include "report/html.h"

#include "report/colour.h"
#include "report/html_assets.h"
#include "report/html_drawing.h"
#include "report/html_health.h"
#include "report/html_text.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <stdexcept>

namespace ibsm::report {

namespace {

using routing::analysis::ClassReport;
using routing::analysis::CreditReport;
using routing::analysis::NamedPair;
using routing::analysis::Report;

// The value at a dotted path ("pairs.ca_to_ca.unreachable", array indices
// as numbers) of the analysis JSON; null when absent.
const Json& at_path(const Json& root, const std::string& key)
{
    static const Json null_value;
    const Json* j = &root;
    std::size_t start = 0;
    while (start <= key.size()) {
        std::size_t dot = key.find('.', start);
        std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (j->is_object() && j->contains(part)) {
            j = &(*j)[part];
        } else if (j->is_array() && !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char ch) { return ch >= '0' && ch <= '9'; }) &&
                   std::stoul(part) < j->size()) {
            j = &(*j)[std::stoul(part)];
        } else {
            return null_value;
        }
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return *j;
}

std::string pretty(const Json& v)
{
    if (v.is_null()) return "&mdash;";
    if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
    if (v.is_number_float()) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.4f", v.get<double>());
        return buf;
    }
    if (v.is_string()) return html_escape(v.get<std::string>());
    if (v.is_array()) {
        std::string s;
        for (const Json& e : v) s += (s.empty() ? "" : " ") + pretty(e);
        return s;
    }
    return v.dump();
}

bool nonzero(const Json& v)
{
    return (v.is_boolean() && v.get<bool>()) || (v.is_number() && v.get<double>() != 0);
}

// Writes the values of one side's cards.
class Values {
public:
    Values(const Report& r, std::size_t side) : json_(Json::parse(routing::analysis::to_json(r))), side_(side) {}

    // <span data-key=key data-v=JSON>pretty</span>; alarm: red when non-zero / true.
    std::string operator()(const std::string& key, bool alarm = false, const char* extra_class = nullptr) const
    {
        const Json& v = at_path(json_, key);
        std::string cls = alarm ? (nonzero(v) ? "bad" : "ok") : "";
        if (extra_class) cls += std::string(cls.empty() ? "" : " ") + extra_class;
        return "<span" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + " data-side=\"" +
               std::to_string(side_) + "\" data-key=\"" + key + "\" data-v=\"" +
               html_escape(v.dump(-1, ' ', false, Json::error_handler_t::replace)) + "\">" + pretty(v) + "</span>";
    }
    const Json& json() const { return json_; }

private:
    Json json_;
    std::size_t side_;
};

std::string card(const std::string& title, const std::string& body)
{
    return "<div class=\"card\"><h3>" + title + "</h3>" + body + "</div>\n";
}

std::string row(std::initializer_list<std::string> cells, const char* tag = "td")
{
    std::string o = "<tr>";
    for (const std::string& c : cells) o += std::string("<") + tag + ">" + c + "</" + tag + ">";
    return o + "</tr>";
}

const char* class_title(routing::analysis::PairClass c)
{
    using routing::analysis::PairClass;
    switch (c) {
    case PairClass::ca_to_ca: return "CA &rarr; CA";
    case PairClass::ca_to_switch: return "CA &rarr; switch";
    case PairClass::switch_to_ca: return "switch &rarr; CA";
    case PairClass::switch_to_switch: return "switch &rarr; switch";
    }
    return "?";
}

std::string credit_card_part(const Values& v, const std::string& key, const char* title, const CreditReport& c)
{
    std::string o = "<tr><th colspan=\"3\">" + std::string(title) + "</th></tr>";
    if (!c.computed) return o + row({"not computed", "", v(key + ".computed", false, "hide")});
    o += row({"credit loop", "", v(key + ".has_loop", true, "big")});
    for (std::size_t i = 0; i < c.vls.size(); ++i) {
        const std::string k = key + ".vls." + std::to_string(i);
        o += row({"VL " + v(k + ".vl"), v(k + ".dependencies") + " deps",
                  v(k + ".has_loop", true) +
                      (c.vls[i].cycle.empty() ? "" : " (" + std::to_string(c.vls[i].cycle.size()) + " links)")});
    }
    return o;
}

std::string summary_cards(const Report& r, std::size_t side)
{
    const Values v(r, side);
    std::string o = "<div class=\"cards\">\n";
    o += card("Routing", "<div class=\"big\">" + v("engine") + "</div><table>" +
                             row({"switches", v("fabric.switches")}) + row({"host ports", v("fabric.hosts")}) +
                             row({"links", v("fabric.links")}) + row({"LIDs", v("lids.lids")}) +
                             row({"LID range", v("lids.min") + "&ndash;" + v("lids.max")}) +
                             row({"LMC", v("lids.lmc")}) + row({"LinearFDBTop", v("lids.linear_fdb_top")}) +
                             row({"switches without LFT", v("lids.switches_without_lft", true)}) + "</table>");

    std::string reach = "<table>" + row({"pairs", "total", "delivered", "unreachable", "loops"}, "th");
    std::string hops = "<table>" + row({"pairs", "hops mean", "max", "shortest", "stretch mean", "max", "non-min."}, "th");
    for (const ClassReport& c : r.classes) {
        const std::string k = std::string("pairs.") + routing::analysis::to_string(c.cls);
        if (!c.counted) {
            reach += row({class_title(c.cls), "not counted" + v(k + ".counted", false, "hide"), "", "", ""});
            continue;
        }
        reach += row({class_title(c.cls), v(k + ".pairs"), v(k + ".delivered"), v(k + ".unreachable", true),
                      v(k + ".loops", true)});
        hops += row({class_title(c.cls), v(k + ".hops.mean"), v(k + ".hops.max"), v(k + ".hops.shortest_mean"),
                     v(k + ".stretch.mean"), v(k + ".stretch.max"), v(k + ".stretch.nonminimal_pairs")});
    }
    o += card("Reachability", reach + "</table>");
    o += card("Hops and stretch", hops + "</table>");
    o += card("Credit loops", "<table>" +
                                  credit_card_part(v, "credit_loops.ca_traffic", "CA traffic", r.credit_ca_only) +
                                  credit_card_part(v, "credit_loops.all_traffic", "CA + switch traffic", r.credit_all) +
                                  "</table>");
    if (r.ebb)
        o += card("Effective bisection bandwidth",
                  "<div class=\"big\">" + v("ebb.value") + "</div><table>" + row({"min", v("ebb.min")}) +
                      row({"mean", v("ebb.value")}) + row({"max", v("ebb.max")}) +
                      row({"bisections", v("ebb.bisections")}) + row({"pattern", v("ebb.pattern")}) +
                      row({"seed", v("ebb.seed")}) + row({"unroutable flows", v("ebb.unroutable_flows", true)}) +
                      "</table>");
    else
        o += card("Effective bisection bandwidth", "not computed" + v("ebb", false, "hide"));
    if (r.shifts)
        o += card("Shift permutations", "<div class=\"big\">" + v("shifts.min") + "</div><table>" +
                                            row({"min", v("shifts.min")}) + row({"average", v("shifts.average")}) +
                                            row({"worst shift", v("shifts.worst_shift")}) +
                                            row({"host order", v("shifts.order")}) +
                                            row({"unroutable flows", v("shifts.unroutable_flows", true)}) + "</table>");
    else
        o += card("Shift permutations", "not computed" + v("shifts", false, "hide"));
    o += card("Link load (routes per link)",
              "<div class=\"big\">" + v("edge_forwarding.all_links.max") + "</div><table>" +
                  row({"CA-to-CA routes", v("edge_forwarding.routes")}) +
                  row({"max, all links", v("edge_forwarding.all_links.max")}) +
                  row({"mean, all links", v("edge_forwarding.all_links.mean")}) +
                  row({"directed links", v("edge_forwarding.all_links.channels")}) +
                  row({"max, switch links", v("edge_forwarding.switch_links.max")}) +
                  row({"mean, switch links", v("edge_forwarding.switch_links.mean")}) +
                  row({"hottest", v("edge_forwarding.all_links.max_link")}) + "</table>");
    return o + "</div>\n";
}

std::string port_label(const routing::analysis::NamedPort& p)
{
    return html_escape(p.name) + "[" + std::to_string(p.port) + "]";
}

std::string top_links_table(const Report& r, std::size_t side)
{
    if (r.link_loads.empty()) return "<p>No per-link loads in this analysis.</p>\n";
    // Switch links only when there are any: a host link's load is fixed by
    // the number of hosts, whatever the routing does.
    const bool switch_only =
        std::any_of(r.link_loads.begin(), r.link_loads.end(), [](const auto& l) { return l.switch_link; });
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < r.link_loads.size(); ++i)
        if (!switch_only || r.link_loads[i].switch_link) order.push_back(i);
    const std::size_t n = std::min<std::size_t>(20, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          return r.link_loads[a].load != r.link_loads[b].load ? r.link_loads[a].load > r.link_loads[b].load
                                                                              : a < b;
                      });
    std::string o = std::string("<h3>The ") + std::to_string(n) + " most loaded directed " +
                    (switch_only ? "switch-to-switch " : "") + "links</h3><table class=\"t top\" data-side=\"" +
                    std::to_string(side) + "\">" + row({"#", "from", "to", "load", "kind"}, "th") + "\n";
    for (std::size_t i = 0; i < n; ++i) {
        const auto& l = r.link_loads[order[i]];
        o += "<tr data-load=\"" + std::to_string(l.load) + "\"><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" +
             port_label(l.link.from) + "</td><td>" + port_label(l.link.to) + "</td><td class=\"n\">" +
             std::to_string(l.load) + "</td><td>" + (l.switch_link ? "switch link" : "host link") + "</td></tr>\n";
    }
    return o + "</table>\n";
}

std::string pair_list(const std::vector<NamedPair>& pairs)
{
    std::string o = "<ul>";
    for (const NamedPair& p : pairs)
        o += "<li>" + html_escape(p.source) + " &rarr; LID " + std::to_string(p.dlid) + " (" + html_escape(p.destination) +
             ")</li>";
    return o + "</ul>\n";
}

std::string problems(const Report& r, std::size_t side)
{
    std::string o;
    for (const ClassReport& c : r.classes) {
        if (!c.counted) continue;
        if (c.unreachable)
            o += "<h3 class=\"bad\">" + std::to_string(c.unreachable) + " unreachable " + class_title(c.cls) +
                 " pairs</h3>" + (c.unreachable_examples.empty() ? "" : "e.g." + pair_list(c.unreachable_examples));
        if (c.loops)
            o += "<h3 class=\"bad\">" + std::to_string(c.loops) + " " + class_title(c.cls) +
                 " pairs in a forwarding loop</h3>" + (c.loop_examples.empty() ? "" : "e.g." + pair_list(c.loop_examples));
    }
    auto credit = [&](const CreditReport& cr, const char* traffic) {
        for (const auto& vl : cr.vls) {
            if (vl.cycle.empty()) continue;
            o += "<h3 class=\"bad\">Credit loop on VL " + std::to_string(vl.vl) + " (" + traffic + "): a cycle of " +
                 std::to_string(vl.cycle.size()) +
                 " links in the channel dependency graph (dashed magenta on the drawing)</h3><ol class=\"cycle\">";
            for (const auto& l : vl.cycle) o += "<li>" + port_label(l.from) + " &rarr; " + port_label(l.to) + "</li>";
            o += "</ol>\n";
        }
    };
    credit(r.credit_ca_only, "CA traffic");
    credit(r.credit_all, "CA + switch traffic");
    if (r.lids.switches_without_lft)
        o += "<h3 class=\"bad\">" + std::to_string(r.lids.switches_without_lft) + " switches have no forwarding table</h3>\n";
    if (o.empty()) o = "<p class=\"ok\">No unreachable pairs, forwarding loops or credit loops.</p>\n";
    return "<div data-side=\"" + std::to_string(side) + "\" class=\"problems\">" + o + "</div>\n";
}

std::string load_legend(std::uint64_t max)
{
    std::string o = "<div class=\"legend\">load:";
    for (int q = 0; q <= 4; ++q) {
        const std::uint64_t load = max * static_cast<std::uint64_t>(q) / 4;
        o += " <span class=\"sw\" style=\"background:" + load_colour(load, max) + "\"></span>" + std::to_string(load);
    }
    return o + " routes per link (hottest cable of a bundle, either direction); thicker = hotter or more cables; "
               "<span class=\"sw\" style=\"background:#e0f\"></span> dashed: on a credit-loop cycle. "
               "Hover a link for its cables and example routes; wheel zooms, drag pans, double-click resets.</div>\n";
}

std::string diff_section(const std::vector<Side>& sides, const Layout& layout, Strings& names, Json& blob)
{
    const auto diffs = link_diffs(*sides[0].model, *sides[1].model);
    std::int64_t max_abs = 0;
    for (const LinkDiff& d : diffs) max_abs = std::max(max_abs, d.diff() < 0 ? -d.diff() : d.diff());
    std::string o = "<h2>Load difference (second minus first)</h2>\n<div class=\"legend\">";
    for (int q = -2; q <= 2; ++q) {
        const std::int64_t d = max_abs * q / 2;
        o += " <span class=\"sw\" style=\"background:" + diff_colour(d, static_cast<std::uint64_t>(max_abs)) +
             "\"></span>" + std::to_string(d);
    }
    o += " routes: the largest change of one cable in one direction, blue where the second routing carries less, "
         "red more; width: the hotter side's load.</div>\n";
    o += "<div class=\"sides\"><div class=\"side\">" + svg_diff(diffs, layout, names, blob) + "</div>\n<div class=\"side\">";

    std::vector<std::size_t> order(diffs.size());
    std::iota(order.begin(), order.end(), 0);
    const std::size_t n = std::min<std::size_t>(20, order.size());
    auto magnitude = [&](std::size_t i) { return diffs[i].diff() < 0 ? -diffs[i].diff() : diffs[i].diff(); };
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](std::size_t a, std::size_t b) {
                          return magnitude(a) != magnitude(b) ? magnitude(a) > magnitude(b) : a < b;
                      });
    o += "<h3>Largest changes</h3><table class=\"t changes\">" +
         row({"link", "hottest cable, first", "second", "largest change"}, "th") + "\n";
    for (std::size_t i = 0; i < n && magnitude(order[i]) > 0; ++i) {
        const LinkDiff& d = diffs[order[i]];
        o += "<tr><td>" + html_escape(d.name_a) + " &harr; " + html_escape(d.name_b) + "</td><td class=\"n\">" +
             std::to_string(d.first) + "</td><td class=\"n\">" + std::to_string(d.second) + "</td><td class=\"n\">" +
             (d.diff() > 0 ? "+" : "") + std::to_string(d.diff()) + "</td></tr>\n";
    }
    return o + "</table></div></div>\n";
}

// One block per side, side by side.
template <class F>
std::string per_side(const std::vector<Side>& sides, F&& f)
{
    std::string o = "<div class=\"sides\">\n";
    for (std::size_t i = 0; i < sides.size(); ++i)
        o += "<div class=\"side\">" +
             (sides.size() > 1 ? "<h3>" + html_escape(sides[i].title) + "</h3>" : std::string()) + f(sides[i], i) +
             "</div>\n";
    return o + "</div>\n";
}

} // namespace

std::string render_html(const std::vector<Side>& sides, const Layout& layout, const HtmlOptions& options)
{
    if (sides.empty() || sides.size() > 2) throw std::invalid_argument("render_html: one or two sides");
    for (const Side& s : sides)
        if (!s.analysis || !s.model) throw std::invalid_argument("render_html: a side without analysis or model");

    Strings names;
    Json blob_sides = Json::array();
    std::vector<std::string> drawings, health_drawings;
    bool any_health = false;
    for (std::size_t i = 0; i < sides.size(); ++i) {
        Json b;
        drawings.push_back(svg_fabric(*sides[i].model, layout, i, names, b));
        if (sides[i].model->health) {
            any_health = true;
            health_drawings.push_back(svg_health(*sides[i].model, layout, i, names, b["health"]));
        } else {
            health_drawings.emplace_back();
        }
        blob_sides.push_back(std::move(b));
    }
    Json diff_blob = Json::array();
    const std::string diff = sides.size() == 2 ? diff_section(sides, layout, names, diff_blob) : std::string();

    std::string title;
    for (const Side& s : sides) title += (title.empty() ? "" : " vs ") + s.title;
    std::string o;
    o.reserve(4096 + drawings[0].size() * sides.size() * 2);
    o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>ibsm report: " +
         html_escape(title) + "</title>\n<script>" + assets::error_hook + "</script>\n<style>" + assets::style +
         "</style>\n</head>\n<body>\n";
    o += "<h1>Route-quality report: " + html_escape(title) + "</h1>\n<div class=\"meta\">" +
         html_escape(options.generated_by) + " &middot; layout " + html_escape(layout.method) + "</div>\n";

    o += "<h2>Summary</h2>\n" + per_side(sides, [](const Side& s, std::size_t i) { return summary_cards(*s.analysis, i); });
    std::uint64_t max_load = 0;
    for (const Side& s : sides) max_load = std::max(max_load, s.model->max_load);
    o += "<h2>Fabric</h2>\n" + load_legend(max_load);
    o += per_side(sides, [&](const Side& s, std::size_t i) {
        std::string note = s.model->hosts_folded ? "<p class=\"meta\">Hosts folded into their leaf switches (hover a "
                                                   "switch for its count); per-cable detail is in the tables.</p>"
                                                 : "";
        return note + drawings[i];
    });
    o += diff;
    // After the difference drawing, so the drawings keep their order (the
    // browser test finds them by position).
    if (any_health)
        o += "<h2>Link health</h2>\n" + health_legend() + per_side(sides, [&](const Side& s, std::size_t i) {
                 if (!s.model->health) return std::string("<p class=\"meta\">No health data for this routing.</p>");
                 return health_drawings[i] + health_table(*s.model, i);
             });
    o += "<h2>Link loads</h2>\n" + per_side(sides, [](const Side& s, std::size_t i) {
             return "<h3>Histogram of directed links by load</h3>" + svg_histogram(s.analysis->link_loads) +
                    top_links_table(*s.analysis, i);
         });
    o += "<h2>Problems</h2>\n" + per_side(sides, [](const Side& s, std::size_t i) { return problems(*s.analysis, i); });

    Json blob{{"S", names.all()}, {"sides", std::move(blob_sides)}, {"diff", std::move(diff_blob)}};
    o += "<div id=\"tip\"></div>\n<script type=\"application/json\" id=\"report-data\">" +
         script_safe_json(blob.dump(-1, ' ', false, Json::error_handler_t::replace)) + "</script>\n<script>" +
         assets::script + "</script>\n</body>\n</html>\n";
    return o;
}

} // namespace ibsm::report
