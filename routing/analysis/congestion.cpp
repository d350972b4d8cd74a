#include "routing/analysis/congestion.h"

#include <algorithm>

namespace ibsm::routing::analysis {

PathTable::PathTable(const Network& net)
    : net_(&net), nsw_(net.switch_count()), row_of_(net.endpoints().size(), -1), port_offset_(net.switch_count())
{
    std::int32_t rows = 0;
    for (std::size_t e = 0; e < net.endpoints().size(); ++e)
        if (!net.endpoints()[e].is_switch) row_of_[e] = rows++;
    out_port_.assign(static_cast<std::size_t>(rows) * nsw_, no_route);
    std::size_t total = 0;
    for (std::size_t s = 0; s < nsw_; ++s) {
        port_offset_[s] = total;
        total += net.switch_ports(static_cast<std::int32_t>(s)) + 1u;
    }
    chan_.assign(total, -1);
    for (std::size_t s = 0; s < nsw_; ++s)
        for (unsigned p = 0; p <= net.switch_ports(static_cast<std::int32_t>(s)); ++p)
            chan_[port_offset_[s] + p] = net.channel_from(static_cast<std::int32_t>(s), p);
    head_switch_.reserve(net.channels().size());
    for (const Channel& c : net.channels()) head_switch_.push_back(c.head_switch);
}

void PathTable::add(const DestinationTree& t)
{
    if (t.owner < 0) return;
    const Endpoint& dst = net_->endpoint(t.owner);
    if (dst.is_switch || dst.base.value() != t.lid) return;
    std::uint8_t* row = &out_port_[static_cast<std::size_t>(row_of_[static_cast<std::size_t>(t.owner)]) * nsw_];
    for (std::int32_t s : t.order) {
        std::int32_t c = t.next[static_cast<std::size_t>(s)];
        if (c >= 0) row[s] = net_->channel(c).tail.port.value();
    }
}

void PathTable::use_pair_routes(const PairRoutes& routes)
{
    pairs_ = &routes;
    pair_src_.assign(net_->endpoints().size(), -1);
    pair_dst_.assign(net_->endpoints().size(), -1);
    for (std::size_t s = 0; s < routes.source_count(); ++s)
        if (routes.source(s) >= 0) pair_src_[static_cast<std::size_t>(routes.source(s))] = static_cast<std::int32_t>(s);
    for (std::size_t d = 0; d < routes.destination_count(); ++d)
        if (routes.destination(d) >= 0)
            pair_dst_[static_cast<std::size_t>(routes.destination(d))] = static_cast<std::int32_t>(d);
}

bool PathTable::walk(std::int32_t src, std::int32_t dst, std::vector<std::int32_t>& path) const
{
    if (pairs_) {
        const std::int32_t si = pair_src_[static_cast<std::size_t>(src)], di = pair_dst_[static_cast<std::size_t>(dst)];
        if (si < 0 || di < 0) return false;
        const auto dlid = pairs_->dlids().dlid(static_cast<std::size_t>(si), static_cast<std::size_t>(di));
        std::int32_t s = net_->endpoint(src).attach_switch;
        if (!dlid || s < 0) return false;
        for (std::size_t n = 0; n <= nsw_; ++n) {
            const Lft* lft = net_->lft(s);
            const std::uint8_t p = lft ? lft->at(*dlid) : no_route;
            if (p == no_route || p == 0 || p > net_->switch_ports(s)) return false;
            const std::int32_t c = chan_[port_offset_[static_cast<std::size_t>(s)] + p];
            if (c < 0) return false;
            const std::int32_t h = head_switch_[static_cast<std::size_t>(c)];
            if (h < 0) return net_->channel(c).head_endpoint == dst;
            path.push_back(c);
            s = h;
        }
        return false;
    }
    std::int32_t s = net_->endpoint(src).attach_switch;
    std::int32_t r = row_of_[static_cast<std::size_t>(dst)];
    if (s < 0 || r < 0) return false;
    const std::uint8_t* row = &out_port_[static_cast<std::size_t>(r) * nsw_];
    for (;;) {
        std::uint8_t p = row[s];
        if (p == no_route) return false;
        std::int32_t c = chan_[port_offset_[static_cast<std::size_t>(s)] + p];
        std::int32_t h = head_switch_[static_cast<std::size_t>(c)];
        if (h < 0) return true; // the destination's own cable
        path.push_back(c);
        s = h;
    }
}

FlowOutcome FlowEvaluator::evaluate(std::span<const Flow> flows, FlowScratch& sc) const
{
    constexpr std::uint32_t no_path = 0xFFFFFFFFu;
    if (sc.tau.size() != net_->channels().size()) sc.tau.assign(net_->channels().size(), 0);
    sc.path.clear();
    sc.path_end.clear();
    FlowOutcome out;
    for (const Flow& f : flows) {
        std::size_t before = sc.path.size();
        if (paths_->walk(f.src, f.dst, sc.path)) {
            sc.path_end.push_back(static_cast<std::uint32_t>(sc.path.size()));
        } else {
            sc.path.resize(before);
            sc.path_end.push_back(no_path);
        }
    }
    for (std::int32_t c : sc.path) ++sc.tau[static_cast<std::size_t>(c)];
    std::uint32_t begin = 0;
    for (std::uint32_t end : sc.path_end) {
        if (end == no_path) {
            ++out.unroutable;
            continue;
        }
        std::uint32_t worst = 1; // its own CA cables carry it alone
        for (std::uint32_t k = begin; k < end; ++k) worst = std::max(worst, sc.tau[static_cast<std::size_t>(sc.path[k])]);
        out.bandwidth_sum += 1.0 / static_cast<double>(worst);
        begin = end;
    }
    for (std::int32_t c : sc.path) sc.tau[static_cast<std::size_t>(c)] = 0;
    return out;
}

} // namespace ibsm::routing::analysis
