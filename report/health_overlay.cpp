#include "report/health_overlay.h"

#include "mad/link_speed.h"
#include "routing/analysis/network.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>

namespace ibsm::report {

namespace {

using health::HealthState;
using health::PortHealth;
using health::PortId;

HealthState worse(HealthState a, HealthState b) { return state_rank(a) <= state_rank(b) ? a : b; }

std::uint64_t error_sum(const PortHealth* row, bool deltas)
{
    if (!row || !row->counters) return 0;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < health::error_counter_count; ++i)
        sum += deltas ? row->counters->delta[i] : row->counters->total[i];
    return sum;
}

// Rates exist from the second read on (one read has no interval).
const health::PortCounters* rates(const PortHealth* row)
{
    return row && row->counters && row->counters->interval_s > 0 ? &*row->counters : nullptr;
}

void add_finding(std::vector<std::string>& out, std::string f)
{
    if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(std::move(f));
}

// One cable from its two ends' rows (either may be missing).
CableHealth cable_health(const topology::Fabric& fabric, topology::PortRef a, topology::PortRef b,
                         const std::string& name_a, const std::string& name_b, const PortHealth* ra,
                         const PortHealth* rb)
{
    CableHealth c;
    c.guid_a = fabric.node(a.node).guid;
    c.guid_b = fabric.node(b.node).guid;
    c.name_a = name_a;
    c.name_b = name_b;
    c.port_a = a.port.value();
    c.port_b = b.port.value();
    // Both ends record the same active width and speed; an end read from a
    // file without them has zeros, so take the first end that knows.
    for (const topology::PortRef end : {a, b}) {
        const topology::Port& p = fabric.port(end);
        const mad::LaneSpeed speed =
            mad::active_speed(p.link_speed_active, p.link_speed_ext_active, p.link_speed_ext_active2);
        if (mad::lanes(p.link_width_active) == 0 || speed == mad::LaneSpeed::none) continue;
        c.width = std::string(mad::width_name(p.link_width_active));
        c.speed = std::string(mad::speed_name(speed));
        c.capacity_bytes_per_s = link_capacity_bytes_per_s(p.link_width_active, p.link_speed_active,
                                                           p.link_speed_ext_active, p.link_speed_ext_active2);
        break;
    }
    const health::PortCounters* ca = rates(ra);
    const health::PortCounters* cb = rates(rb);
    c.measured = ca || cb;
    c.bytes_ab = std::max(ca ? ca->xmit_bytes_per_s : 0.0, cb ? cb->rcv_bytes_per_s : 0.0);
    c.bytes_ba = std::max(cb ? cb->xmit_bytes_per_s : 0.0, ca ? ca->rcv_bytes_per_s : 0.0);
    if (c.measured && c.capacity_bytes_per_s > 0) c.utilisation = std::max(c.bytes_ab, c.bytes_ba) / c.capacity_bytes_per_s;
    c.errors_delta = error_sum(ra, true) + error_sum(rb, true);
    c.errors_total = error_sum(ra, false) + error_sum(rb, false);
    for (const auto& [row, name, port] : {std::tuple{ra, &name_a, c.port_a}, std::tuple{rb, &name_b, c.port_b}}) {
        if (!row) continue;
        c.state = worse(c.state, row->state);
        if (row->link) {
            c.downshifted = c.downshifted || row->link->downshifted;
            // The link check reports the link, the same at both ends.
            for (const std::string& f : row->link->findings) add_finding(c.findings, f);
        }
        const std::string end = *name + "[" + std::to_string(port) + "]";
        if (row->state != HealthState::ok && row->reasons.empty())
            add_finding(c.findings, end + ": " + std::string(health::state_name(row->state)));
        for (const std::string& r : row->reasons) add_finding(c.findings, end + ": " + r);
    }
    return c;
}

} // namespace

double link_capacity_bytes_per_s(std::uint8_t width, std::uint8_t speed_active, std::uint8_t speed_ext_active,
                                 std::uint8_t speed_ext_active2)
{
    const mad::LaneSpeed speed = mad::active_speed(speed_active, speed_ext_active, speed_ext_active2);
    return static_cast<double>(mad::lanes(width)) * static_cast<double>(mad::lane_mbps(speed)) * 1e6 / 8;
}

void add_health(Model& model, const topology::Fabric& fabric, const std::vector<PortHealth>& rows, std::string source)
{
    HealthOverlay overlay;
    overlay.source = std::move(source);
    overlay.rows = rows.size();
    std::map<PortId, const PortHealth*> by_port;
    for (const PortHealth& row : rows) {
        const auto node = fabric.find_node(row.id.node);
        const unsigned port = row.id.port.value();
        if (node && port >= 1 && port <= fabric.node(*node).num_ports() && fabric.node(*node).ports[port].remote) {
            ++overlay.matched;
            by_port.try_emplace(row.id, &row); // the first row of a port counts
        } else {
            overlay.unmatched.push_back(row.id.node.str() + "[" + std::to_string(port) + "]");
        }
    }

    std::unordered_map<std::uint64_t, std::size_t> drawn; // node GUID -> Model node
    for (std::size_t i = 0; i < model.nodes.size(); ++i) drawn.emplace(model.nodes[i].guid.value(), i);
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> link_of;
    for (std::size_t i = 0; i < model.links.size(); ++i) {
        link_of.emplace(std::pair(model.links[i].a, model.links[i].b), i);
        model.links[i].health.reset();
    }
    const std::vector<std::string> names = routing::analysis::node_display_names(fabric);
    auto row_at = [&](topology::PortRef p) -> const PortHealth* {
        auto it = by_port.find(PortId{fabric.node(p.node).guid, p.port});
        return it == by_port.end() ? nullptr : it->second;
    };

    const std::vector<topology::Link> cables = fabric.links();
    for (std::size_t k = 0; k < cables.size(); ++k) {
        topology::PortRef a = cables[k].a, b = cables[k].b;
        if (!row_at(a) && !row_at(b)) continue;
        std::optional<std::size_t> link;
        auto ia = drawn.find(fabric.node(a.node).guid.value()), ib = drawn.find(fabric.node(b.node).guid.value());
        if (ia != drawn.end() && ib != drawn.end()) {
            std::size_t na = ia->second, nb = ib->second;
            if (na > nb) {
                std::swap(na, nb);
                std::swap(a, b);
            }
            if (auto it = link_of.find({na, nb}); it != link_of.end()) link = it->second;
        }
        CableHealth c = cable_health(fabric, a, b, names[a.node.value], names[b.node.value], row_at(a), row_at(b));
        c.link = link;
        c.order = k;
        if (link) {
            Link& l = model.links[*link];
            if (!l.health) l.health.emplace();
            LinkHealth& h = *l.health;
            h.cables.push_back(overlay.cables.size());
            if (c.utilisation) h.utilisation = std::max(h.utilisation.value_or(0.0), *c.utilisation);
            h.errors_delta += c.errors_delta;
            h.errors_total += c.errors_total;
            h.downshifted = h.downshifted || c.downshifted;
            h.state = worse(h.state, c.state);
        }
        overlay.cables.push_back(std::move(c));
    }
    model.health = std::move(overlay);
}

} // namespace ibsm::report
