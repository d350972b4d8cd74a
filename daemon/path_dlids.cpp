#include "daemon/path_dlids.h"

#include <algorithm>

namespace ibsm::daemon {

topology::PortRef endport_of(const SubnetSnapshot& s, topology::PortRef p)
{
    const auto& n = s.found.fabric.node(p.node);
    return n.is_switch() ? topology::PortRef{p.node, PortNum(0)} : p;
}

unsigned path_count(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst)
{
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    if (!a || !b) return 0;
    return std::max<unsigned>(1, b->count());
}

std::optional<Lid> dlid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    const auto b = s.lids.lids.lids_of(endport_of(s, dst));
    return Lid(static_cast<std::uint16_t>(b->base.value() + index % b->count()));
}

std::optional<Lid> slid_for(const SubnetSnapshot& s, topology::PortRef src, topology::PortRef dst, unsigned index)
{
    if (index >= path_count(s, src, dst)) return std::nullopt;
    const auto a = s.lids.lids.lids_of(endport_of(s, src));
    return Lid(static_cast<std::uint16_t>(a->base.value() + index % a->count()));
}

} // namespace ibsm::daemon
