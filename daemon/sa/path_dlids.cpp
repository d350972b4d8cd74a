#include "daemon/sa/path_dlids.h"

#include <algorithm>

namespace ibsm::daemon {

topology::PortRef endport_of(const SubnetSnapshot& s, topology::PortRef p)
{
    const auto& n = s.found.fabric.node(p.node);
    return n.is_switch() ? topology::PortRef{p.node, PortNum(0)} : p;
}

namespace {

// The pair's own DLID when the routing chose a path per pair and covers this
// pair: `applies` false when it does not (destination-based routing, or a
// destination it leaves to the destination-based tables, e.g. a switch);
// `applies` with no `dlid` when the pair has no path. (A plain struct: GCC 12
// at -O3 takes a nested std::optional's empty payload for uninitialised.)
struct PairDlid {
    bool applies = false;
    std::optional<Lid> dlid;
};

PairDlid pair_dlid(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst)
{
    // A port's path to itself never leaves it: its base LID, as without per-pair routing.
    if (!s.tables || !s.tables->pair_dlids || src == dst) return {};
    const auto& pd = *s.tables->pair_dlids;
    const auto d = pd.destination_index(dst);
    if (!d) return {};
    const auto si = pd.source_index(src);
    if (!si) return PairDlid{true, std::nullopt};
    return PairDlid{true, pd.dlid(*si, *d)};
}

} // namespace

unsigned path_count(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst)
{
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    if (!a || !b) return 0;
    if (const auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst)); own.applies) return own.dlid ? 1 : 0;
    return std::max<unsigned>(1, b->count());
}

std::optional<Lid> dlid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    if (const auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst)); own.applies) return own.dlid;
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    return Lid(static_cast<std::uint16_t>(b->base.value() + index % b->count()));
}

std::optional<Lid> slid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    // Per-pair routing: the LFTs realise the path by its DLID alone, so any
    // SLID of the source's block works; its base is the one hosts expect.
    if (pair_dlid(s, endport_of(s, src), endport_of(s, dst)).applies) return a->base;
    return Lid(static_cast<std::uint16_t>(a->base.value() + index % a->count()));
}

} // namespace ibsm::daemon
