#include "routing/analysis/forwarding.h"

#include <algorithm>
#include <array>
#include <bit>

namespace ibsm::routing::analysis {

namespace {

// A first hop's head when the route ends at that switch (head_ < 0).
constexpr std::int32_t ends_unreachable = -1;
constexpr std::int32_t ends_delivered_here = -2; // port 0 of the owning switch
constexpr std::int32_t ends_delivered_next = -3; // the cable to the owning CA port

// Where switch s's entry `port` for a LID owned by `owner` leads.
inline void first_hop(const Network& net, std::int32_t s, const Hop* row, unsigned port, std::int32_t owner,
                      std::int32_t& head, std::int32_t& channel)
{
    channel = -1;
    if (port == 0) {
        head = owner >= 0 && owner == net.switch_endpoint(s) ? ends_delivered_here : ends_unreachable;
        return;
    }
    if (port > net.switch_ports(s)) { // no_route or out of range
        head = ends_unreachable;
        return;
    }
    const Hop& h = row[port];
    channel = h.channel;
    if (h.channel < 0)
        head = ends_unreachable;
    else if (h.head >= 0)
        head = h.head;
    else
        head = owner >= 0 && h.head_endpoint() == owner ? ends_delivered_next : ends_unreachable;
}

// Resolves every switch's route from the first hops: walk head pointers
// from every unresolved switch, marking the walk; reaching a resolved
// switch copies its outcome back along the walk, reaching a switch already
// on the walk is a forwarding loop.
void resolve(const Network& net, std::uint32_t lid, const std::int32_t* head, const std::int32_t* channel,
             DestinationTree& out)
{
    const auto nsw = net.switch_count();
    out.lid = lid;
    out.owner = net.lid_owner(lid);
    out.net = &net;
    out.next.assign(channel, channel + nsw);
    // Every entry is written below (each switch is resolved exactly once).
    out.status.resize(nsw);
    out.hops.resize(nsw);
    Reach* status = out.status.data();
    std::uint16_t* hop_count = out.hops.data();

    // 0 = not visited, 1 = on the current walk, 2 = resolved.
    auto& state_v = out.scratch_state;
    state_v.assign(nsw, 0);
    std::uint8_t* state = state_v.data();
    out.scratch_walk.resize(nsw);
    std::int32_t* walk = out.scratch_walk.data();
    std::uint16_t max_hops = 0;
    std::size_t delivered = 0;

    for (std::size_t start = 0; start < nsw; ++start) {
        if (state[start] == 2) continue;
        std::size_t len = 0;
        auto cur = static_cast<std::int32_t>(start);
        Reach outcome = Reach::unreachable;
        std::uint16_t hops = 0;
        bool terminal_at_cur = false; // outcome decided at `cur` itself (pushed on the walk)
        for (;;) {
            const auto ci = static_cast<std::size_t>(cur);
            if (state[ci] == 2) {
                outcome = status[ci];
                hops = hop_count[ci];
                break;
            }
            if (state[ci] == 1) {
                outcome = Reach::loop;
                break;
            }
            state[ci] = 1;
            walk[len++] = cur;
            const std::int32_t h = head[ci];
            terminal_at_cur = true;
            if (h >= 0) {
                terminal_at_cur = false;
                cur = h;
                continue;
            }
            if (h == ends_unreachable) {
                outcome = Reach::unreachable;
                break;
            }
            outcome = Reach::delivered;
            hops = h == ends_delivered_here ? 0 : 1;
            break;
        }
        // Copy the outcome back along the walk, nearest the end first. A
        // terminal outcome (and its hops) was decided at the last switch
        // walked; every earlier switch is one link farther.
        if (outcome == Reach::delivered) {
            for (std::size_t k = len; k-- > 0;) {
                const auto s = static_cast<std::size_t>(walk[k]);
                if (!(k + 1 == len && terminal_at_cur)) ++hops;
                status[s] = outcome;
                hop_count[s] = hops;
                state[s] = 2;
            }
            max_hops = std::max(max_hops, hops);
            delivered += len;
        } else {
            for (std::size_t k = 0; k < len; ++k) {
                const auto s = static_cast<std::size_t>(walk[k]);
                status[s] = outcome;
                hop_count[s] = 0;
                state[s] = 2;
            }
        }
    }

    // Counting sort of delivered switches by hops, largest first.
    auto& bucket = out.scratch_bucket;
    bucket.assign(static_cast<std::size_t>(max_hops) + 2, 0);
    for (std::size_t s = 0; s < nsw; ++s)
        if (status[s] == Reach::delivered) ++bucket[max_hops - hop_count[s] + 1u];
    for (std::size_t b = 1; b < bucket.size(); ++b) bucket[b] += bucket[b - 1];
    out.order.resize(delivered);
    for (std::size_t s = 0; s < nsw; ++s)
        if (status[s] == Reach::delivered) out.order[bucket[max_hops - hop_count[s]]++] = static_cast<std::int32_t>(s);
}

} // namespace

void LftBlock::load(const Network& net, std::uint32_t first, std::uint32_t count)
{
    std::array<std::uint32_t, width> lids{};
    count = std::min(count, width);
    for (std::uint32_t k = 0; k < count; ++k) lids[k] = first + k;
    load(net, lids.data(), count);
}

void LftBlock::load(const Network& net, const std::uint32_t* lids, std::uint32_t count)
{
    net_ = &net;
    count_ = std::min(count, width);
    std::copy(lids, lids + count_, lids_.begin());
    switches_ = net.switch_count();
    head_.resize(static_cast<std::size_t>(count_) * switches_);
    channel_.resize(head_.size());
    if (count_ == 0) return;
    std::array<std::int32_t, width> owner{};
    for (std::uint32_t k = 0; k < count_; ++k) owner[k] = net.lid_owner(lids_[k]);
    const std::uint32_t low = lids_[0];
    constexpr std::size_t ahead = 8; // switches whose LFT line is prefetched ahead of the one read
    std::int32_t* head = head_.data();
    std::int32_t* channel = channel_.data();
    // Every block touches one page of every LFT, more pages than the TLB
    // holds; every other block goes through the switches backwards, so it
    // starts on the pages the last one touched last.
    backwards_ = !backwards_;
    for (std::size_t i = 0; i < switches_; ++i) {
        const std::size_t s = backwards_ ? switches_ - 1 - i : i;
        if (i + ahead < switches_) {
            const auto sa = static_cast<std::int32_t>(backwards_ ? s - ahead : s + ahead);
            if (net.lft_row_size(sa) > low) __builtin_prefetch(net.lft_row(sa) + low);
        }
        const auto si = static_cast<std::int32_t>(s);
        const std::uint8_t* lft = net.lft_row(si);
        const std::size_t size = net.lft_row_size(si);
        const Hop* row = net.hops_from(si);
        for (std::uint32_t k = 0; k < count_; ++k) {
            const std::uint32_t lid = lids_[k];
            const unsigned port = lid < size ? lft[lid] : no_route;
            const std::size_t at = static_cast<std::size_t>(k) * switches_ + s;
            first_hop(net, si, row, port, owner[k], head[at], channel[at]);
        }
    }
}

void LftBlock::trace(std::uint32_t k, DestinationTree& out) const
{
    const std::size_t at = static_cast<std::size_t>(k) * switches_;
    resolve(*net_, lids_[k], head_.data() + at, channel_.data() + at, out);
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
    auto& head = out.scratch_head;
    auto& channel = out.scratch_channel;
    head.resize(nsw);
    channel.resize(nsw);
    const std::int32_t owner = net.lid_owner(lid);
    for (std::size_t s = 0; s < nsw; ++s) {
        const auto si = static_cast<std::int32_t>(s);
        first_hop(net, si, net.hops_from(si), ports[s], owner, head[s], channel[s]);
    }
    resolve(net, lid, head.data(), channel.data(), out);
}

} // namespace ibsm::routing::analysis
