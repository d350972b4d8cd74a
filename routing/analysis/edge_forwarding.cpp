#include "routing/analysis/edge_forwarding.h"

#include <algorithm>

namespace ibsm::routing::analysis {

EdgeForwardingCounter::EdgeForwardingCounter(const Network& net)
    : net_(&net), load_(net.channels().size(), 0), delivered_at_(net.switch_count(), 0),
      self_(net.endpoints().size(), 0), ca_at_(net.switch_count(), 0), through_(net.switch_count(), 0)
{
    for (const Endpoint& e : net.endpoints())
        if (!e.is_switch && e.attach_switch >= 0) ++ca_at_[static_cast<std::size_t>(e.attach_switch)];
}

void EdgeForwardingCounter::add(const DestinationTree& t)
{
    if (t.owner < 0) return;
    const Network& net = *net_;
    const Endpoint& dst = net.endpoint(t.owner);
    if (dst.is_switch || dst.base.value() != t.lid) return;

    for (std::int32_t s : t.order) {
        auto si = static_cast<std::size_t>(s);
        std::uint64_t n = ca_at_[si];
        if (dst.attach_switch == s) {
            --n;
            ++self_[static_cast<std::size_t>(t.owner)];
        }
        through_[si] = n;
        ++delivered_at_[si];
        routes_ += n;
    }
    // Farthest first: every switch's inflow is complete when it is reached.
    for (std::int32_t s : t.order) {
        auto si = static_cast<std::size_t>(s);
        std::int32_t c = t.next[si];
        if (c < 0) continue;
        load_[static_cast<std::size_t>(c)] += through_[si];
        std::int32_t nxt = net.channel(c).head_switch;
        if (nxt >= 0) through_[static_cast<std::size_t>(nxt)] += through_[si];
    }
}

void EdgeForwardingCounter::merge(const EdgeForwardingCounter& o)
{
    for (std::size_t i = 0; i < load_.size(); ++i) load_[i] += o.load_[i];
    for (std::size_t i = 0; i < delivered_at_.size(); ++i) delivered_at_[i] += o.delivered_at_[i];
    for (std::size_t i = 0; i < self_.size(); ++i) self_[i] += o.self_[i];
    routes_ += o.routes_;
}

EdgeForwarding EdgeForwardingCounter::result() const
{
    const Network& net = *net_;
    std::vector<std::uint64_t> load = load_;
    // A CA's cable toward its switch carries one route per destination that
    // its switch delivers to, other than itself.
    for (std::size_t e = 0; e < net.endpoints().size(); ++e) {
        const Endpoint& ep = net.endpoints()[e];
        std::int32_t inj = net.injection_channel(static_cast<std::int32_t>(e));
        if (ep.is_switch || ep.attach_switch < 0 || inj < 0) continue;
        load[static_cast<std::size_t>(inj)] += delivered_at_[static_cast<std::size_t>(ep.attach_switch)] - self_[e];
    }
    return summarise_loads(net, load, routes_);
}

EdgeForwarding summarise_loads(const Network& net, const std::vector<std::uint64_t>& load, std::uint64_t routes)
{
    EdgeForwarding out;
    out.routes = routes;
    double sum_all = 0, sum_sw = 0;
    for (std::size_t c = 0; c < load.size(); ++c) {
        const Channel& ch = net.channel(static_cast<std::int32_t>(c));
        auto ci = static_cast<std::int32_t>(c);
        ++out.all.channels;
        sum_all += static_cast<double>(load[c]);
        if (load[c] > out.all.max || out.all.max_channel < 0) {
            out.all.max = load[c];
            out.all.max_channel = ci;
        }
        if (ch.tail_switch >= 0 && ch.head_switch >= 0) {
            ++out.switch_links.channels;
            sum_sw += static_cast<double>(load[c]);
            if (load[c] > out.switch_links.max || out.switch_links.max_channel < 0) {
                out.switch_links.max = load[c];
                out.switch_links.max_channel = ci;
            }
        }
    }
    if (out.all.channels) out.all.mean = sum_all / static_cast<double>(out.all.channels);
    if (out.switch_links.channels) out.switch_links.mean = sum_sw / static_cast<double>(out.switch_links.channels);
    return out;
}

} // namespace ibsm::routing::analysis
