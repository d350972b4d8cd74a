// Per-pair route walks (see header).
#include "routing/analysis/pair_routes.h"

#include <bit>
#include <map>

namespace ibsm::routing::analysis {

PairRoutes::PairRoutes(const Network& net, const PairDlids& dlids) : net_(&net), dlids_(&dlids)
{
    std::map<topology::PortRef, std::int32_t> endpoint;
    for (std::size_t e = 0; e < net.endpoints().size(); ++e)
        endpoint.emplace(net.endpoints()[e].port, static_cast<std::int32_t>(e));
    auto find = [&](topology::PortRef p) {
        auto it = endpoint.find(p);
        return it == endpoint.end() ? -1 : it->second;
    };
    for (auto p : dlids.sources) src_.push_back(find(p));
    for (const auto& d : dlids.destinations) dst_.push_back(find(d.port));
    for (std::size_t s = 0; s < src_.size(); ++s)
        for (std::size_t d = 0; d < dst_.size(); ++d)
            if ((src_[s] < 0 || dst_[d] < 0) && dlids.offset_of(s, d) != PairDlids::no_path) ++missing_;
}

Reach PairRoutes::walk(std::int32_t src, std::uint32_t dlid, std::vector<std::int32_t>& path) const
{
    const Network& net = *net_;
    path.clear();
    const Endpoint& e = net.endpoint(src);
    std::int32_t sw = e.attach_switch;
    if (sw < 0) return Reach::unreachable;
    const std::int32_t owner = net.lid_owner(dlid);
    for (std::size_t n = 0; n <= net.switch_count(); ++n) {
        const Lft* lft = net.lft(sw);
        const std::uint8_t p = lft ? lft->at(Lid(static_cast<std::uint16_t>(dlid))) : no_route;
        if (p == 0) return net.switch_endpoint(sw) == owner && owner >= 0 ? Reach::delivered : Reach::unreachable;
        const std::int32_t c = p == no_route ? -1 : net.channel_from(sw, p);
        if (c < 0) return Reach::unreachable;
        path.push_back(c);
        const Channel& ch = net.channel(c);
        if (ch.head_switch < 0) return ch.head_endpoint == owner && owner >= 0 ? Reach::delivered : Reach::unreachable;
        sw = ch.head_switch;
    }
    return Reach::loop;
}

void PairRoutes::add_turns(const std::vector<std::int32_t>& path, bool from_switch, CdgBuilder& cdg) const
{
    const Network& net = *net_;
    // Per-pair paths use SL 0: its VLs (VL 0 without a QoS SL2VL).
    const std::uint16_t vls = cdg.vls_of(0);
    for (std::uint16_t m = vls; m; m &= static_cast<std::uint16_t>(m - 1))
        cdg.mark_used(static_cast<unsigned>(std::countr_zero(m)), from_switch);
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        const Channel& in = net.channel(path[i]);
        const Channel& out = net.channel(path[i + 1]);
        if (in.head_switch < 0 || out.head_switch < 0) continue;
        for (std::uint16_t m = vls; m; m &= static_cast<std::uint16_t>(m - 1))
            cdg.add_turn(in.head_switch, in.head.port.value(), out.tail.port.value(),
                         static_cast<unsigned>(std::countr_zero(m)), from_switch);
    }
}

} // namespace ibsm::routing::analysis
