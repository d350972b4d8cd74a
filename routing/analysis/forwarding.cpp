#include "routing/analysis/forwarding.h"

#include <algorithm>

namespace ibsm::routing::analysis {

void LftBlock::load(const Network& net, std::uint32_t first, std::uint32_t count)
{
    first_ = first;
    count_ = count;
    switches_ = net.switch_count();
    ports_.assign(static_cast<std::size_t>(count) * switches_, no_route);
    for (std::size_t s = 0; s < switches_; ++s) {
        const Lft* lft = net.lft(static_cast<std::int32_t>(s));
        if (!lft) continue;
        const std::size_t size = lft->port.size();
        for (std::uint32_t k = 0; k < count && first + k < size; ++k) ports_[k * switches_ + s] = lft->port[first + k];
    }
}

void trace_destination(const Network& net, std::uint32_t lid, DestinationTree& out)
{
    std::vector<std::uint8_t> ports(net.switch_count());
    for (std::size_t s = 0; s < ports.size(); ++s) {
        const Lft* lft = net.lft(static_cast<std::int32_t>(s));
        ports[s] = lft ? lft->at(Lid(static_cast<std::uint16_t>(lid))) : no_route;
    }
    trace_destination(net, lid, ports.data(), out);
}

void trace_destination(const Network& net, std::uint32_t lid, const std::uint8_t* ports, DestinationTree& out)
{
    const auto nsw = net.switch_count();
    out.lid = lid;
    out.owner = net.lid_owner(lid);
    out.status.assign(nsw, Reach::unreachable);
    out.next.assign(nsw, -1);
    out.hops.assign(nsw, 0);
    out.order.clear();

    // 0 = not visited, 1 = on the current walk, 2 = resolved.
    auto& state = out.scratch_state;
    auto& walk = out.scratch_walk;
    state.assign(nsw, 0);
    std::uint16_t max_hops = 0;

    for (std::size_t start = 0; start < nsw; ++start) {
        if (state[start] == 2) continue;
        walk.clear();
        auto cur = static_cast<std::int32_t>(start);
        Reach outcome = Reach::unreachable;
        std::uint16_t hops = 0;
        bool terminal_at_cur = false; // outcome decided at `cur` itself (pushed on the walk)
        for (;;) {
            auto ci = static_cast<std::size_t>(cur);
            if (state[ci] == 2) {
                outcome = out.status[ci];
                hops = out.hops[ci];
                break;
            }
            if (state[ci] == 1) {
                outcome = Reach::loop;
                break;
            }
            state[ci] = 1;
            walk.push_back(cur);
            unsigned port = ports[ci];
            terminal_at_cur = true;
            if (port == 0) {
                bool own = out.owner >= 0 && out.owner == net.switch_endpoint(cur);
                outcome = own ? Reach::delivered : Reach::unreachable;
                hops = 0;
                break;
            }
            std::int32_t ch = port == no_route ? -1 : net.channel_from(cur, port);
            if (ch < 0) {
                outcome = Reach::unreachable;
                break;
            }
            out.next[ci] = ch;
            const Channel& c = net.channel(ch);
            if (c.head_switch >= 0) {
                terminal_at_cur = false;
                cur = c.head_switch;
                continue;
            }
            bool own = out.owner >= 0 && c.head_endpoint == out.owner;
            outcome = own ? Reach::delivered : Reach::unreachable;
            hops = 1;
            break;
        }
        // Copy the outcome back along the walk, nearest the end first.
        for (std::size_t k = walk.size(); k-- > 0;) {
            auto s = static_cast<std::size_t>(walk[k]);
            // A terminal outcome (and its hops) was decided at the last switch
            // walked; every earlier switch is one link farther.
            bool decided_here = k + 1 == walk.size() && terminal_at_cur;
            if (!decided_here && outcome == Reach::delivered) ++hops;
            out.status[s] = outcome;
            if (outcome == Reach::delivered) {
                out.hops[s] = hops;
                max_hops = std::max(max_hops, hops);
            }
            state[s] = 2;
        }
    }

    // Counting sort of delivered switches by hops, largest first.
    std::vector<std::uint32_t> bucket(static_cast<std::size_t>(max_hops) + 2, 0);
    for (std::size_t s = 0; s < nsw; ++s)
        if (out.status[s] == Reach::delivered) ++bucket[max_hops - out.hops[s] + 1u];
    for (std::size_t b = 1; b < bucket.size(); ++b) bucket[b] += bucket[b - 1];
    out.order.resize(bucket.back());
    for (std::size_t s = 0; s < nsw; ++s)
        if (out.status[s] == Reach::delivered)
            out.order[bucket[max_hops - out.hops[s]]++] = static_cast<std::int32_t>(s);
}

} // namespace ibsm::routing::analysis
