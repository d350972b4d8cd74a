// D-Mod-K `ftree` engine (see dmodk.h for the why, the port mapping and the
// degraded-tree policy).
#include "routing/fattree/dmodk.h"

#include "common/parallel_for.h"
#include "routing/fattree/reverse_hops.h"
#include "routing/fattree/sftree.h"
#include "routing/guid_roles.h"

#include <algorithm>
#include <functional>
#include <map>

namespace ibsm::routing::fattree {

namespace {

constexpr std::uint8_t none = no_route;

// Rows of S bits.
class BitRows {
public:
    BitRows(std::size_t rows, std::size_t bits) : words_((bits + 63) / 64), data_(rows * words_, 0) {}
    bool test(std::size_t r, std::size_t b) const { return (data_[r * words_ + b / 64] >> (b % 64)) & 1u; }
    void set(std::size_t r, std::size_t b) { data_[r * words_ + b / 64] |= 1ull << (b % 64); }
    void merge(std::size_t into, std::size_t from)
    {
        for (std::size_t i = 0; i < words_; ++i) data_[into * words_ + i] |= data_[from * words_ + i];
    }
    template <class F> void for_each(std::size_t r, F f) const
    {
        for (std::size_t i = 0; i < words_; ++i)
            for (auto w = data_[r * words_ + i]; w; w &= w - 1)
                f(i * 64 + static_cast<std::size_t>(__builtin_ctzll(w)));
    }

private:
    std::size_t words_;
    std::vector<std::uint64_t> data_;
};

struct Target {
    Lid lid;
    std::uint32_t attach = no_switch;
    std::uint8_t port = 0; // at the attach switch: the CA's cable, or 0 for the switch itself
    std::uint64_t j = 0;
};

// Most common value (ties: the larger one); `fallback` for an empty list.
std::uint32_t mode_of(std::vector<std::uint32_t> v, std::uint32_t fallback)
{
    if (v.empty()) return fallback;
    std::map<std::uint32_t, std::size_t> count;
    for (auto x : v) ++count[x];
    std::uint32_t best = fallback;
    std::size_t n = 0;
    for (auto [x, c] : count)
        if (c >= n) {
            best = x;
            n = c;
        }
    return best;
}

class Dmodk {
public:
    Dmodk(const topology::Fabric& f, const lidassign::LidMap& lids, const FatTree& t, const CaOrder& order)
        : f_(f), lids_(lids), t_(t), order_(order), S_(t.size()), h_(t.height), down_(S_, S_), reach_(S_, S_)
    {
    }

    RoutingTables run(const std::string& engine)
    {
        infer_parameters();
        number_parents();
        build_reach();
        build_targets();
        build_chains();

        RoutingTables out;
        out.engine = engine;
        out.linear_fdb_top = lids_.top();
        const std::size_t size = static_cast<std::size_t>(lids_.top().value()) + 1;
        std::vector<std::vector<std::uint8_t>*> rows(S_);
        for (std::uint32_t s = 0; s < S_; ++s) {
            auto& lft = out.lfts[t_.switches[s]];
            lft.port.assign(size, none);
            rows[s] = &lft.port;
        }
        // Rows are independent; fabrics of a million entries and more fill
        // them on several threads (the result does not depend on how many).
        const unsigned threads = S_ * targets_.size() < 1000000 ? 1 : 0;
        common::parallel_for(S_, threads, [&](std::size_t index, unsigned) {
            const auto s = static_cast<std::uint32_t>(index);
            auto& row = *rows[s];
            if (t_.in_tree(s))
                for (std::size_t i = 0; i < targets_.size(); ++i) row[targets_[i].lid.value()] = decide(s, i);
            else if (auto own = lids_.lids_of(topology::PortRef{t_.switches[s], PortNum(0)}))
                for (std::uint16_t o = 0; o < own->count(); ++o) row[own->base.value() + o] = 0;
        });
        return out;
    }

private:
    // w_[l], p_[l] for l = 1..h (seed 003 §II-B: w_l parents of a level l-1
    // node, p_l cables to each); w_1 = p_1 = 1 (hosts have one cable).
    void infer_parameters()
    {
        w_.assign(h_ + 2, 1);
        p_.assign(h_ + 2, 1);
        for (unsigned l = 1; l < h_; ++l) {
            std::vector<std::uint32_t> ws, ps;
            for (std::uint32_t s = 0; s < S_; ++s) {
                if (t_.level[s] != l || t_.up[s].empty()) continue;
                std::map<std::uint32_t, std::uint32_t> cables;
                for (const auto& u : t_.up[s]) ++cables[u.peer];
                ws.push_back(static_cast<std::uint32_t>(cables.size()));
                std::uint32_t pmax = 0;
                for (auto [peer, n] : cables) pmax = std::max(pmax, n);
                ps.push_back(pmax);
            }
            w_[l + 1] = std::max<std::uint32_t>(1, mode_of(ws, 1));
            p_[l + 1] = std::max<std::uint32_t>(1, mode_of(ps, 1));
        }
        prodw_.assign(h_ + 2, 1);
        for (unsigned l = 2; l <= h_; ++l) prodw_[l] = prodw_[l - 1] * w_[l];
        up_count_.assign(h_ + 1, 0);
        for (unsigned l = 1; l < h_; ++l) up_count_[l] = w_[l + 1] * p_[l + 1];
    }

    // Parent digits (see dmodk.h) and the q -> port tables.
    void number_parents()
    {
        auto guid = [&](std::uint32_t s) { return f_.node(t_.switches[s]).guid; };
        std::vector<std::uint32_t> tops;
        for (std::uint32_t s = 0; s < S_; ++s)
            if (t_.level[s] == h_) tops.push_back(s);
        std::sort(tops.begin(), tops.end(), [&](auto a, auto b) { return guid(a) < guid(b); });
        min_top_.assign(S_, 0xFFFFFFFFu);
        for (std::uint32_t i = 0; i < tops.size(); ++i) min_top_[tops[i]] = i;
        for (int l = h_ - 1; l >= 1; --l)
            for (std::uint32_t s = 0; s < S_; ++s)
                if (t_.level[s] == l)
                    for (const auto& u : t_.up[s]) min_top_[s] = std::min(min_top_[s], min_top_[u.peer]);

        auto key = [&](std::uint32_t s) { return std::pair{min_top_[s], guid(s)}; };
        std::vector<std::uint32_t> digit(S_, 0xFFFFFFFFu);
        std::vector<std::pair<std::uint32_t, Guid>> keys;
        for (std::uint32_t P = 0; P < S_; ++P) {
            if (t_.level[P] < 2) continue;
            keys.clear();
            for (const auto& d : t_.down[P])
                for (const auto& u : t_.up[d.peer]) keys.push_back(key(u.peer));
            std::sort(keys.begin(), keys.end());
            // Co-parents with the same tops above them (several leaves of
            // one core above a multi-core tree's edge switch) are told apart
            // by GUID: w_{l+1} counts them as distinct parents, so each needs
            // its own digit or its up ports never get a slot.
            keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
            auto it = std::lower_bound(keys.begin(), keys.end(), key(P));
            digit[P] = static_cast<std::uint32_t>(it - keys.begin());
        }

        slot_port_.assign(S_, {});
        digit_parent_.assign(S_, {});
        digit_ports_.assign(S_, {});
        peer_.assign(S_, {});
        for (std::uint32_t s = 0; s < S_; ++s) {
            const auto& node = f_.node(t_.switches[s]);
            peer_[s].assign(node.ports.size(), no_switch);
            for (const auto* list : {&t_.up[s], &t_.down[s], &t_.sibling[s]})
                for (const auto& l : *list) peer_[s][l.port] = l.peer;
            const unsigned lv = t_.level[s];
            if (lv == 0 || lv >= h_) continue;
            const std::uint32_t w = w_[lv + 1], p = p_[lv + 1];
            slot_port_[s].assign(w * p, none);
            digit_parent_[s].assign(w, no_switch);
            digit_ports_[s].assign(w, {});
            for (const auto& u : t_.up[s]) {
                const auto x = digit[u.peer];
                if (x >= w) continue;
                if (digit_parent_[s][x] == no_switch) digit_parent_[s][x] = u.peer;
                if (digit_parent_[s][x] != u.peer) continue; // two parents claim one digit: extra
                const auto k = digit_ports_[s][x].size();
                digit_ports_[s][x].push_back(u.port);
                if (k < p) slot_port_[s][x + k * w] = u.port;
            }
        }
    }

    void build_reach()
    {
        for (unsigned l = 1; l <= h_; ++l)
            for (std::uint32_t s = 0; s < S_; ++s)
                if (t_.level[s] == l) {
                    down_.set(s, s);
                    for (const auto& d : t_.down[s]) down_.merge(s, d.peer);
                }
        // reach = down + reach of parents, top level first.
        for (int l = h_; l >= 1; --l)
            for (std::uint32_t s = 0; s < S_; ++s)
                if (t_.level[s] == l) {
                    down_.for_each(s, [&](std::size_t b) { reach_.set(s, b); });
                    for (const auto& u : t_.up[s]) reach_.merge(s, u.peer);
                }
        // first_down_[s * S + A]: s's first down port (by port number) toward A.
        first_down_.assign(S_ * S_, none);
        for (std::uint32_t s = 0; s < S_; ++s) {
            auto downs = t_.down[s];
            std::sort(downs.begin(), downs.end(), [](auto& a, auto& b) { return a.port < b.port; });
            for (const auto& d : downs)
                down_.for_each(d.peer, [&](std::size_t A) {
                    auto& e = first_down_[s * S_ + A];
                    if (e == none) e = d.port;
                });
        }
        // Horizontal proxies (dmodk.h step 3).
        proxies_.assign(S_, {});
        for (std::uint32_t A = 0; A < S_; ++A)
            for (const auto& sib : t_.sibling[A]) {
                const auto B = sib.peer;
                bool dup = false;
                for (auto& [b, port] : proxies_[A]) dup |= b == B;
                if (dup) continue;
                bool ok = true;
                for (std::uint32_t X = 0; X < S_ && ok; ++X)
                    if (X != B && t_.in_tree(X) && down_.test(X, B) && !down_.test(X, A) && reach_.test(X, A))
                        ok = false;
                if (ok) proxies_[A].push_back({B, sib.peer_port});
            }
    }

    void build_targets()
    {
        std::uint32_t tops = static_cast<std::uint32_t>(prodw_[h_]);
        auto stride_for = [&](std::uint8_t lmc) -> std::uint64_t {
            return std::max<std::uint64_t>(1, tops >> lmc);
        };
        for (const auto* list : {&order_.cas, &order_.others})
            for (const auto& ca : *list) {
                auto l = lids_.lids_of(ca.ca);
                if (!l) continue;
                for (std::uint16_t o = 0; o < l->count(); ++o)
                    targets_.push_back(Target{Lid(static_cast<std::uint16_t>(l->base.value() + o)), ca.leaf,
                                              ca.leaf_port, ca.index + o * stride_for(l->lmc)});
            }
        std::vector<std::uint32_t> sw;
        for (std::uint32_t s = 0; s < S_; ++s)
            if (t_.in_tree(s)) sw.push_back(s);
        std::sort(sw.begin(), sw.end(), [&](auto a, auto b) {
            return f_.node(t_.switches[a]).guid < f_.node(t_.switches[b]).guid;
        });
        // A switch destination's D-Mod-K index is its LID past the CAs'
        // indexes, not its rank among the switches: LIDs persist across
        // sweeps, so a switch that leaves does not renumber every switch
        // after it (which moved each one's routes, and every switch's LFT
        // block of switch LIDs, on one lost spine), and a standby with the
        // same guid2lid numbers them alike.
        const std::uint64_t base = order_.index_span() + order_.others.size();
        for (std::uint32_t i = 0; i < sw.size(); ++i) {
            auto l = lids_.lids_of(topology::PortRef{t_.switches[sw[i]], PortNum(0)});
            if (!l) continue;
            for (std::uint16_t o = 0; o < l->count(); ++o) {
                const Lid lid(static_cast<std::uint16_t>(l->base.value() + o));
                targets_.push_back(Target{lid, sw[i], 0, base + lid.value()});
            }
        }
        const std::size_t T = targets_.size();
        q_.assign(h_ + 1, std::vector<std::uint16_t>(T, 0));
        for (unsigned l = 1; l < h_; ++l)
            for (std::size_t i = 0; i < T; ++i)
                q_[l][i] = static_cast<std::uint16_t>((targets_[i].j / prodw_[l]) % up_count_[l]);
    }

    // The chain of each destination: D-Mod-K's climb from its attach switch.
    void build_chains()
    {
        const std::size_t T = targets_.size();
        chain_node_.assign(h_ + 1, std::vector<std::uint32_t>(T, no_switch));
        chain_port_.assign(h_ + 1, std::vector<std::uint8_t>(T, none));
        for (std::size_t i = 0; i < T; ++i) {
            auto cur = targets_[i].attach;
            chain_node_[t_.level[cur]][i] = cur;
            for (unsigned l = t_.level[cur]; l < h_; ++l) {
                const auto port = up_choice(cur, i, targets_[i].attach);
                if (port == none) break;
                const auto next = peer_[cur][port];
                chain_node_[l + 1][i] = next;
                chain_port_[l + 1][i] = f_.node(t_.switches[cur]).ports[port].remote->port.value();
                cur = next;
            }
        }
    }

    std::uint8_t up_choice(std::uint32_t s, std::size_t i, std::uint32_t A) const
    {
        const unsigned l = t_.level[s];
        if (l >= h_) return none;
        const auto q = q_[l][i];
        const auto port = slot_port_[s][q];
        if (port != none && reach_.test(peer_[s][port], A)) return port;
        // Degraded: spread by the next digit of j (dmodk.h step 2).
        const std::uint64_t d2 = targets_[i].j / (prodw_[l] * up_count_[l]);
        const std::uint32_t x = q % w_[l + 1];
        const auto parent = digit_parent_[s][x];
        if (parent != no_switch && reach_.test(parent, A)) {
            const auto& ports = digit_ports_[s][x];
            return ports[d2 % ports.size()];
        }
        std::uint8_t usable[256];
        std::size_t n = 0;
        for (const auto& u : t_.up[s])
            if (reach_.test(u.peer, A)) usable[n++] = u.port;
        return n ? usable[d2 % n] : none;
    }

    std::uint8_t route_toward(std::uint32_t s, std::size_t i, std::uint32_t A) const
    {
        const unsigned l = t_.level[s];
        if (down_.test(s, A)) {
            if (chain_node_[l][i] == s) return chain_port_[l][i];
            const auto c = chain_node_[l - 1][i];
            if (c != no_switch && down_.test(s, c))
                for (const auto& u : t_.up[c])
                    if (u.peer == s) return u.peer_port;
            return first_down_[s * S_ + A];
        }
        if (reach_.test(s, A)) return up_choice(s, i, A);
        return none;
    }

    std::uint8_t decide(std::uint32_t s, std::size_t i) const
    {
        const auto& tg = targets_[i];
        const auto A = tg.attach;
        if (A == s) return tg.port;
        if (reach_.test(s, A)) return route_toward(s, i, A);
        for (const auto& [B, port_to_A] : proxies_[A]) {
            if (B == s) return port_to_A;
            if (reach_.test(s, B)) {
                if (down_.test(s, B)) return first_down_[s * S_ + B];
                return up_choice(s, i, B);
            }
        }
        return none;
    }

    const topology::Fabric& f_;
    const lidassign::LidMap& lids_;
    const FatTree& t_;
    const CaOrder& order_;
    std::size_t S_;
    unsigned h_;
    std::vector<std::uint32_t> w_, p_, up_count_;
    std::vector<std::uint64_t> prodw_;
    std::vector<std::uint32_t> min_top_;
    std::vector<std::vector<std::uint8_t>> slot_port_;
    std::vector<std::vector<std::uint32_t>> digit_parent_;
    std::vector<std::vector<std::vector<std::uint8_t>>> digit_ports_;
    std::vector<std::vector<std::uint32_t>> peer_; // [switch][port] -> switch
    BitRows down_, reach_;
    std::vector<std::uint8_t> first_down_;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint8_t>>> proxies_;
    std::vector<Target> targets_;
    std::vector<std::vector<std::uint16_t>> q_;          // [level][target]
    std::vector<std::vector<std::uint32_t>> chain_node_; // [level][target]
    std::vector<std::vector<std::uint8_t>> chain_port_;  // [level][target]
};

} // namespace

std::variant<DmodkRun, Refusal> run_dmodk(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                          const Options& options, const std::string& engine_name)
{
    // With OpenSM's GUID files, CA ports that are not compute nodes may
    // hang above the leaves (ranking.h).
    const GuidRoles roles(options);
    std::function<bool(Guid)> floats;
    if (roles.compute_file() || roles.io_file()) floats = [&](Guid port) { return !roles.is_compute(port); };
    auto ranked = rank_fat_tree(fabric, options.root_guids, floats);
    if (auto* reason = std::get_if<std::string>(&ranked)) return Refusal{engine_name, *reason};
    DmodkRun run;
    run.tree = std::move(std::get<FatTree>(ranked));
    run.order = compute_ca_order(fabric, run.tree, options);
    if (!options.compute_nodes.empty() && run.order.cas.empty())
        return Refusal{engine_name, "none of the " + std::to_string(options.compute_nodes.size()) +
                                        " compute nodes listed (cn_guid_file) is a CA port on a leaf of this fabric"};
    Dmodk d(fabric, lids, run.tree, run.order);
    run.tables = d.run(engine_name);
    return run;
}

Result FtreeEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const Options& options) const
{
    // D-Mod-K, then sftree's Algorithm 2 for the entries it left empty (see
    // dmodk.h, "CA<->switch"); only CA pairs and CA<->switch are promised,
    // so the subtree root need not avoid the SM's leaf: the same tables
    // whichever SM (master or standby, on any leaf) computes them.
    auto r = run_sftree(fabric, lids, options, name(), /*avoid_sm=*/false);
    if (auto* refusal = std::get_if<Refusal>(&r)) return *refusal;
    auto& run = std::get<SftreeResult>(r);
    if (auto why = reverse_hops_refusal(fabric, lids, run.tree, run.tables, options)) return Refusal{name(), *why};
    auto tables = std::move(run.tables);
    tables.switch_to_switch = false;
    return tables;
}

} // namespace ibsm::routing::fattree
