#include "routing/analysis/edge_forwarding.h"

#include <algorithm>

namespace ibsm::routing::analysis {

EdgeForwardingCounter::EdgeForwardingCounter(const Network& net, std::size_t examples_per_channel)
    : net_(&net), load_(net.channels().size(), 0), delivered_at_(net.switch_count(), 0),
      self_(net.endpoints().size(), 0), ca_at_(net.switch_count(), 0), through_(net.switch_count(), 0),
      examples_(net.channels().size(), examples_per_channel)
{
    for (const Endpoint& e : net.endpoints())
        if (!e.is_switch && e.attach_switch >= 0) ++ca_at_[static_cast<std::size_t>(e.attach_switch)];
    if (examples_per_channel == 0) return;
    const std::size_t switches = net.switch_count();
    ca_first_.assign(switches + 1, 0);
    for (std::size_t s = 0; s < switches; ++s) ca_first_[s + 1] = ca_first_[s] + ca_at_[s];
    ca_list_.resize(ca_first_[switches]);
    std::vector<std::uint32_t> fill(ca_first_.begin(), ca_first_.end() - 1);
    for (std::size_t e = 0; e < net.endpoints().size(); ++e) {
        const Endpoint& ep = net.endpoints()[e];
        if (!ep.is_switch && ep.attach_switch >= 0)
            ca_list_[fill[static_cast<std::size_t>(ep.attach_switch)]++] = static_cast<std::int32_t>(e);
    }
    sample_count_.assign(switches, 0);
    samples_.resize(switches * (examples_per_channel + 1));
    rep_.assign(switches * examples_per_channel, -1);
    rep_count_.assign(switches, 0);
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
    if (examples_.per_channel()) add_examples(t);
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

void EdgeForwardingCounter::add_examples(const DestinationTree& t)
{
    const Network& net = *net_;
    const std::size_t per = examples_.per_channel(), keep = per + 1;
    for (std::int32_t s : t.order) {
        auto si = static_cast<std::size_t>(s);
        if (sample_count_[si] < keep) samples_[si * keep + sample_count_[si]++] = PairExample{t.lid, 0, t.owner};
        // The switch's own CAs first, starting at a place rotated by LID so
        // the examples of one channel come from different sources; never
        // the destination.
        rep_count_[si] = 0;
        const std::uint32_t first = ca_first_[si], n = ca_first_[si + 1] - first;
        for (std::uint32_t i = 0; i < n && rep_count_[si] < per; ++i) {
            const std::int32_t ca = ca_list_[first + (t.lid + i) % n];
            if (ca != t.owner) rep_[si * per + rep_count_[si]++] = ca;
        }
    }
    // Farthest first, so a switch's representatives are complete (its own,
    // then those flowing in) before it forwards them.
    for (std::int32_t s : t.order) {
        auto si = static_cast<std::size_t>(s);
        const std::int32_t c = t.next[si];
        const std::uint32_t have = rep_count_[si];
        if (c < 0 || have == 0) continue;
        for (std::uint32_t k = 0; k < have && !examples_.full(c); ++k) examples_.add(c, rep_[si * per + k], t.lid);
        const std::int32_t nxt = net.channel(c).head_switch;
        if (nxt < 0) continue;
        auto ni = static_cast<std::size_t>(nxt);
        for (std::uint32_t k = 0; k < have && rep_count_[ni] < per; ++k) rep_[ni * per + rep_count_[ni]++] = rep_[si * per + k];
    }
}

void EdgeForwardingCounter::merge(const EdgeForwardingCounter& o)
{
    for (std::size_t i = 0; i < load_.size(); ++i) load_[i] += o.load_[i];
    for (std::size_t i = 0; i < delivered_at_.size(); ++i) delivered_at_[i] += o.delivered_at_[i];
    for (std::size_t i = 0; i < self_.size(); ++i) self_[i] += o.self_[i];
    routes_ += o.routes_;
    examples_.merge(o.examples_);
    const std::size_t keep = examples_.per_channel() + 1;
    for (std::size_t s = 0; s < sample_count_.size() && s < o.sample_count_.size(); ++s)
        merge_first(samples_, s * keep, sample_count_[s], o.samples_, s * keep, o.sample_count_[s], keep);
}

EdgeForwarding EdgeForwardingCounter::result() const
{
    return summarise_loads(*net_, loads(), routes_);
}

ChannelExamples EdgeForwardingCounter::examples() const
{
    const Network& net = *net_;
    ChannelExamples out = examples_;
    const std::size_t keep = out.per_channel() + 1;
    if (keep == 1) return out;
    // A CA's cable toward its switch carries its routes to every destination
    // the switch delivers to.
    for (std::size_t e = 0; e < net.endpoints().size(); ++e) {
        const Endpoint& ep = net.endpoints()[e];
        std::int32_t inj = net.injection_channel(static_cast<std::int32_t>(e));
        if (ep.is_switch || ep.attach_switch < 0 || inj < 0) continue;
        auto si = static_cast<std::size_t>(ep.attach_switch);
        for (std::uint32_t k = 0; k < sample_count_[si]; ++k) {
            const PairExample& d = samples_[si * keep + k];
            if (d.source != static_cast<std::int32_t>(e)) out.add(inj, static_cast<std::int32_t>(e), d.lid);
        }
    }
    return out;
}

std::vector<std::uint64_t> EdgeForwardingCounter::loads() const
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
    return load;
}

EdgeForwarding summarise_loads(const Network& net, const std::vector<std::uint64_t>& load, std::uint64_t routes)
{
    EdgeForwarding out;
    out.routes = routes;
    // Among equally loaded channels the busiest is the one leaving the
    // lowest (GUID, port): the same link whatever order the fabric's nodes
    // were numbered in (the daemon's snapshot and a net file read back).
    auto key = [&](std::int32_t c) {
        const auto& t = net.channel(c).tail;
        return std::pair{net.fabric().node(t.node).guid, t.port.value()};
    };
    auto busier = [&](std::uint64_t l, std::int32_t c, std::uint64_t max, std::int32_t at) {
        return at < 0 || l > max || (l == max && key(c) < key(at));
    };
    double sum_all = 0, sum_sw = 0;
    for (std::size_t c = 0; c < load.size(); ++c) {
        const Channel& ch = net.channel(static_cast<std::int32_t>(c));
        auto ci = static_cast<std::int32_t>(c);
        ++out.all.channels;
        sum_all += static_cast<double>(load[c]);
        if (busier(load[c], ci, out.all.max, out.all.max_channel)) {
            out.all.max = load[c];
            out.all.max_channel = ci;
        }
        if (ch.tail_switch >= 0 && ch.head_switch >= 0) {
            ++out.switch_links.channels;
            sum_sw += static_cast<double>(load[c]);
            if (busier(load[c], ci, out.switch_links.max, out.switch_links.max_channel)) {
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
