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
#include <memory>
#include <optional>
#include <unordered_map>

namespace ibsm::routing::fattree {

namespace {

constexpr std::uint8_t none = no_route;

using Target = DmodkTarget;

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
        : f_(f), lids_(lids), t_(t), order_(order), S_(t.size()), h_(t.height)
    {
        down_ = BitRows(S_, S_);
        reach_ = BitRows(S_, S_);
    }

    // The structures every entry is decided from (no tables yet). With
    // `kept` (a re-route), parents keep the digits they had; switches seen
    // before and gone now keep theirs for when they come back.
    void prepare(const std::unordered_map<Guid, std::uint32_t>* kept = nullptr)
    {
        kept_digits_ = kept;
        if (kept) st_->digits = *kept;
        infer_parameters();
        number_parents();
        build_reach();
        build_targets();
        build_chains();
        sign_rows();
    }

    RoutingTables run(const std::string& engine)
    {
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
            else
                own_lids_only(s, row);
        });
        return out;
    }

    // The state kept for the next run; `tables` are D-Mod-K's (before sftree).
    std::shared_ptr<DmodkState> keep(const RoutingTables& tables)
    {
        st_->height = h_;
        st_->switch_guids.resize(S_);
        st_->switch_nodes = t_.switches;
        for (std::uint32_t s = 0; s < S_; ++s) st_->switch_guids[s] = f_.node(t_.switches[s]).guid;
        if (holes_ready_) return st_; // run_after kept them up to date
        const auto dest = dest_lids(lids_);
        st_->holes.assign(S_, {});
        for (std::uint32_t s = 0; s < S_; ++s) {
            if (!t_.in_tree(s)) continue;
            const auto& row = tables.lfts.at(t_.switches[s]).port;
            for (std::size_t lid = 1; lid < row.size(); ++lid)
                if (row[lid] == none && dest[lid]) st_->holes[s].push_back(Lid(static_cast<std::uint16_t>(lid)));
        }
        return st_;
    }

    // The tables of `old` (the last run's state) and `old_tables` (its final
    // tables) with only the entries this fabric may change re-decided (see
    // dmodk_state.h); nullopt with `why` when the tree's parameters changed.
    // `keep_alg2`: leave the last run's Algorithm 2 entries in the kept rows
    // (sftree.cpp decides whether they stay); else put D-Mod-K's back.
    std::optional<RoutingTables> run_after(const std::string& engine, const DmodkState& old,
                                           const RoutingTables& old_tables, const lidassign::LidMap& old_lids,
                                           bool keep_alg2, std::string& why, std::string& stats)
    {
        if (old.height != h_ || old.w != w_ || old.p != p_) {
            why = "the tree's parameters changed (height, parents or cables per level)";
            return std::nullopt;
        }
        if (unnumbered_) {
            why = "a switch above the leaves that no earlier run numbered";
            return std::nullopt;
        }
        const std::size_t oS = old.switch_guids.size();
        // New switch index -> old one, by GUID.
        std::unordered_map<Guid, std::uint32_t> old_index;
        for (std::uint32_t os = 0; os < oS; ++os) old_index.emplace(old.switch_guids[os], os);
        std::vector<std::uint32_t> to_old(S_, no_switch);
        for (std::uint32_t s = 0; s < S_; ++s)
            if (auto it = old_index.find(f_.node(t_.switches[s]).guid); it != old_index.end()) to_old[s] = it->second;

        // col_dirty: some switch sees A differently (down, reach, first down
        // port, proxies); down_dirty: only down(.) of A differs, all that a
        // switch above a chain switch A reads of it (route_toward).
        std::vector<char> row_dirty(S_, 0), col_dirty(S_, 0), down_dirty(S_, 0);
        for (std::uint32_t s = 0; s < S_; ++s)
            row_dirty[s] = to_old[s] == no_switch || !t_.in_tree(s) || st_->row_sig[s] != old.row_sig[to_old[s]];
        // Columns: every switch's view of A (down, reach, first down port),
        // compared at every switch both runs have: a kept row reads its
        // parents' reach bits too, whether their own rows are kept or not.
        // Row by row (both runs' rows are read in order; a column at a time
        // would miss the cache on every switch).
        for (std::uint32_t A = 0; A < S_; ++A) {
            const auto oA = to_old[A];
            if (oA == no_switch || !t_.in_tree(A)) {
                col_dirty[A] = down_dirty[A] = 1;
                continue;
            }
            bool dirty = proxies_[A].size() != old.proxies[oA].size();
            for (std::size_t k = 0; !dirty && k < proxies_[A].size(); ++k)
                dirty = proxies_[A][k].second != old.proxies[oA][k].second ||
                        to_old[proxies_[A][k].first] != old.proxies[oA][k].first;
            col_dirty[A] = dirty;
        }
        // When both runs number the switches alike (no switch came or went:
        // a cable, a port), whole rows are compared first and only a row
        // that differs is read bit by bit: 8.3 million tests at 27 648 hosts
        // were 50 ms of every one-cable re-route.
        bool same_numbering = oS == S_;
        for (std::uint32_t s = 0; s < S_ && same_numbering; ++s) same_numbering = to_old[s] == s;
        const std::size_t words = down_.words();
        auto same_row = [&](std::uint32_t s) {
            return std::equal(down_.row(s), down_.row(s) + words, old.down.row(s)) &&
                   std::equal(reach_.row(s), reach_.row(s) + words, old.reach.row(s)) &&
                   std::equal(&first_down_[s * S_], &first_down_[s * S_] + S_, &old.first_down[s * S_]);
        };
        for (std::uint32_t s = 0; s < S_; ++s) {
            const auto os = to_old[s];
            if (os == no_switch) continue; // a new switch: its neighbours' rows are re-decided
            if (same_numbering && same_row(s)) continue;
            const auto* fd = &first_down_[s * S_];
            const auto* ofd = &old.first_down[os * oS];
            for (std::uint32_t A = 0; A < S_; ++A) {
                const auto oA = to_old[A];
                if (oA == no_switch) continue;
                if (down_.test(s, A) != old.down.test(os, oA)) {
                    down_dirty[A] = col_dirty[A] = 1;
                } else if (reach_.test(s, A) != old.reach.test(os, oA) || fd[A] != ofd[oA]) {
                    col_dirty[A] = 1;
                }
            }
        }
        // A destination routed through a proxy B (dmodk.h step 3) reads B's column.
        std::vector<char> col_dirty2 = col_dirty;
        for (std::uint32_t A = 0; A < S_; ++A)
            for (const auto& [B, port] : proxies_[A])
                if (col_dirty[B]) col_dirty2[A] = 1;
        col_dirty.swap(col_dirty2);

        // Destinations: their identity, their attach switch's column, their
        // chain (and the rows and columns of its switches).
        std::vector<std::uint32_t> old_target(static_cast<std::size_t>(lids_.top().value()) + 1, no_switch);
        for (std::uint32_t oi = 0; oi < old.targets.size(); ++oi)
            if (old.targets[oi].lid.value() < old_target.size()) old_target[old.targets[oi].lid.value()] = oi;
        std::vector<std::size_t> dirty_targets;
        std::vector<char> is_target(old_target.size(), 0);
        for (std::size_t i = 0; i < targets_.size(); ++i) {
            const auto& tg = targets_[i];
            is_target[tg.lid.value()] = 1;
            const auto oi = old_target[tg.lid.value()];
            bool dirty = oi == no_switch || col_dirty[tg.attach];
            if (!dirty) {
                const auto& ot = old.targets[oi];
                dirty = ot.attach != to_old[tg.attach] || ot.port != tg.port || ot.j != tg.j;
            }
            for (unsigned l = 1; l <= h_ && !dirty; ++l) {
                const auto c = chain_node_[l][i];
                const auto oc = old.chain_node[l][oi];
                if (c == no_switch || oc == no_switch) {
                    dirty = (c == no_switch) != (oc == no_switch);
                    continue;
                }
                // A switch one level up reads the chain switch c's column of
                // down() and c's up cables (route_toward); no switch reads the
                // top's.
                dirty = to_old[c] != oc || chain_port_[l][i] != old.chain_port[l][oi] ||
                        (l < h_ && (row_dirty[c] || down_dirty[c]));
            }
            if (dirty) dirty_targets.push_back(i);
        }
        // LIDs routed last time and no destination now: no route, as a full run.
        std::vector<Lid> dropped;
        for (const auto& ot : old.targets)
            if (ot.lid.value() >= is_target.size() || !is_target[ot.lid.value()]) dropped.push_back(ot.lid);
        // Columns decided again: the destinations above, the dropped LIDs,
        // and assigned LIDs that are no D-Mod-K destination (no route from
        // D-Mod-K, Algorithm 2's only) or were not assigned last time.
        const std::size_t size = static_cast<std::size_t>(lids_.top().value()) + 1;
        const auto dest = dest_lids(lids_), old_dest = dest_lids(old_lids);
        lid_redone_.assign(size, 0);
        for (auto i : dirty_targets) lid_redone_[targets_[i].lid.value()] = 1;
        for (auto lid : dropped)
            if (lid.value() < size) lid_redone_[lid.value()] = 1;
        std::vector<Lid> cleared; // set to D-Mod-K's "no route" in every kept row
        for (std::size_t lid = 1; lid < size; ++lid) {
            const bool was = lid < old_dest.size() && old_dest[lid];
            if ((dest[lid] && !is_target[lid]) || (dest[lid] != 0) != was) {
                lid_redone_[lid] = 1;
                if (!is_target[lid]) cleared.push_back(Lid(static_cast<std::uint16_t>(lid)));
            }
        }
        for (auto lid : dropped)
            if (lid.value() < size) cleared.push_back(lid);
        std::vector<Lid> redone_lids; // sorted
        for (std::size_t lid = 1; lid < size; ++lid)
            if (lid_redone_[lid] && dest[lid]) redone_lids.push_back(Lid(static_cast<std::uint16_t>(lid)));

        RoutingTables out;
        out.engine = engine;
        out.linear_fdb_top = lids_.top();
        std::vector<std::vector<std::uint8_t>*> rows(S_);
        for (std::uint32_t s = 0; s < S_; ++s) rows[s] = &out.lfts[t_.switches[s]].port;
        std::size_t rows_redone = 0;
        for (auto d : row_dirty) rows_redone += d != 0;
        // The holes of this run, row by row: a kept row's are the last run's
        // outside the columns decided again, and those columns' empty
        // entries; a row decided again is scanned.
        std::vector<std::vector<Lid>> row_holes(S_);
        common::parallel_for(S_, S_ * size < 1000000 ? 1 : 0, [&](std::size_t index, unsigned) {
            const auto s = static_cast<std::uint32_t>(index);
            auto& row = *rows[s];
            auto& holes = row_holes[s];
            if (row_dirty[s]) {
                row.assign(size, none);
                if (t_.in_tree(s)) {
                    for (std::size_t i = 0; i < targets_.size(); ++i) row[targets_[i].lid.value()] = decide(s, i);
                    for (std::size_t lid = 1; lid < size; ++lid)
                        if (row[lid] == none && dest[lid]) holes.push_back(Lid(static_cast<std::uint16_t>(lid)));
                } else {
                    own_lids_only(s, row);
                }
                return;
            }
            const auto os = to_old[s];
            row = old_tables.lfts.at(old.switch_nodes[os]).port;
            row.resize(size, none);
            holes.reserve(old.holes[os].size() + redone_lids.size());
            for (const auto lid : old.holes[os]) {
                if (lid.value() >= size || lid_redone_[lid.value()]) continue;
                if (!keep_alg2) row[lid.value()] = none;
                holes.push_back(lid);
            }
            if (!keep_alg2)
                for (const auto& [ps, lid, port] : old.pinned)
                    if (ps == os && lid.value() < size) row[lid.value()] = port;
            for (auto lid : cleared) row[lid.value()] = none;
            for (auto i : dirty_targets) row[targets_[i].lid.value()] = decide(s, i);
            const auto kept = holes.size();
            for (auto lid : redone_lids)
                if (row[lid.value()] == none) holes.push_back(lid);
            std::inplace_merge(holes.begin(), holes.begin() + static_cast<std::ptrdiff_t>(kept), holes.end());
        });
        st_->holes = std::move(row_holes);
        holes_ready_ = true;
        row_redone_ = std::move(row_dirty);
        to_old_ = std::move(to_old);
        stats = std::to_string(rows_redone) + " of " + std::to_string(S_) + " switch rows and " +
                std::to_string(dirty_targets.size()) + " of " + std::to_string(targets_.size()) +
                " destination LIDs re-decided";
        return out;
    }

    // What run_after re-decided (DmodkRun).
    std::vector<char> row_redone_, lid_redone_;
    std::vector<std::uint32_t> to_old_;

private:
    // Per LID (index), whether some port has it: the destinations sftree routes.
    static std::vector<char> dest_lids(const lidassign::LidMap& lids)
    {
        std::vector<char> out(static_cast<std::size_t>(lids.top().value()) + 1, 0);
        for (const auto& [port, pl] : lids.entries())
            for (std::uint16_t o = 0; o < pl.count(); ++o)
                if (static_cast<std::size_t>(pl.base.value()) + o < out.size()) out[pl.base.value() + o] = 1;
        return out;
    }

    void own_lids_only(std::uint32_t s, std::vector<std::uint8_t>& row) const
    {
        if (auto own = lids_.lids_of(topology::PortRef{t_.switches[s], PortNum(0)}))
            for (std::uint16_t o = 0; o < own->count(); ++o) row[own->base.value() + o] = 0;
    }

    // What a row's entries depend on besides the destination's column and
    // chain (dmodk_state.h): level, up-port slots, parent digits and cables,
    // every neighbour by GUID.
    void sign_rows()
    {
        st_->row_sig.assign(S_, {});
        constexpr std::uint64_t sep = ~0ull;
        auto guid = [&](std::uint32_t x) { return x == no_switch ? sep - 1 : f_.node(t_.switches[x]).guid.value(); };
        for (std::uint32_t s = 0; s < S_; ++s) {
            auto& sig = st_->row_sig[s];
            sig.push_back(t_.level[s]);
            if (s < slot_port_.size())
                for (auto port : slot_port_[s]) sig.push_back(port);
            sig.push_back(sep);
            if (s < digit_parent_.size())
                for (std::size_t x = 0; x < digit_parent_[s].size(); ++x) {
                    sig.push_back(guid(digit_parent_[s][x]));
                    for (auto port : digit_ports_[s][x]) sig.push_back(port);
                    sig.push_back(sep);
                }
            for (const auto* list : {&t_.up[s], &t_.down[s], &t_.sibling[s]}) {
                for (const auto& l : *list) {
                    sig.push_back(l.port | (std::uint64_t{l.peer_port} << 8));
                    sig.push_back(guid(l.peer));
                }
                sig.push_back(sep);
            }
        }
    }

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
            // A re-route takes the kept digits below; one parent without a
            // kept digit sends it to a full run that numbers afresh, so the
            // search (30 ms at 27 648 hosts) would be thrown away.
            if (kept_digits_) continue;
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
        // A re-route keeps the digits of the run it starts from (dmodk_state.h):
        // a lost top switch would otherwise shift the digits of every parent
        // after it and move routes that never used it.
        for (std::uint32_t P = 0; P < S_; ++P) {
            if (t_.level[P] < 2) continue;
            const auto g = guid(P);
            if (kept_digits_) {
                if (auto it = kept_digits_->find(g); it != kept_digits_->end())
                    digit[P] = it->second;
                else
                    unnumbered_ = true;
            }
            st_->digits[g] = digit[P];
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
    std::shared_ptr<DmodkState> st_ = std::make_shared<DmodkState>();
    const std::unordered_map<Guid, std::uint32_t>* kept_digits_ = nullptr;
    bool unnumbered_ = false; // a parent without a kept digit (prepare(kept))
    bool holes_ready_ = false; // run_after made st_->holes
    std::vector<std::uint32_t>&w_ = st_->w, &p_ = st_->p;
    std::vector<std::uint32_t> up_count_;
    std::vector<std::uint64_t> prodw_;
    std::vector<std::uint32_t> min_top_;
    std::vector<std::vector<std::uint8_t>> slot_port_;
    std::vector<std::vector<std::uint32_t>> digit_parent_;
    std::vector<std::vector<std::vector<std::uint8_t>>> digit_ports_;
    std::vector<std::vector<std::uint32_t>> peer_; // [switch][port] -> switch
    BitRows &down_ = st_->down, &reach_ = st_->reach;
    std::vector<std::uint8_t>& first_down_ = st_->first_down;
    std::vector<std::vector<std::pair<std::uint32_t, std::uint8_t>>>& proxies_ = st_->proxies;
    std::vector<Target>& targets_ = st_->targets;
    std::vector<std::vector<std::uint16_t>> q_;                     // [level][target]
    std::vector<std::vector<std::uint32_t>>& chain_node_ = st_->chain_node; // [level][target]
    std::vector<std::vector<std::uint8_t>>& chain_port_ = st_->chain_port;  // [level][target]
};

} // namespace

std::variant<DmodkRun, Refusal> run_dmodk(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                          const Options& options, const std::string& engine_name,
                                          const Previous* previous)
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
    const auto* old = previous ? dynamic_cast<const DmodkState*>(previous->state) : nullptr;
    std::optional<Dmodk> d(std::in_place, fabric, lids, run.tree, run.order);
    d->prepare(old ? &old->digits : nullptr);
    std::optional<RoutingTables> tables;
    std::string why = previous && !old ? "no D-Mod-K state kept" : "", stats;
    const bool keep_alg2 = old && old->alg2_kept && old->pinned.empty();
    if (old) tables = d->run_after(engine_name, *old, previous->tables, previous->lids, keep_alg2, why, stats);
    if (tables) {
        run.incremental = true;
        run.alg2_kept = keep_alg2;
        run.row_redone = std::move(d->row_redone_);
        run.lid_redone = std::move(d->lid_redone_);
        run.to_old = std::move(d->to_old_);
        run.how = "incremental (" + previous->delta.summary() + "; " + stats + ")";
    } else {
        // A full run numbers the tree afresh.
        if (old) {
            d.emplace(fabric, lids, run.tree, run.order);
            d->prepare();
        }
        tables = d->run(engine_name);
        run.how = why.empty() ? "full run" : "full run (" + why + ")";
    }
    run.state = d->keep(*tables);
    run.tables = std::move(*tables);
    return run;
}

EngineRun FtreeEngine::compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                     const Options& options, const Previous* previous) const
{
    // D-Mod-K, then sftree's Algorithm 2 for the entries it left empty (see
    // dmodk.h, "CA<->switch"); only CA pairs and CA<->switch are promised,
    // so the subtree root need not avoid the SM's leaf: the same tables
    // whichever SM (master or standby, on any leaf) computes them.
    auto r = run_sftree(fabric, lids, options, name(), /*avoid_sm=*/false, previous);
    if (auto* refusal = std::get_if<Refusal>(&r)) return EngineRun{*refusal, nullptr, "", false};
    auto& run = std::get<SftreeResult>(r);
    if (auto why = reverse_hops_refusal(fabric, lids, run.tree, run.tables, options))
        return EngineRun{Refusal{name(), *why}, nullptr, "", false};
    auto tables = std::move(run.tables);
    tables.switch_to_switch = false;
    return EngineRun{std::move(tables), std::move(run.state), std::move(run.how), run.incremental};
}

Result FtreeEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                            const Options& options) const
{
    return compute_after(fabric, lids, options, nullptr).result;
}

} // namespace ibsm::routing::fattree
