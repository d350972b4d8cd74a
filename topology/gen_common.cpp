#include "topology/gen_common.h"

#include <cstdio>
#include <stdexcept>

namespace ibsm::topology::gen {

Guid switch_guid(unsigned family, std::uint64_t index)
{
    if (family > 0xff || index >= max_switch_index) throw std::invalid_argument("switch index too large for GUID scheme");
    return Guid(switch_guid_base | (static_cast<std::uint64_t>(family) << 24) | index);
}

Guid host_guid(std::uint64_t index)
{
    if (index >= max_host_index) throw std::invalid_argument("host index too large for GUID scheme");
    return Guid(host_guid_base | (index << 8));
}

std::string numbered(std::string_view prefix, std::uint64_t index)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "-%04llu", static_cast<unsigned long long>(index));
    return std::string(prefix) + buf;
}

NodeId add_host(Fabric& f, std::uint64_t index, std::uint8_t ports)
{
    Guid g = host_guid(index);
    NodeId id = f.add_node(NodeType::ca, g, ports, numbered("host", index));
    for (std::uint8_t p = 1; p <= ports; ++p) f.set_port_guid({id, PortNum(p)}, Guid(g.value() + p));
    return id;
}

void finish_ports(Fabric& f)
{
    for (NodeId id : f.node_ids())
        for (Port& p : f.node(id).ports) {
            p.known = true;
            if (p.remote) {
                p.link_width_active = 2; // 4x
                p.link_speed_active = 1; // SDR
            }
        }
}

void clear_link_rate(Port& p)
{
    p.link_width_active = 0;
    p.link_speed_active = 0;
    p.link_speed_ext_active = 0;
}

std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n)
{
    // Largest multiple of n that fits; draws at or above it are retried.
    std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    std::uint64_t x;
    do x = rng();
    while (x >= limit);
    return x % n;
}

} // namespace ibsm::topology::gen
