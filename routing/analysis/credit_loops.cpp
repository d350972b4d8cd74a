#include "routing/analysis/credit_loops.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <unordered_map>

namespace ibsm::routing::analysis {

SlLookup::SlLookup(const Network& net, const RoutingTables& tables, const std::array<std::uint16_t, 16>* vl_masks)
{
    vls_ = std::max<std::uint8_t>(1, tables.vls_used);
    for (unsigned sl = 0; sl < masks_.size(); ++sl) masks_[sl] = static_cast<std::uint16_t>(1u << sl);
    if (vl_masks) {
        // Every VL some SL may take is a VL of the CDG (VL 15 never carries data).
        std::uint16_t all = 0;
        for (unsigned sl = 0; sl < masks_.size(); ++sl) {
            masks_[sl] = static_cast<std::uint16_t>((*vl_masks)[sl] & 0x7fff);
            if (!masks_[sl]) masks_[sl] = 1; // an SL with no VL named: VL 0, as a port with no table would
            all |= masks_[sl];
        }
        vls_ = static_cast<std::uint8_t>(std::bit_width(all));
    }
    if (tables.sl.empty()) return;
    std::unordered_map<std::uint64_t, std::int32_t> endpoint_of;
    auto key = [](topology::PortRef p) { return (std::uint64_t{p.node.value} << 8) | p.port.value(); };
    for (std::size_t e = 0; e < net.endpoints().size(); ++e)
        endpoint_of.emplace(key(net.endpoints()[e].port), static_cast<std::int32_t>(e));
    table_ = tables.sl;
    const auto lids = std::min<std::uint32_t>(table_.lid_limit(), static_cast<std::uint32_t>(net.lid_table_size()));
    endpoint_of_row_.assign(table_.sources().size(), -1);
    std::uint16_t used = 0; // SLs other than 0 some pair takes
    for (std::size_t row = 0; row < table_.sources().size(); ++row) {
        auto it = endpoint_of.find(key(table_.sources()[row]));
        if (it == endpoint_of.end()) continue; // no such source
        endpoint_of_row_[row] = it->second;
        for (std::uint32_t lid = 0; lid < lids; ++lid) used |= static_cast<std::uint16_t>(1u << table_.get(row, lid));
    }
    // LIDs past the network's table: no pair (as the lists had them).
    if (lids < table_.lid_limit()) {
        SlTable cut(table_.sources(), lids);
        for (std::size_t row = 0; row < table_.sources().size(); ++row)
            for (std::uint32_t lid = 0; lid < lids; ++lid) cut.set(row, lid, table_.get(row, lid));
        table_ = std::move(cut);
    }
    for (unsigned sl = 1; sl < 16; ++sl) {
        if (!(used & (1u << sl))) continue;
        vls_ = std::max<std::uint8_t>(vls_, static_cast<std::uint8_t>(std::bit_width(masks_[sl])));
        empty_ = false;
    }
}

CdgBuilder::CdgBuilder(const Network& net, const SlLookup& sls, bool switch_traffic)
    : vls_(sls.vl_count()), switch_traffic_(switch_traffic)
{
    lay_out(net, sls);
    bits_.assign(2u * vls_, std::vector<Word>());
    for (std::size_t m = 0; m < bits_.size(); ++m)
        if (m < vls_ || switch_traffic_) bits_[m].assign(words_, 0);
    used_vls_.assign(2u * vls_, 0);
}

void CdgBuilder::lay_out(const Network& net, const SlLookup& sls)
{
    net_ = &net;
    sls_ = &sls;
    const std::size_t n = net.switch_count();
    sw_offset_.assign(n, 0);
    sw_stride_.assign(n, 0);
    mask_ca_.assign(n, 0);
    mask_all_.assign(n, 0);
    listed_.assign(n, 0);
    ca_at_.assign(n, 0);
    words_ = 0;
    for (std::size_t s = 0; s < n; ++s) {
        std::size_t ports = net.switch_ports(static_cast<std::int32_t>(s)) + 1u;
        sw_stride_[s] = (ports + 63) / 64;
        sw_offset_[s] = words_;
        words_ += ports * sw_stride_[s];
    }
    for (const Endpoint& e : net.endpoints())
        if (!e.is_switch && e.attach_switch >= 0) ++ca_at_[static_cast<std::size_t>(e.attach_switch)];
    // What add_tree computes for tables without SLs, but for the
    // destination's own switch (fixed there per tree).
    const std::uint16_t sl0 = sls.vls_of(0);
    base_ca_.assign(n, 0);
    base_all_.assign(n, 0);
    for (std::size_t s = 0; s < n; ++s) {
        if (ca_at_[s] > 0) base_ca_[s] = sl0;
        base_all_[s] = base_ca_[s];
        if (net.switch_endpoint(static_cast<std::int32_t>(s)) >= 0) base_all_[s] |= sl0;
    }
}

CdgBuilder::Word* CdgBuilder::row(int mode, unsigned vl, std::int32_t sw, unsigned in_port)
{
    auto s = static_cast<std::size_t>(sw);
    return &bits_[static_cast<std::size_t>(mode) * vls_ + vl][sw_offset_[s] + in_port * sw_stride_[s]];
}

const CdgBuilder::Word* CdgBuilder::row(int mode, unsigned vl, std::int32_t sw, unsigned in_port) const
{
    auto s = static_cast<std::size_t>(sw);
    return &bits_[static_cast<std::size_t>(mode) * vls_ + vl][sw_offset_[s] + in_port * sw_stride_[s]];
}

void CdgBuilder::enable_counts()
{
    cnt_offset_.assign(net_->switch_count() + 1, 0);
    for (std::size_t s = 0; s < net_->switch_count(); ++s) {
        const std::size_t ports = net_->switch_ports(static_cast<std::int32_t>(s)) + 1u;
        cnt_offset_[s + 1] = cnt_offset_[s] + ports * ports;
    }
    counts_.assign(bits_.size(), std::vector<std::uint16_t>());
    for (std::size_t m = 0; m < bits_.size(); ++m)
        if (!bits_[m].empty()) counts_[m].assign(cnt_offset_.back(), 0);
}

void CdgBuilder::enable_delta()
{
    enable_counts();
    delta_ = true;
    touched_.assign(net_->switch_count(), 0);
}

void CdgBuilder::apply_delta(const CdgBuilder& d)
{
    if (!counting() || delta_ || !d.delta_ || d.counts_.size() != counts_.size() || d.cnt_offset_ != cnt_offset_)
        throw std::logic_error("CdgBuilder::apply_delta: not a delta of this graph");
    for (std::size_t m = 0; m < counts_.size(); ++m) {
        if (counts_[m].empty()) continue;
        const unsigned mode = static_cast<unsigned>(m / vls_), vl = static_cast<unsigned>(m % vls_);
        for (std::size_t s = 0; s < d.touched_.size(); ++s) {
            if (!d.touched_[s]) continue;
            const auto si = static_cast<std::int32_t>(s);
            const unsigned ports = net_->switch_ports(si) + 1u;
            for (unsigned in = 0; in < ports; ++in) {
                std::uint16_t* n = &counts_[m][cnt_offset_[s] + in * ports];
                const std::uint16_t* dn = &d.counts_[m][cnt_offset_[s] + in * ports];
                Word* bits = row(static_cast<int>(mode), vl, si, in);
                for (unsigned out = 0; out < ports; ++out) {
                    if (!dn[out]) continue;
                    n[out] = static_cast<std::uint16_t>(n[out] + dn[out]);
                    const Word bit = Word{1} << (out % 64);
                    if (n[out])
                        bits[out / 64] |= bit;
                    else
                        bits[out / 64] &= ~bit;
                }
            }
        }
    }
    for (std::size_t m = 0; m < used_vls_.size(); ++m) used_vls_[m] |= d.used_vls_[m];
}

void CdgBuilder::rebind(const Network& net, const SlLookup& sls)
{
    if (net.switch_count() != sw_offset_.size()) throw std::logic_error("CdgBuilder::rebind: other switches");
    for (std::size_t s = 0; s < net.switch_count(); ++s)
        if ((net.switch_ports(static_cast<std::int32_t>(s)) + 1u + 63) / 64 != sw_stride_[s] ||
            (counting() && cnt_offset_[s + 1] - cnt_offset_[s] !=
                               (net.switch_ports(static_cast<std::int32_t>(s)) + 1u) *
                                   (net.switch_ports(static_cast<std::int32_t>(s)) + 1u)))
            throw std::logic_error("CdgBuilder::rebind: other ports");
    net_ = &net;
    sls_ = &sls;
}

void CdgBuilder::remap(const Network& net, const SlLookup& sls, const std::vector<std::int32_t>& old_switch_of,
                       const std::vector<std::vector<std::uint8_t>>& cut_in)
{
    if (!counting() || delta_) throw std::logic_error("CdgBuilder::remap: not a counting graph");
    if (sls.vl_count() != vls_) throw std::logic_error("CdgBuilder::remap: other VLs");
    if (old_switch_of.size() != net.switch_count() || cut_in.size() != net.switch_count())
        throw std::logic_error("CdgBuilder::remap: other switches");
    for (std::size_t s = 0; s < net.switch_count(); ++s) {
        const auto o = static_cast<std::size_t>(old_switch_of[s]);
        if (o >= sw_offset_.size() ||
            cnt_offset_[o + 1] - cnt_offset_[o] != std::size_t{net.switch_ports(static_cast<std::int32_t>(s)) + 1u} *
                                                       (net.switch_ports(static_cast<std::int32_t>(s)) + 1u))
            throw std::logic_error("CdgBuilder::remap: other ports");
    }
    const auto old_offset = std::move(sw_offset_);
    const auto old_stride = std::move(sw_stride_);
    const auto old_cnt_offset = std::move(cnt_offset_);
    const auto old_bits = std::move(bits_);
    const auto old_counts = std::move(counts_);
    lay_out(net, sls);
    bits_.assign(old_bits.size(), std::vector<Word>());
    for (std::size_t m = 0; m < bits_.size(); ++m)
        if (!old_bits[m].empty()) bits_[m].assign(words_, 0);
    enable_counts();
    for (std::size_t s = 0; s < net.switch_count(); ++s) {
        const auto o = static_cast<std::size_t>(old_switch_of[s]);
        const unsigned ports = net.switch_ports(static_cast<std::int32_t>(s)) + 1u;
        for (unsigned in = 0; in < ports; ++in) {
            if (in < cut_in[s].size() && cut_in[s][in]) continue;
            for (std::size_t m = 0; m < bits_.size(); ++m) {
                if (bits_[m].empty()) continue;
                std::copy_n(&old_bits[m][old_offset[o] + in * old_stride[o]], sw_stride_[s],
                            &bits_[m][sw_offset_[s] + in * sw_stride_[s]]);
                std::copy_n(&old_counts[m][old_cnt_offset[o] + in * ports], ports,
                            &counts_[m][cnt_offset_[s] + in * ports]);
            }
        }
    }
}

void CdgBuilder::depend(int mode, unsigned vl, std::int32_t sw, unsigned in_port, unsigned out_port)
{
    const auto s = static_cast<std::size_t>(sw);
    if (counts_.empty()) {
        row(mode, vl, sw, in_port)[out_port / 64] |= Word{1} << (out_port % 64);
        return;
    }
    const std::size_t ports = net_->switch_ports(sw) + 1u;
    std::uint16_t& n = counts_[static_cast<std::size_t>(mode) * vls_ + vl][cnt_offset_[s] + in_port * ports + out_port];
    if (delta_) { // no bits: apply_delta sets them
        n = static_cast<std::uint16_t>(n + sign_);
        touched_[s] = 1;
        return;
    }
    Word& word = row(mode, vl, sw, in_port)[out_port / 64];
    const Word bit = Word{1} << (out_port % 64);
    if (sign_ > 0) {
        ++n;
        word |= bit;
    } else if (n > 0 && --n == 0) {
        word &= ~bit;
    }
}

void CdgBuilder::add(const DestinationTree& t)
{
    sign_ = 1;
    add_tree(t);
}

void CdgBuilder::remove(const DestinationTree& t)
{
    if (counts_.empty()) throw std::logic_error("CdgBuilder::remove without counts");
    sign_ = -1;
    add_tree(t);
    sign_ = 1;
}

void CdgBuilder::add_tree(const DestinationTree& t)
{
    if (t.owner < 0) return;
    const Network& net = *net_;
    const Endpoint& dst = net.endpoint(t.owner);
    constexpr std::uint32_t switch_listed = 0x80000000u;
    const auto nsw = net.switch_count();
    const std::uint16_t sl0 = sls_->vls_of(0);

    // The masks of one switch from its listed sources (listed_, and the
    // masks' listed bits): unlisted CA ports and the switch itself send on SL 0.
    auto finish = [&](std::size_t s) {
        auto si = static_cast<std::int32_t>(s);
        std::uint32_t n = ca_at_[s];
        if (!dst.is_switch && dst.attach_switch == si) --n;
        if (n > (listed_[s] & ~switch_listed)) mask_ca_[s] |= sl0;
        std::int32_t self = net.switch_endpoint(si);
        if (self >= 0 && self != t.owner && !(listed_[s] & switch_listed)) mask_all_[s] |= sl0;
        mask_all_[s] |= mask_ca_[s];
    };
    if (sls_->empty()) {
        // The common case (no SLs): the masks every tree starts from, but at
        // the destination's switch.
        std::copy(base_ca_.begin(), base_ca_.end(), mask_ca_.begin());
        if (switch_traffic_) std::copy(base_all_.begin(), base_all_.end(), mask_all_.begin());
        if (dst.attach_switch >= 0) {
            const auto s = static_cast<std::size_t>(dst.attach_switch);
            mask_ca_[s] = mask_all_[s] = 0;
            listed_[s] = 0;
            finish(s);
        }
        propagate(t);
        return;
    }
    std::fill(mask_ca_.begin(), mask_ca_.end(), 0);
    std::fill(mask_all_.begin(), mask_all_.end(), 0);
    std::fill(listed_.begin(), listed_.end(), 0);
    sls_->for_each_source(t.lid, [&](std::int32_t src, std::uint8_t sl) {
        if (src == t.owner) return;
        const Endpoint& e = net.endpoint(src);
        if (e.attach_switch < 0) return;
        auto s = static_cast<std::size_t>(e.attach_switch);
        const std::uint16_t bit = sls_->vls_of(sl);
        if (e.is_switch) {
            mask_all_[s] |= bit;
            listed_[s] |= switch_listed;
        } else {
            mask_ca_[s] |= bit;
            ++listed_[s];
        }
    });
    for (std::size_t s = 0; s < nsw; ++s) finish(s);
    propagate(t);
}

void CdgBuilder::add_users(const DestinationTree& t, const std::vector<std::uint8_t>& ca_users,
                           const std::vector<std::uint8_t>& switch_users)
{
    if (t.owner < 0) return;
    const std::uint16_t sl0 = sls_->vls_of(0);
    for (std::size_t s = 0; s < mask_ca_.size(); ++s) {
        mask_ca_[s] = ca_users[s] ? sl0 : 0;
        mask_all_[s] = static_cast<std::uint16_t>(mask_ca_[s] | (switch_users[s] ? sl0 : 0));
    }
    propagate(t);
}

void CdgBuilder::propagate(const DestinationTree& t)
{
    // The tree's own view: the incremental gate removes trees traced on the
    // old fabric and adds trees traced on the new one (same switches and
    // ports, so the same dependency layout).
    const Network& net = t.net ? *t.net : *net_;
    const ChannelEnds* ends = net.channel_ends().data();
    const std::int32_t* next = t.next.data();
    std::uint16_t* mask_ca = mask_ca_.data();
    std::uint16_t* mask_all = mask_all_.data();
    std::uint16_t used_ca = 0, used_all = 0; // VLs the traffic of this tree takes
    const bool all = switch_traffic_;
    // The one-VL graph without counts (the gate on most tables): the bit is
    // set inline, no per-dependency call.
    Word* const flat = vls_ == 1 && !all && !delta_ && sign_ > 0 ? bits_[ca_only].data() : nullptr;
    // ... and, counting (the full gate that remembers), the count beside it.
    std::uint16_t* const flat_counts = flat && counting() ? counts_[ca_only].data() : nullptr;
    for (std::int32_t s : t.order) {
        const auto si = static_cast<std::size_t>(s);
        const std::uint16_t m_ca = mask_ca[si];
        const std::uint16_t m_all = all ? mask_all[si] : 0;
        used_ca |= m_ca;
        used_all |= m_all;
        const std::int32_t c = next[si];
        if (c < 0) continue;
        const ChannelEnds& in = ends[c];
        const std::int32_t nxt = in.head_switch;
        if (nxt < 0) continue;
        const auto ni = static_cast<std::size_t>(nxt);
        mask_ca[ni] |= m_ca;
        if (all) mask_all[ni] |= m_all;
        const std::int32_t oc = next[ni];
        if (oc < 0) continue;
        const ChannelEnds& out = ends[oc];
        if (out.head_switch < 0) continue;
        const unsigned in_port = in.head_port;
        const unsigned out_port = out.tail_port;
        if (flat) {
            if (!m_ca) continue;
            flat[sw_offset_[ni] + in_port * sw_stride_[ni] + out_port / 64] |= Word{1} << (out_port % 64);
            if (flat_counts)
                ++flat_counts[cnt_offset_[ni] + in_port * (net.switch_ports(nxt) + 1u) + out_port];
            continue;
        }
        for (std::uint16_t m = m_ca; m; m &= static_cast<std::uint16_t>(m - 1))
            depend(ca_only, static_cast<unsigned>(std::countr_zero(m)), nxt, in_port, out_port);
        if (!all) continue;
        for (std::uint16_t m = m_all; m; m &= static_cast<std::uint16_t>(m - 1))
            depend(with_switches, static_cast<unsigned>(std::countr_zero(m)), nxt, in_port, out_port);
    }
    for (unsigned vl = 0; vl < vls_; ++vl) {
        if (used_ca >> vl & 1u) used_vls_[vl] = 1;
        if (used_all >> vl & 1u) used_vls_[vls_ + vl] = 1;
    }
}

void CdgBuilder::add_turn(std::int32_t sw, unsigned in_port, unsigned out_port, unsigned vl, bool from_switch)
{
    if (vl >= vls_) return;
    const Word bit = Word{1} << (out_port % 64);
    if (!from_switch) row(ca_only, vl, sw, in_port)[out_port / 64] |= bit;
    if (switch_traffic_) row(with_switches, vl, sw, in_port)[out_port / 64] |= bit;
}

void CdgBuilder::mark_used(unsigned vl, bool from_switch)
{
    if (vl >= vls_) return;
    if (!from_switch) used_vls_[vl] = 1;
    used_vls_[vls_ + vl] = 1;
}

void CdgBuilder::merge(const CdgBuilder& other)
{
    if (counting() != other.counting()) throw std::logic_error("CdgBuilder::merge: counting and not");
    for (std::size_t m = 0; m < bits_.size(); ++m) {
        if (bits_[m].size() != other.bits_[m].size()) throw std::logic_error("CdgBuilder::merge: other graphs");
        for (std::size_t w = 0; w < bits_[m].size(); ++w) bits_[m][w] |= other.bits_[m][w];
        used_vls_[m] |= other.used_vls_[m];
        if (counting())
            for (std::size_t i = 0; i < counts_[m].size(); ++i)
                counts_[m][i] = static_cast<std::uint16_t>(counts_[m][i] + other.counts_[m][i]);
    }
}

CreditLoops CdgBuilder::result(int mode) const
{
    if (mode == with_switches && !switch_traffic_)
        throw std::logic_error("CdgBuilder::result: built without switch traffic");
    const Network& net = *net_;
    CreditLoops out;
    out.computed = true;
    const auto nch = net.channels().size();
    for (unsigned vl = 0; vl < vls_; ++vl) {
        if (!used_vls_[static_cast<std::size_t>(mode) * vls_ + vl]) continue;
        VlCreditResult r;
        r.vl = static_cast<std::uint8_t>(vl);
        for (Word w : bits_[static_cast<std::size_t>(mode) * vls_ + vl]) r.dependencies += static_cast<unsigned>(std::popcount(w));

        // Iterative DFS; a frame remembers which out-port bit to try next.
        struct Frame {
            std::int32_t channel;
            unsigned next_port;
        };
        std::vector<std::uint8_t> color(nch, 0); // 0 new, 1 on stack, 2 done
        std::vector<std::int32_t> stack_pos(nch, -1);
        std::vector<Frame> stack;
        for (std::size_t root = 0; root < nch && r.cycle.empty(); ++root) {
            const Channel& rc = net.channel(static_cast<std::int32_t>(root));
            if (rc.tail_switch < 0 || rc.head_switch < 0 || color[root] != 0) continue;
            color[root] = 1;
            stack_pos[root] = 0;
            stack.push_back(Frame{static_cast<std::int32_t>(root), 0});
            while (!stack.empty() && r.cycle.empty()) {
                Frame& f = stack.back();
                const Channel& c = net.channel(f.channel);
                const std::int32_t sw = c.head_switch;
                const unsigned nports = net.switch_ports(sw) + 1u;
                const Word* bits = row(mode, vl, sw, c.head.port.value());
                std::int32_t succ = -1;
                while (f.next_port < nports) {
                    unsigned p = f.next_port++;
                    if (bits[p / 64] >> (p % 64) & 1u) {
                        succ = net.channel_from(sw, p);
                        if (succ >= 0) break;
                    }
                }
                if (succ < 0) {
                    color[static_cast<std::size_t>(f.channel)] = 2;
                    stack.pop_back();
                    continue;
                }
                auto su = static_cast<std::size_t>(succ);
                if (color[su] == 1) {
                    for (std::size_t k = static_cast<std::size_t>(stack_pos[su]); k < stack.size(); ++k)
                        r.cycle.push_back(stack[k].channel);
                } else if (color[su] == 0) {
                    color[su] = 1;
                    stack_pos[su] = static_cast<std::int32_t>(stack.size());
                    stack.push_back(Frame{succ, 0});
                }
            }
            stack.clear();
        }
        out.vls.push_back(std::move(r));
    }
    return out;
}

} // namespace ibsm::routing::analysis
