#include "report/html_drawing.h"

#include "health/port_health.h"
#include "report/colour.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace ibsm::report {

std::size_t Strings::id(const std::string& s)
{
    auto [it, added] = index_.try_emplace(s, list_.size());
    if (added) list_.push_back(s);
    return it->second;
}

namespace {

// Coordinates are printed with just enough decimals for a tenth of the
// smallest spacing that can matter (1/100 000 of the drawing), so a large
// fabric's markup does not carry noise digits.
class Coords {
public:
    explicit Coords(const Layout& layout)
    {
        extent_ = std::max({layout.width, layout.height, 1e-9});
        double quantum = extent_ / 1e5;
        decimals_ = std::clamp(static_cast<int>(std::ceil(-std::log10(quantum))), 0, 9);
    }
    std::string operator()(double v) const
    {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.*f", decimals_, v);
        std::string s = buf;
        if (s.find('.') != std::string::npos) {
            while (s.back() == '0') s.pop_back();
            if (s.back() == '.') s.pop_back();
        }
        if (s == "-0") s = "0";
        return s;
    }
    double extent() const { return extent_; }

private:
    double extent_ = 1;
    int decimals_ = 0;
};

std::string width_text(double w)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2g", w);
    return buf;
}

Point position(const Layout& layout, Guid guid, const std::string& name)
{
    auto it = layout.at.find(guid);
    if (it == layout.at.end())
        throw std::invalid_argument("report layout has no position for " + name + " (" + guid.str() + ")");
    return it->second;
}

// Half the size of a node: below half the closest spacing of two nodes on
// one row (levels), and small against the drawing otherwise.
double node_radius(const Model& model, const Layout& layout)
{
    if (layout.node_spacing > 0) return layout.node_spacing * 0.4;
    const double extent = std::max({layout.width, layout.height, 1.0});
    std::map<long long, std::vector<double>> rows;
    for (const Node& n : model.nodes) {
        auto it = layout.at.find(n.guid);
        if (it != layout.at.end()) rows[std::llround(it->second.y * 1000)].push_back(it->second.x);
    }
    double closest = extent / std::sqrt(static_cast<double>(std::max<std::size_t>(model.nodes.size(), 1)));
    for (auto& [y, xs] : rows) {
        std::sort(xs.begin(), xs.end());
        for (std::size_t i = 1; i < xs.size(); ++i)
            if (xs[i] - xs[i - 1] > 0) closest = std::min(closest, xs[i] - xs[i - 1]);
    }
    return std::min(closest * 0.4, extent / 40);
}

// Stroke widths are screen pixels (non-scaling strokes, so zooming in does
// not fatten lines). On a dense drawing the 1..6 px of load_width would paint
// the whole area: they shrink with the closest node spacing as shown at a
// nominal 1500 px wide drawing, down to a tenth.
double width_scale(double spacing, const Layout& layout)
{
    const double extent = std::max({layout.width, layout.height, 1e-9});
    const double spacing_px = spacing * 1500 / extent;
    return std::clamp(spacing_px / 8, 0.1, 1.0);
}

std::string svg_open(const char* cls, const Layout& layout, double margin, const std::string& extra)
{
    const Coords c(layout);
    return std::string("<svg class=\"") + cls + "\" viewBox=\"" + c(-margin) + " " +
           c(-margin) + " " + c(layout.width + 2 * margin) + " " + c(layout.height + 2 * margin) +
           "\" preserveAspectRatio=\"xMidYMid meet\"" + extra + ">\n";
}

std::string line(const Coords& c, std::size_t i, const char* cls, Point p, Point q, const std::string& colour,
                 double width)
{
    return std::string("<line class=\"") + cls + "\" data-i=\"" + std::to_string(i) + "\" x1=\"" + c(p.x) + "\" y1=\"" +
           c(p.y) + "\" x2=\"" + c(q.x) + "\" y2=\"" + c(q.y) + "\" stroke=\"" + colour + "\" stroke-width=\"" +
           width_text(width) + "\"/>\n";
}

} // namespace

std::string svg_fabric(const Model& model, const Layout& layout, std::size_t side, Strings& names, Json& blob)
{
    const Coords c(layout);
    const double r = node_radius(model, layout);
    const double scale = width_scale(r / 0.4, layout);
    std::vector<Point> at;
    at.reserve(model.nodes.size());
    for (const Node& n : model.nodes) at.push_back(position(layout, n.guid, n.name));

    std::string o = svg_open("fab", layout, std::max(r * 2, c.extent() * 0.02),
                             " data-side=\"" + std::to_string(side) + "\" data-links=\"" +
                                 std::to_string(model.links.size()) + "\" data-nodes=\"" +
                                 std::to_string(model.nodes.size()) + "\"");
    o += "<g>\n";
    Json links = Json::array();
    for (std::size_t i = 0; i < model.links.size(); ++i) {
        const Link& l = model.links[i];
        if (l.a >= at.size() || l.b >= at.size()) throw std::invalid_argument("report model link names a missing node");
        const std::uint64_t load = l.max_load();
        // A credit-loop link stays visible however little it carries.
        const double width = scale * load_width(load, model.max_load, l.cables.size());
        o += line(c, i, l.on_credit_loop ? "l cl" : "l", at[l.a], at[l.b], load_colour(load, model.max_load),
                  l.on_credit_loop ? std::max(width, 3.0) : width);
        Json cables = Json::array();
        for (const Cable& k : l.cables) cables.push_back(Json::array({k.port_a, k.port_b, k.load_ab, k.load_ba}));
        Json examples = Json::array();
        for (const Example& e : l.examples)
            examples.push_back(Json::array({names.id(e.source), names.id(e.destination)}));
        links.push_back(Json::array({l.a, l.b, std::move(cables), std::move(examples), l.on_credit_loop ? 1 : 0}));
    }
    o += "</g>\n<g>\n";
    Json nodes = Json::array();
    for (std::size_t i = 0; i < model.nodes.size(); ++i) {
        const Node& n = model.nodes[i];
        const Point p = at[i];
        if (n.kind == NodeKind::switch_node)
            o += "<rect class=\"s\" data-n=\"" + std::to_string(i) + "\" x=\"" + c(p.x - r) + "\" y=\"" + c(p.y - r) +
                 "\" width=\"" + c(2 * r) + "\" height=\"" + c(2 * r) + "\"/>\n";
        else
            o += "<circle class=\"h\" data-n=\"" + std::to_string(i) + "\" cx=\"" + c(p.x) + "\" cy=\"" + c(p.y) +
                 "\" r=\"" + c(r * 0.7) + "\"/>\n";
        nodes.push_back(Json::array(
            {names.id(n.name), n.kind == NodeKind::switch_node ? 0 : 1, n.level, n.folded_hosts}));
    }
    o += "</g>\n</svg>\n";
    blob = Json{{"nodes", std::move(nodes)}, {"links", std::move(links)}};
    return o;
}

namespace {

// The blob's record of one cable (html_assets.h lists the fields).
Json cable_json(const CableHealth& c, Strings& names)
{
    Json findings = Json::array();
    for (const std::string& f : c.findings) findings.push_back(names.id(f));
    // Rounded so the page does not carry noise digits; rates are whole bytes.
    Json utilisation = c.utilisation ? Json(std::round(*c.utilisation * 1e4) / 1e4) : Json();
    return Json::array({names.id(c.name_a), c.port_a, names.id(c.name_b), c.port_b,
                        c.width.empty() ? Json() : Json(names.id(c.width + " " + c.speed)), std::move(utilisation),
                        static_cast<std::uint64_t>(std::llround(c.bytes_ab)),
                        static_cast<std::uint64_t>(std::llround(c.bytes_ba)), c.errors_delta, c.errors_total,
                        c.downshifted ? 1 : 0, names.id(std::string(health::state_name(c.state))), std::move(findings),
                        c.measured ? 1 : 0});
}

// The badges of a link at its middle: a filled red dot for errors in the
// last interval, a red ring for a state the policy set (reported, isolation
// refused), an orange diamond for a downshift, a cross for isolated.
std::string badges(const Coords& c, std::size_t i, Point p, Point q, const LinkHealth& h, double r)
{
    const Point m{(p.x + q.x) / 2, (p.y + q.y) / 2};
    const std::string id = " data-i=\"" + std::to_string(i) + "\"";
    std::string o;
    if (h.isolated())
        o += "<path class=\"b iso\"" + id + " d=\"M" + c(m.x - r) + " " + c(m.y - r) + "L" + c(m.x + r) + " " +
             c(m.y + r) + "M" + c(m.x - r) + " " + c(m.y + r) + "L" + c(m.x + r) + " " + c(m.y - r) + "\"/>\n";
    else if (h.state != health::HealthState::ok)
        o += "<circle class=\"b rp\"" + id + " cx=\"" + c(m.x) + "\" cy=\"" + c(m.y) + "\" r=\"" + c(r * 1.4) + "\"/>\n";
    if (h.errors_delta > 0)
        o += "<circle class=\"b er\"" + id + " cx=\"" + c(m.x) + "\" cy=\"" + c(m.y) + "\" r=\"" + c(r) + "\"/>\n";
    if (h.downshifted) {
        // Beside the dot, so both show on one link.
        const double x = m.x + (h.errors_delta > 0 ? 2.2 * r : 0);
        o += "<path class=\"b ds\"" + id + " d=\"M" + c(x) + " " + c(m.y - r) + "L" + c(x + r) + " " + c(m.y) + "L" +
             c(x) + " " + c(m.y + r) + "L" + c(x - r) + " " + c(m.y) + "Z\"/>\n";
    }
    return o;
}

} // namespace

std::string svg_health(const Model& model, const Layout& layout, std::size_t side, Strings& names, Json& blob)
{
    if (!model.health) throw std::invalid_argument("svg_health: the model has no health overlay");
    const Coords c(layout);
    const double r = node_radius(model, layout);
    const double scale = width_scale(r / 0.4, layout);
    const double badge = std::max(r * 0.45, c.extent() * 0.004);
    std::vector<Point> at;
    at.reserve(model.nodes.size());
    for (const Node& n : model.nodes) at.push_back(position(layout, n.guid, n.name));

    std::string o = svg_open("hlt", layout, std::max(r * 2, c.extent() * 0.02),
                             " data-side=\"" + std::to_string(side) + "\" data-links=\"" +
                                 std::to_string(model.links.size()) + "\"");
    o += "<g>\n";
    std::string marks;
    Json links = Json::array(), cables = Json::array();
    for (std::size_t i = 0; i < model.links.size(); ++i) {
        const Link& l = model.links[i];
        if (l.a >= at.size() || l.b >= at.size()) throw std::invalid_argument("report model link names a missing node");
        if (!l.health) {
            o += line(c, i, "l nm", at[l.a], at[l.b], "#c8c8c8", scale);
            links.push_back(nullptr);
            continue;
        }
        const LinkHealth& h = *l.health;
        std::string cls = "l";
        if (!h.utilisation) cls += " nm";
        if (h.errors_delta > 0) cls += " er";
        if (h.isolated()) cls += " iso";
        const std::string colour =
            h.isolated() ? "#909090" : h.utilisation ? utilisation_colour(*h.utilisation) : "#b0b0b0";
        // load_width's 1..6 over utilisation in thousandths (full from 100 % on).
        const auto permille = static_cast<std::uint64_t>(std::llround(std::min(h.utilisation.value_or(0.0), 1.0) * 1000));
        double width = scale * (h.utilisation ? load_width(permille, 1000, l.cables.size()) : 1.0);
        if (h.errors_delta > 0) width = std::max(width, 3.0); // a sick link stays visible however idle
        o += line(c, i, cls.c_str(), at[l.a], at[l.b], colour, width);
        marks += badges(c, i, at[l.a], at[l.b], h, badge);
        Json ids = Json::array();
        for (std::size_t k : h.cables) {
            ids.push_back(cables.size());
            cables.push_back(cable_json(model.health->cables.at(k), names));
        }
        links.push_back(std::move(ids));
    }
    o += "</g>\n<g>\n";
    for (std::size_t i = 0; i < model.nodes.size(); ++i) {
        const Point p = at[i];
        if (model.nodes[i].kind == NodeKind::switch_node)
            o += "<rect class=\"s\" data-n=\"" + std::to_string(i) + "\" x=\"" + c(p.x - r) + "\" y=\"" + c(p.y - r) +
                 "\" width=\"" + c(2 * r) + "\" height=\"" + c(2 * r) + "\"/>\n";
        else
            o += "<circle class=\"h\" data-n=\"" + std::to_string(i) + "\" cx=\"" + c(p.x) + "\" cy=\"" + c(p.y) +
                 "\" r=\"" + c(r * 0.7) + "\"/>\n";
    }
    o += "</g>\n<g>\n" + marks + "</g>\n</svg>\n";
    blob = Json{{"links", std::move(links)}, {"cables", std::move(cables)}};
    return o;
}

std::vector<LinkDiff> link_diffs(const Model& first, const Model& second)
{
    struct Loads {
        std::uint64_t first = 0, second = 0;
    };
    // Per bundle (its nodes' GUIDs, lower first): each directed cable, as
    // (port on the lower GUID, port on the higher, towards the higher?).
    std::map<std::pair<Guid, Guid>, std::pair<LinkDiff, std::map<std::tuple<unsigned, unsigned, bool>, Loads>>> by_ends;
    auto add = [&](const Model& m, bool is_second) {
        for (const Link& l : m.links) {
            const Node& na = m.nodes.at(l.a);
            const Node& nb = m.nodes.at(l.b);
            const bool swap = nb.guid < na.guid;
            const Node& lo = swap ? nb : na;
            const Node& hi = swap ? na : nb;
            auto& [d, cables] = by_ends[{lo.guid, hi.guid}];
            d.a = lo.guid;
            d.b = hi.guid;
            d.name_a = lo.name;
            d.name_b = hi.name;
            (is_second ? d.second : d.first) = l.max_load();
            for (const Cable& c : l.cables) {
                const unsigned port_lo = swap ? c.port_b : c.port_a, port_hi = swap ? c.port_a : c.port_b;
                const std::uint64_t up = swap ? c.load_ba : c.load_ab, down = swap ? c.load_ab : c.load_ba;
                (is_second ? cables[{port_lo, port_hi, true}].second : cables[{port_lo, port_hi, true}].first) = up;
                (is_second ? cables[{port_lo, port_hi, false}].second : cables[{port_lo, port_hi, false}].first) = down;
            }
        }
    };
    add(first, false);
    add(second, true);
    std::vector<LinkDiff> out;
    out.reserve(by_ends.size());
    for (auto& [ends, entry] : by_ends) {
        auto& [d, cables] = entry;
        for (const auto& [cable, loads] : cables) {
            const std::int64_t change = static_cast<std::int64_t>(loads.second) - static_cast<std::int64_t>(loads.first);
            if (std::llabs(change) > std::llabs(d.change)) d.change = change;
        }
        out.push_back(std::move(d));
    }
    return out;
}

std::string svg_diff(const std::vector<LinkDiff>& diffs, const Layout& layout, Strings& names, Json& blob)
{
    const Coords c(layout);
    const double scale = width_scale(layout.node_spacing > 0 ? layout.node_spacing : c.extent(), layout);
    std::uint64_t max_abs = 0, max_load = 0;
    for (const LinkDiff& d : diffs) {
        max_abs = std::max<std::uint64_t>(max_abs, static_cast<std::uint64_t>(std::llabs(d.diff())));
        max_load = std::max({max_load, d.first, d.second});
    }
    std::string o = svg_open("diff", layout, c.extent() * 0.02, " data-links=\"" + std::to_string(diffs.size()) + "\"");
    blob = Json::array();
    for (std::size_t i = 0; i < diffs.size(); ++i) {
        const LinkDiff& d = diffs[i];
        o += line(c, i, "l", position(layout, d.a, d.name_a), position(layout, d.b, d.name_b),
                  diff_colour(d.diff(), max_abs), scale * load_width(std::max(d.first, d.second), max_load));
        blob.push_back(Json::array({names.id(d.name_a), names.id(d.name_b), d.first, d.second, d.change}));
    }
    o += "</svg>\n";
    return o;
}

std::string svg_histogram(const std::vector<routing::analysis::LinkLoad>& loads)
{
    if (loads.empty()) return {};
    std::uint64_t max = 0;
    for (const auto& l : loads) max = std::max(max, l.load);
    // Up to 20 bars of equal load ranges; one bar per load when loads are small.
    const std::uint64_t step = (max + 1 + 19) / 20;
    const std::uint64_t bars = (max + 1 + step - 1) / step;
    std::vector<std::uint64_t> count(bars, 0);
    for (const auto& l : loads) ++count[std::min<std::uint64_t>(l.load / step, bars - 1)];
    const std::uint64_t top = *std::max_element(count.begin(), count.end());

    const double w = 640, h = 200, left = 10, bottom = 30, bar_w = (w - 2 * left) / static_cast<double>(bars);
    char buf[256];
    std::snprintf(buf, sizeof buf, "<svg class=\"hist\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" height=\"%.0f\" data-bars=\"%llu\">\n",
                  w, h + bottom, w, h + bottom, static_cast<unsigned long long>(bars));
    std::string o = buf;
    for (std::uint64_t k = 0; k < bars; ++k) {
        const std::uint64_t lo = k * step, hi = std::min(max, (k + 1) * step - 1);
        const double bh = top ? (h - 16) * static_cast<double>(count[k]) / static_cast<double>(top) : 0;
        const double x = left + static_cast<double>(k) * bar_w;
        const std::string range = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
        std::snprintf(buf, sizeof buf,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" data-count=\"%llu\"><title>",
                      x + 1, h - bh, bar_w - 2, bh, load_colour(hi, max).c_str(),
                      static_cast<unsigned long long>(count[k]));
        o += buf;
        o += "load " + range + ": " + std::to_string(count[k]) + " directed links</title></rect>\n";
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + bar_w / 2, h - bh - 3);
        o += buf;
        o += std::to_string(count[k]) + "</text>\n";
        std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + bar_w / 2, h + 14);
        o += buf;
        o += std::to_string(lo) + "</text>\n";
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">", w / 2, h + bottom - 2);
    o += buf;
    o += "routes over a directed link (edge-forwarding load; each bar from the load under it)</text>\n</svg>\n";
    return o;
}

} // namespace ibsm::report
