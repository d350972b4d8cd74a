// Up*/Down*'s routes as Nue escape routes (see header).
#include "routing/nue/updn_escape.h"

#include "routing/updn.h"

#include <variant>

namespace ibsm::routing::nue {

std::vector<std::uint32_t> updn_escape_via(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                           const SwitchGraph& g, const Options& options)
{
    Options quiet = options;
    quiet.progress = {};
    auto result = UpdnEngine{}.compute(fabric, lids, quiet);
    const auto* tables = std::get_if<RoutingTables>(&result);
    if (!tables) return {};
    const std::size_t S = g.size();
    std::vector<std::uint32_t> via(static_cast<std::size_t>(g.lid_limit) * S, no_channel);
    for (std::size_t s = 0; s < S; ++s) {
        const auto it = tables->lfts.find(g.switches[s]);
        if (it == tables->lfts.end()) continue;
        const auto& port = it->second.port;
        for (std::uint32_t lid = 0; lid < g.lid_limit && lid < port.size(); ++lid) {
            if (g.lid_target[lid] < 0 || static_cast<std::size_t>(g.lid_target[lid]) == s) continue;
            if (port[lid] == no_route || port[lid] == 0) continue;
            via[static_cast<std::size_t>(lid) * S + s] = g.channel_from(s, port[lid]);
        }
    }
    return via;
}

} // namespace ibsm::routing::nue
