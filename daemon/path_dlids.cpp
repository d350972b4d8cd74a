#include "daemon/path_dlids.h"

#include <algorithm>

namespace ibsm::daemon {

topology::PortRef endport_of(const SubnetSnapshot& s, topology::PortRef p)
{
    const auto& n = s.found.fabric.node(p.node);
    return n.is_switch() ? topology::PortRef{p.node, PortNum(0)} : p;
}

namespace {

// The pair's own DLID when the routing chose a path per pair and covers this
// pair: `nullopt` when it does not apply (destination-based routing, or a
// destination it leaves to the destination-based tables, e.g. a switch);
// an empty inner optional when it applies but the pair has no path.
std::optional<std::optional<Lid>> pair_dlid(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst)
{
    // A port's path to itself never leaves it: its base LID, as without per-pair routing.
    if (!s.tables || !s.tables->pair_dlids || src == dst) return std::nullopt;
    const auto& pd = *s.tables->pair_dlids;
    const auto d = pd.destination_index(dst);
    if (!d) return std::nullopt;
    const auto si = pd.source_index(src);
    if (!si) return std::optional<Lid>{};
    return pd.dlid(*si, *d);
}

} // namespace

unsigned path_count(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst)
{
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    if (!a || !b) return 0;
    if (auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst))) return *own ? 1 : 0;
    return std::max<unsigned>(1, b->count());
}

std::optional<Lid> dlid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    if (auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst))) return *own;
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    return Lid(static_cast<std::uint16_t>(b->base.value() + index % b->count()));
}

std::optional<Lid> slid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    // Per-pair routing: the LFTs realise the path by its DLID alone, so any
    // SLID of the source's block works; its base is the one hosts expect.
    if (pair_dlid(s, endport_of(s, src), endport_of(s, dst))) return a->base;
    return Lid(static_cast<std::uint16_t>(a->base.value() + index % a->count()));
}

} // namespace ibsm::daemon
