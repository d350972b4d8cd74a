#include "report/html_health.h"

#include "report/colour.h"
#include "report/html_text.h"

#include <cstdio>
#include <stdexcept>

namespace ibsm::report {

namespace {

std::string percent(double u)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", u * 100);
    return buf;
}

std::string end_label(const std::string& name, unsigned port)
{
    return html_escape(name) + "[" + std::to_string(port) + "]";
}

} // namespace

std::string byte_rate_text(double v)
{
    static constexpr const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
    std::size_t u = 0;
    while (v >= 1000 && u + 1 < std::size(units)) {
        v /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.3g %s", v, units[u]);
    return buf;
}

std::string health_legend()
{
    std::string o = "<div class=\"legend\">utilisation:";
    for (int q = 0; q <= 4; ++q)
        o += " <span class=\"sw\" style=\"background:" + utilisation_colour(q / 4.0) + "\"></span>" +
             std::to_string(q * 25) + " %";
    return o + " of the link's capacity (width &times; lane rate), busier direction, last counter interval; "
               "thicker = busier. <span class=\"sw\" style=\"background:#c8c8c8\"></span> thin grey: no counters. "
               "<span class=\"mk er\"></span> red dot, dashed: error counters grew in the last interval; "
               "<span class=\"mk rp\"></span> red ring: reported by the health policy; "
               "<span class=\"mk ds\"></span> orange diamond: downshifted (narrower or slower than both ends could "
               "do); <span class=\"mk iso\">&times;</span> grey, dotted: isolated (routed around). "
               "Hover a link for both ends' numbers and findings.</div>\n";
}

std::string health_table(const Model& model, std::size_t side, std::size_t limit)
{
    if (!model.health) throw std::invalid_argument("health_table: the model has no health overlay");
    const HealthOverlay& h = *model.health;
    std::size_t measured = 0;
    for (const CableHealth& c : h.cables)
        if (c.measured) ++measured;
    std::string o = "<p class=\"meta\" data-side=\"" + std::to_string(side) + "\" data-rows=\"" +
                    std::to_string(h.rows) + "\" data-matched=\"" + std::to_string(h.matched) +
                    "\" data-unmatched=\"" + std::to_string(h.unmatched.size()) + "\">Health rows from " +
                    html_escape(h.source) + ": " + std::to_string(h.rows) + " ports, " + std::to_string(h.matched) +
                    " at a cable of this topology; " + std::to_string(h.cables.size()) + " cables with a row, " +
                    std::to_string(measured) + " with rates.";
    if (!h.unmatched.empty()) {
        o += " <span class=\"bad\">" + std::to_string(h.unmatched.size()) +
             (h.unmatched.size() == 1 ? " port" : " ports") + " not cabled in this topology</span> (";
        for (std::size_t i = 0; i < h.unmatched.size() && i < 5; ++i)
            o += (i ? ", " : "") + html_escape(h.unmatched[i]);
        o += h.unmatched.size() > 5 ? ", ...)" : ")";
    }
    if (auto b = h.busiest()) {
        const CableHealth& c = h.cables[*b];
        o += " Busiest: " + end_label(c.name_a, c.port_a) + " &harr; " + end_label(c.name_b, c.port_b) + " at " +
             percent(*c.utilisation) + ".";
    }
    o += "</p>\n";

    const std::vector<std::size_t> worst = h.worst();
    if (worst.empty())
        return o + "<p class=\"ok\">No errors, downshifts or isolations on the " + std::to_string(h.cables.size()) +
               " cables with a health row.</p>\n";
    const std::size_t n = std::min(limit, worst.size());
    o += "<h3>" + (n < worst.size() ? "The " + std::to_string(n) + " worst of " : std::string()) +
         std::to_string(worst.size()) + " links with errors, downshifts or a health state</h3>";
    o += "<table class=\"t health\" data-side=\"" + std::to_string(side) +
         "\"><tr><th>#</th><th>link</th><th>width, speed</th><th>utilisation</th><th>busier direction</th>"
         "<th>errors, last interval</th><th>errors, total</th><th>state</th><th>findings</th></tr>\n";
    for (std::size_t i = 0; i < n; ++i) {
        const CableHealth& c = h.cables[worst[i]];
        const std::string state(health::state_name(c.state));
        std::string findings;
        for (const std::string& f : c.findings) findings += (findings.empty() ? "" : "<br>") + html_escape(f);
        o += "<tr data-state=\"" + state + "\" data-errors=\"" + std::to_string(c.errors_delta) +
             "\" data-downshifted=\"" + (c.downshifted ? "1" : "0") + "\"><td class=\"n\">" + std::to_string(i + 1) +
             "</td><td>" + end_label(c.name_a, c.port_a) + " &harr; " + end_label(c.name_b, c.port_b) + "</td><td>" +
             (c.width.empty() ? "&mdash;" : html_escape(c.width + " " + c.speed)) + "</td><td class=\"n\">" +
             (c.utilisation ? percent(*c.utilisation) : "&mdash;") + "</td><td class=\"n\">" +
             (c.measured ? byte_rate_text(std::max(c.bytes_ab, c.bytes_ba)) : "&mdash;") + "</td><td class=\"n" +
             (c.errors_delta ? " bad" : "") + "\">" + std::to_string(c.errors_delta) + "</td><td class=\"n\">" +
             std::to_string(c.errors_total) + "</td><td" + (c.state != health::HealthState::ok ? " class=\"bad\"" : "") +
             ">" + state + (c.downshifted ? ", downshifted" : "") + "</td><td>" + findings + "</td></tr>\n";
    }
    return o + "</table>\n";
}

} // namespace ibsm::report
