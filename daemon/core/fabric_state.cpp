#include "daemon/core/fabric_state.h"

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

} // namespace ibsm::daemon
