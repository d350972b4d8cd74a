#include "daemon/core/vl_tables_held.h"

#include <algorithm>
#include <tuple>

namespace ibsm::daemon {

namespace {
auto key(const VlTablesHeld::Sl2Vl& e) { return std::tuple(e.node, e.port, e.mod); }
auto key(const VlTablesHeld::VlArb& e) { return std::tuple(e.node, e.port, e.block); }
} // namespace

void VlTablesHeld::sort()
{
    std::sort(sl2vl.begin(), sl2vl.end(), [](const auto& a, const auto& b) { return key(a) < key(b); });
    std::sort(vlarb.begin(), vlarb.end(), [](const auto& a, const auto& b) { return key(a) < key(b); });
}

std::optional<mad::Sl2VlTable> VlTablesHeld::sl2vl_of(Guid node, bool is_switch, std::uint8_t in,
                                                       std::uint8_t out) const
{
    auto find = [&](std::uint8_t port, std::uint32_t mod) -> const Sl2Vl* {
        const auto k = std::tuple(node, port, mod);
        auto it = std::lower_bound(sl2vl.begin(), sl2vl.end(), k,
                                   [](const Sl2Vl& e, const auto& want) { return key(e) < want; });
        return it != sl2vl.end() && key(*it) == k ? &*it : nullptr;
    };
    if (!is_switch) {
        if (const auto* e = find(out, 0)) return e->table;
        return std::nullopt;
    }
    // The pair's own Set, else one that covered every output from input
    // 0, else one for every pair (IBA 14.2.5.8, the modifier's bits 16-17).
    using mad::sl2vl_all_input_ports;
    using mad::sl2vl_all_output_ports;
    if (const auto* e = find(0, mad::sl2vl_attr_mod(PortNum(in), PortNum(out)))) return e->table;
    if (in == 0)
        if (const auto* e = find(0, sl2vl_all_output_ports)) return e->table;
    if (const auto* e = find(0, sl2vl_all_input_ports | sl2vl_all_output_ports)) return e->table;
    return std::nullopt;
}

std::span<const VlTablesHeld::VlArb> VlTablesHeld::vlarb_of(Guid node, std::uint8_t port) const
{
    auto lo = std::lower_bound(vlarb.begin(), vlarb.end(), std::tuple(node, port, std::uint8_t{0}),
                               [](const VlArb& e, const auto& want) { return key(e) < want; });
    auto hi = lo;
    while (hi != vlarb.end() && hi->node == node && hi->port == port) ++hi;
    return {lo, hi};
}

} // namespace ibsm::daemon
