// Service levels from virtual layers (see header).
#include "routing/layer_sls.h"

#include <algorithm>

namespace ibsm::routing {

SlTable layer_service_levels(const SwitchGraph& g, const std::vector<std::uint8_t>& layers,
                             const std::vector<unsigned>& split)
{
    std::vector<unsigned> first_vl(split.size(), 0);
    for (std::size_t l = 1; l < split.size(); ++l) first_vl[l] = first_vl[l - 1] + split[l - 1];

    std::vector<std::pair<topology::PortRef, std::int32_t>> sources;
    for (const auto& d : g.destinations) sources.emplace_back(d.port, d.target);
    std::sort(sources.begin(), sources.end());
    std::vector<topology::PortRef> ports;
    for (const auto& s : sources) ports.push_back(s.first);
    SlTable table(ports, g.lid_limit);

    // Layers by source switch, so each row reads one contiguous run.
    const std::size_t S = g.size();
    const std::uint32_t L = g.lid_limit;
    std::vector<std::uint8_t> by_switch(S * L);
    for (std::uint32_t lid = 0; lid < L; ++lid)
        for (std::size_t s = 0; s < S; ++s) by_switch[s * L + lid] = layers[static_cast<std::size_t>(lid) * S + s];

    for (std::size_t row = 0; row < sources.size(); ++row) {
        if (sources[row].second < 0) continue;
        const std::uint8_t* layer = &by_switch[static_cast<std::size_t>(sources[row].second) * L];
        for (std::uint32_t lid = 0; lid < L; ++lid) {
            if (g.lid_target[lid] < 0) continue;
            const unsigned l = layer[lid];
            const unsigned vl = first_vl[l] + (split[l] > 1 ? static_cast<unsigned>((row + lid) % split[l]) : 0u);
            if (vl) table.set(row, lid, static_cast<std::uint8_t>(vl));
        }
    }
    return table;
}

} // namespace ibsm::routing
