#include "daemon/sa/path_dlids.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace ibsm::daemon {

topology::PortRef endport_of(const SubnetSnapshot& s, topology::PortRef p)
{
    const auto& n = s.found.fabric.node(p.node);
    return n.is_switch() ? topology::PortRef{p.node, PortNum(0)} : p;
}

namespace {

// Each endport's LIDs, dense by (node, port): LidMap::lids_of is a map
// lookup, and a PathRecord asks it a dozen times (path_count, slid_for and
// dlid_for each ask both ends); at 27 648 hosts those lookups were 6 % of
// the daemon's time under a PathRecord load. Rebuilt when a query names
// another snapshot (the SA runs on the loop thread, one snapshot at a
// time); like the SA's LFT index it holds the snapshot's tables, so no later
// snapshot can reuse the address while this is cached. Without tables
// (nothing routed, no paths to answer) the map is asked directly.
struct LidIndex {
    const SubnetSnapshot* snap = nullptr;
    std::uint64_t generation = 0;
    std::shared_ptr<const routing::RoutingTables> tables;
    std::vector<std::uint32_t> first; // per node: the slot of its port 0 in `lids`
    std::vector<lidassign::PortLids> lids; // base LID 0: the port has none
};

const LidIndex* lid_index(const SubnetSnapshot& s)
{
    if (!s.tables) return nullptr;
    thread_local LidIndex ix;
    if (ix.snap == &s && ix.generation == s.generation && ix.tables == s.tables) return &ix;
    ix = LidIndex{&s, s.generation, s.tables, {}, {}};
    const auto& f = s.found.fabric;
    ix.first.resize(f.node_count() + 1);
    std::uint32_t slots = 0;
    for (std::uint32_t n = 0; n < f.node_count(); ++n) {
        ix.first[n] = slots;
        slots += static_cast<std::uint32_t>(f.node(topology::NodeId{n}).ports.size());
    }
    ix.first[f.node_count()] = slots;
    ix.lids.assign(slots, lidassign::PortLids{});
    for (const auto& [port, range] : s.lids.lids.entries())
        if (port.node.value < f.node_count() && ix.first[port.node.value] + port.port.value() < ix.first[port.node.value + 1])
            ix.lids[ix.first[port.node.value] + port.port.value()] = range;
    return &ix;
}

std::optional<lidassign::PortLids> lids_of(const SubnetSnapshot& s, topology::PortRef p)
{
    const LidIndex* ix = lid_index(s);
    if (!ix) return s.lids.lids.lids_of(p);
    const std::uint32_t slot = ix->first.at(p.node.value) + p.port.value();
    if (slot >= ix->first.at(p.node.value + 1) || ix->lids[slot].base.value() == 0) return std::nullopt;
    return ix->lids[slot];
}

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
    const auto a = lids_of(s, endport_of(s, src));
    const auto b = lids_of(s, endport_of(s, dst));
    if (!a || !b) return 0;
    if (const auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst)); own.applies) return own.dlid ? 1 : 0;
    return std::max<unsigned>(1, b->count());
}

std::optional<Lid> dlid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    if (const auto own = pair_dlid(s, endport_of(s, src), endport_of(s, dst)); own.applies) return own.dlid;
    const auto b = lids_of(s, endport_of(s, dst));
    return Lid(static_cast<std::uint16_t>(b->base.value() + index % b->count()));
}

std::optional<Lid> slid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    const auto a = lids_of(s, endport_of(s, src));
    // Per-pair routing: the LFTs realise the path by its DLID alone, so any
    // SLID of the source's block works; its base is the one hosts expect.
    if (pair_dlid(s, endport_of(s, src), endport_of(s, dst)).applies) return a->base;
    return Lid(static_cast<std::uint16_t>(a->base.value() + index % a->count()));
}

} // namespace ibsm::daemon
