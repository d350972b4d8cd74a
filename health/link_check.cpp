#include "health/link_check.h"

#include "mad/link_speed.h"
#include "mad/port_codes.h"
#include "topology/port_index.h"

#include <algorithm>
#include <string>

namespace ibsm::health {

namespace {

using topology::PortRef;

bool link_up(mad::PortState s)
{
    return s == mad::PortState::init || s == mad::PortState::armed || s == mad::PortState::active;
}

// The capability masks that speak for a port (IBA 14.2.5.6: a switch states
// its capabilities on port 0); the port's own when port 0 was not read.
mad::PortSpeeds speeds_of(const topology::Fabric& f, const topology::PortIndex<mad::PortInfo>& pis, PortRef p,
                          const mad::PortInfo& pi)
{
    if (f.node(p.node).is_switch())
        if (const auto* zero = pis.find(PortRef{p.node, PortNum(0)}))
            return mad::port_speeds(pi, zero->capability_mask, zero->capability_mask2);
    return mad::port_speeds(pi);
}

LinkCheck check_end(const mad::PortInfo& here, const mad::PortSpeeds& mine, const mad::PortInfo& there,
                    const mad::PortSpeeds& theirs, const LinkCheckOptions& options)
{
    LinkCheck c;
    const std::uint8_t width_possible =
        mad::widest(mine.widths_supported & mine.widths_enabled & theirs.widths_supported & theirs.widths_enabled);
    const mad::LaneSpeed speed_possible =
        mad::fastest(mine.speeds_supported & mine.speeds_enabled & theirs.speeds_supported & theirs.speeds_enabled);
    c.width_active = mine.width_active;
    c.width_possible = width_possible;
    c.speed_active = mine.speed_active;
    c.speed_possible = speed_possible;
    // Nothing both ends enable in common (or a field not read): no claim.
    if (width_possible && mad::lanes(mine.width_active) < mad::lanes(width_possible)) {
        c.downshifted = true;
        c.findings.push_back("width " + std::string(active_width_name(c)) + " of " +
                             std::string(possible_width_name(c)));
    }
    if (speed_possible != mad::LaneSpeed::none && mine.speed_active < speed_possible) {
        c.downshifted = true;
        c.findings.push_back("speed " + std::string(active_speed_name(c)) + " of " +
                             std::string(possible_speed_name(c)));
    }
    // A reserved code on either end (mad::mtu_bytes and vl_count answer 0)
    // makes the possible value 0: nothing is claimed.
    c.mtu_active = static_cast<std::uint16_t>(mad::mtu_bytes(here.neighbor_mtu));
    c.mtu_possible = static_cast<std::uint16_t>(std::min(mad::mtu_bytes(here.mtu_cap), mad::mtu_bytes(there.mtu_cap)));
    if (c.mtu_possible && c.mtu_active < c.mtu_possible)
        c.findings.push_back("MTU " + std::to_string(c.mtu_active) + " of " + std::to_string(c.mtu_possible));
    c.vls_active = static_cast<std::uint8_t>(mad::vl_count(here.operational_vls));
    c.vls_possible = static_cast<std::uint8_t>(
        std::min({mad::vl_count(here.vl_cap), mad::vl_count(there.vl_cap), mad::vl_count(options.max_vls_code)}));
    if (c.vls_possible && c.vls_active < c.vls_possible)
        c.findings.push_back("VLs " + std::to_string(c.vls_active) + " of " + std::to_string(c.vls_possible));
    return c;
}

} // namespace

LinkChecks check_links(const topology::Fabric& f, const std::map<PortRef, mad::PortInfo>& pis,
                       const LinkCheckOptions& options)
{
    // Nodes in GUID order and their ports in order, found through the flat
    // index: the checks come out in the table's order (no sort) and the map
    // is walked once, to build the index.
    std::vector<topology::NodeId> nodes = f.node_ids();
    std::sort(nodes.begin(), nodes.end(), [&](auto x, auto y) { return f.node(x).guid < f.node(y).guid; });
    std::vector<LinkChecks::value_type> out;
    out.reserve(pis.size());
    const topology::PortIndex<mad::PortInfo> index(f, pis);
    for (const auto n : nodes) {
        const auto& node = f.node(n);
        for (std::size_t p = 1; p < node.ports.size(); ++p) { // no cable on a switch's port 0 (nor a CA's)
            const PortRef a{n, PortNum(static_cast<std::uint8_t>(p))};
            const auto* pa = index.find(a);
            const auto& b = node.ports[p].remote;
            if (!pa || !b) continue;
            const auto* pb = index.find(*b);
            if (!pb || !link_up(pa->port_state) || !link_up(pb->port_state)) continue;
            const auto sa = speeds_of(f, index, a, *pa);
            const auto sb = speeds_of(f, index, *b, *pb);
            out.emplace_back(PortId{node.guid, a.port}, check_end(*pa, sa, *pb, sb, options));
        }
    }
    return LinkChecks(std::move(out));
}

} // namespace ibsm::health
