#include "whatif/lft_diff.h"

#include <algorithm>

namespace ibsm::whatif {

LftDiff diff_lfts(const topology::Fabric& before_fabric, const routing::RoutingTables& before,
                  const topology::Fabric& after_fabric, const routing::RoutingTables& after)
{
    LftDiff d;
    static const routing::Lft empty;
    for (const auto& [id, lft] : after.lfts) {
        const routing::Lft* old = &empty;
        if (auto b = before_fabric.find_node(after_fabric.node(id).guid))
            if (auto it = before.lfts.find(*b); it != before.lfts.end()) old = &it->second;
        const std::size_t size = std::max(lft.port.size(), old->port.size());
        std::uint64_t changed = 0;
        for (std::size_t block = 0; block * lft_block_lids < size; ++block) {
            const std::size_t end = std::min(size, (block + 1) * lft_block_lids);
            for (std::size_t lid = block * lft_block_lids; lid < end; ++lid) {
                const Lid l(static_cast<std::uint16_t>(lid));
                if (lft.at(l) != old->at(l)) {
                    ++changed;
                    break;
                }
            }
        }
        d.blocks += changed;
        if (changed) ++d.switches;
    }
    return d;
}

} // namespace ibsm::whatif
