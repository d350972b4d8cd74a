// A Nue layer with its escape paths reserved (see header).
#include "routing/nue/nue_layer.h"

#include "routing/nue/layer_split.h"

namespace ibsm::routing::nue {

namespace {

std::vector<char> destination_switches(const SwitchGraph& g, const std::vector<std::uint32_t>& lids)
{
    std::vector<char> is(g.size(), 0);
    for (auto lid : lids)
        if (g.lid_target[lid] >= 0) is[static_cast<std::size_t>(g.lid_target[lid])] = 1;
    return is;
}

} // namespace

NueLayer::NueLayer(const ChannelTurns& turns, const std::vector<std::uint32_t>& lids,
                   const std::vector<std::uint64_t>& weight)
    : NueLayer(turns, destination_switches(turns.g, lids), weight)
{
}

NueLayer::NueLayer(const ChannelTurns& turns, const std::vector<char>& is_destination,
                   const std::vector<std::uint64_t>& weight)
    : deps(turns), escape(turns, escape_roots(turns.g, is_destination), weight)
{
    escape.reserve(deps, is_destination);
}

NueLayer::NueLayer(const ChannelTurns& turns, const std::vector<std::uint32_t>& lids,
                   const std::vector<std::uint32_t>& route_via)
    : deps(turns), escape(turns, route_via)
{
    escape.reserve_lids(deps, lids);
}

std::vector<std::uint8_t> final_ports(const SwitchGraph& g)
{
    std::vector<std::uint8_t> port(g.lid_limit, 0);
    for (const auto& d : g.destinations)
        for (std::uint32_t k = 0; k < d.count; ++k) port[d.base + k] = d.final_port;
    return port;
}

std::uint64_t initial_weight(const SwitchGraph& g)
{
    std::uint64_t lids = 0;
    for (const auto& d : g.destinations) lids += d.count;
    return lids * lids + 1;
}

} // namespace ibsm::routing::nue
