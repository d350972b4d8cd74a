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
    // Transposed in blocks of LIDs, so the columns read stay in cache.
    std::vector<std::uint8_t> by_switch(S * L);
    constexpr std::uint32_t block = 64;
    for (std::uint32_t first = 0; first < L; first += block) {
        const std::uint32_t last = std::min(L, first + block);
        for (std::size_t s = 0; s < S; ++s)
            for (std::uint32_t lid = first; lid < last; ++lid)
                by_switch[s * L + lid] = layers[static_cast<std::size_t>(lid) * S + s];
    }

    // (row + lid) % split[l] for every layer, stepped along the row instead
    // of divided per entry (rows x LIDs entries: 176 million at 11 664 hosts).
    std::vector<unsigned> turn(split.size(), 0);
    std::vector<std::size_t> stepped; // layers with more than one VL
    for (std::size_t l = 0; l < split.size(); ++l)
        if (split[l] > 1) stepped.push_back(l);
    for (std::size_t row = 0; row < sources.size(); ++row) {
        if (sources[row].second < 0) continue;
        const std::uint8_t* layer = &by_switch[static_cast<std::size_t>(sources[row].second) * L];
        for (const auto l : stepped) turn[l] = static_cast<unsigned>(row % split[l]);
        for (std::uint32_t lid = 0; lid < L; ++lid) {
            if (g.lid_target[lid] >= 0) {
                const unsigned l = layer[lid];
                const unsigned vl = first_vl[l] + turn[l];
                if (vl) table.set(row, lid, static_cast<std::uint8_t>(vl));
            }
            for (const auto l : stepped)
                if (++turn[l] == split[l]) turn[l] = 0;
        }
    }
    return table;
}

} // namespace ibsm::routing
