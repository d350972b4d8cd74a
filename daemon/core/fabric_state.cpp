#include "daemon/core/fabric_state.h"

#include "mad/link_speed.h"

namespace ibsm::daemon {

DrPath path_to_port(const DiscoveryResult& found, topology::PortRef p)
{
    const auto& f = found.fabric;
    if (p == found.sm_port) return DrPath{};
    if (!f.node(p.node).is_switch()) {
        if (auto r = f.remote(p); r && f.node(r->node).is_switch()) {
            const auto& via = found.path_to(r->node);
            if (!via.full()) return via.extended(r->port);
        }
    }
    return found.path_to(p.node);
}

const mad::PortInfo* capability_source(const DiscoveryResult& found, topology::PortRef p)
{
    if (found.fabric.node(p.node).is_switch()) p.port = PortNum(0);
    auto it = found.port_info.find(p);
    return it == found.port_info.end() ? nullptr : &it->second;
}

std::uint32_t port_info_attr_mod(const DiscoveryResult& found, topology::PortRef p)
{
    const bool plain = found.plain_port_info.count(found.fabric.node(p.node).guid) != 0;
    return p.port.value() | (plain ? 0u : mad::attr_mod_sm_supports_extended_speeds);
}

} // namespace ibsm::daemon
