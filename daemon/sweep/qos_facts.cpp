#include "daemon/sweep/qos_facts.h"

#include "lidassign/base_lids.h"

namespace ibsm::daemon {

std::vector<qos::PortFacts> qos_port_facts(const DiscoveryResult& found, const partition::Partitions* partitions)
{
    const auto& f = found.fabric;
    std::vector<qos::PortFacts> out;
    for (const auto& ref : lidassign::addressable_ports(f)) {
        const auto& node = f.node(ref.node);
        qos::PortFacts p;
        p.port_guid = f.port(ref).guid;
        p.node_guid = node.guid;
        p.node_desc = node.description;
        p.is_switch = node.is_switch();
        if (partitions)
            for (std::uint16_t key : partitions->keys_of(p.port_guid)) p.pkeys.push_back(key & 0x7fff);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace ibsm::daemon
