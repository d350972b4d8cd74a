// sFtree: seed 000 Algorithms 1 and 2 on top of D-Mod-K, with gateways for
// multi-core trees (see sftree.h, step 2a).
#include "routing/fattree/sftree.h"

#include "common/parallel_for.h"
#include "routing/fattree/reverse_hops.h"

#include <algorithm>
#include <deque>
#include <optional>

namespace ibsm::routing::fattree {

namespace {

constexpr std::uint8_t unknown_hops = 0xFF;

// What a re-route starts from (see "Re-route" below): the last run's
// routing and state, and what D-Mod-K decided again.
struct Reuse {
    const Previous& previous;
    const DmodkState& old;
    const DmodkRun& run;
};

class Sftree {
public:
    // `holes`: D-Mod-K's empty entries per switch (dmodk_state.h).
    Sftree(const topology::Fabric& f, const lidassign::LidMap& lids, SftreeResult& r, const CaOrder& order,
           const std::vector<std::vector<Lid>>& holes)
        : f_(f), lids_(lids), r_(r), t_(r.tree), order_(order), S_(t_.size()), holes_(holes)
    {
        for (const auto& h : holes_) hole_count_ += h.size();
        rows_.resize(S_, nullptr);
        for (std::uint32_t s = 0; s < S_; ++s) rows_[s] = &r_.tables.lfts.at(t_.switches[s]).port;
        for (const auto& [port, pl] : lids_.entries())
            for (std::uint16_t o = 0; o < pl.count(); ++o)
                dests_.push_back(Lid(static_cast<std::uint16_t>(pl.base.value() + o)));
        std::sort(dests_.begin(), dests_.end());
        hops_.resize(static_cast<std::size_t>(lids_.top().value()) + 1);
        passes_.assign(S_, 0);
    }

    // Algorithms 1 and 2; with `reuse` (a re-route whose kept rows still
    // hold the last Algorithm 2 entries) only what the delta changed.
    void run(Guid sm_port_guid, bool avoid_sm, const Reuse* reuse)
    {
        root_ = select_root(avoid_sm ? sm_leaves(sm_port_guid) : std::vector<bool>(S_, false));
        if (root_ == no_switch) {
            if (reuse) clear_holes();
            return;
        }
        r_.subtree_root = t_.switches[root_];
        root_lid_ = lid_of(root_);
        auto sibs = t_.sibling[root_];
        std::sort(sibs.begin(), sibs.end(), [](auto& a, auto& b) { return a.port < b.port; });
        if (!sibs.empty()) {
            sib_ = sibs.front().peer;
            sib_port_ = sibs.front().port;
            sib_lid_ = lid_of(sib_);
        }
        const bool keep = reuse && may_keep(*reuse);
        if (reuse && !keep) clear_holes();
        plan_gateways();
        if (keep && r_.gateways.empty() && route_changed(*reuse)) {
            reused_ = reuse;
            return;
        }
        if (keep) {
            clear_holes();
            reset_alg2();
        }
        all_holes();
    }

    // For the route phase's log: what a re-route ran of Algorithm 2 and the
    // safety net.
    std::string summary() const
    {
        // A column routed again in step (2) counts its holes twice.
        return "Algorithm 2: " + std::to_string(pairs_routed_) + " pairs routed for " + std::to_string(hole_count_) +
               " holes" + (reused_ && pairs_routed_ < hole_count_ ? ", the others kept" : "") + "; credit-loop check " +
               (net_changed_only_ ? "of the changed dependencies" : hole_count_ == 0 ? "not needed" : "whole");
    }

    // Whether the next re-route may keep this run's Algorithm 2 entries, and
    // what it needs for that (dmodk_state.h).
    void remember(DmodkState& st) const
    {
        st.alg2_kept = root_ != no_switch && r_.failed.empty() && r_.gateways.empty() && r_.pinned.empty() &&
                       !withdrawn_;
        st.alg2_root = root_ == no_switch ? Guid() : f_.node(t_.switches[root_]).guid;
        st.alg2_sibling = sib_ == no_switch ? Guid() : f_.node(t_.switches[sib_]).guid;
        st.dependencies = st.alg2_kept ? dependencies_ : std::vector<std::vector<std::uint64_t>>{};
        st.alg2_passes = st.alg2_kept ? passes_ : std::vector<char>{};
    }

private:
    Lid lid_of(std::uint32_t s) const
    {
        auto l = lids_.lids_of(topology::PortRef{t_.switches[s], PortNum(0)});
        return l ? l->base : Lid();
    }

    // The switch hosting the SM: the leaf its CA port is cabled to, or the
    // switch itself when the SM runs on a switch's port 0.
    std::uint32_t leaf_of_port(Guid port_guid) const
    {
        if (port_guid.is_zero()) return no_switch;
        auto p = f_.find_port(port_guid);
        if (!p) return no_switch;
        if (f_.node(p->node).is_switch()) return t_.index_of_node[p->node.value];
        const auto& port = f_.port(*p);
        if (!port.remote || !f_.node(port.remote->node).is_switch()) return no_switch;
        return t_.index_of_node[port.remote->node.value];
    }

    // The leaves hosting an SM: the running SM's, and every leaf with a CA
    // port stating IsSM (a standby). The subtree root avoids all of them,
    // so whichever SM routes the fabric picks the same root and a takeover
    // moves no route.
    std::vector<bool> sm_leaves(Guid sm_port_guid) const
    {
        std::vector<bool> out(S_, false);
        if (const auto s = leaf_of_port(sm_port_guid); s != no_switch) out[s] = true;
        constexpr std::uint32_t cap_is_sm = 1u << 1; // PortInfo CapabilityMask IsSM
        for (auto id : f_.node_ids()) {
            const auto& node = f_.node(id);
            if (node.is_switch()) continue;
            for (const auto& port : node.ports)
                if ((port.capability_mask & cap_is_sm) && !port.guid.is_zero())
                    if (const auto s = leaf_of_port(port.guid); s != no_switch) out[s] = true;
        }
        return out;
    }

    // Algorithm 1.
    std::uint32_t select_root(const std::vector<bool>& sm_leaf)
    {
        for (auto leaf : order_.leaf_order) {
            if (sm_leaf[leaf]) continue;
            if (leaf >= holes_.size() || holes_[leaf].empty()) {
                r_.root_routes_everything = true;
                return leaf;
            }
        }
        for (auto leaf : order_.leaf_order)
            if (!sm_leaf[leaf]) return leaf;
        return order_.leaf_order.empty() ? no_switch : order_.leaf_order.front();
    }

    bool routes(std::uint32_t s, Lid dst) const { return dst && (*rows_[s])[dst.value()] != no_route; }

    // The switch behind port `port` of switch s, or no_switch.
    std::uint32_t peer_at(std::uint32_t s, std::uint8_t port) const
    {
        if (port == no_route || port == 0) return no_switch;
        const auto& ports = f_.node(t_.switches[s]).ports;
        if (port >= ports.size() || !ports[port].remote) return no_switch;
        const auto& peer = *ports[port].remote;
        return f_.node(peer.node).is_switch() ? t_.index_of_node[peer.node.value] : no_switch;
    }

    // Gateways (see sftree.h, step 2a): R's parents are grouped into classes
    // of parents whose ancestor sets overlap (union-find over "shares an
    // ancestor"); a class of two or more parents gets one gateway, the
    // parent behind R's lowest-numbered cable into the class, and that cable.
    void plan_gateways()
    {
        gateway_.assign(S_, no_switch);
        std::vector<std::uint32_t> parents;
        for (const auto& u : t_.up[root_])
            if (std::find(parents.begin(), parents.end(), u.peer) == parents.end()) parents.push_back(u.peer);
        if (parents.size() < 2) return;
        std::vector<std::uint32_t> cls(parents.size());
        for (std::uint32_t i = 0; i < cls.size(); ++i) cls[i] = i;
        auto find = [&](std::uint32_t x) {
            while (cls[x] != x) x = cls[x] = cls[cls[x]];
            return x;
        };
        std::vector<std::uint32_t> owner(S_, no_switch); // ancestor -> first parent index below it
        std::vector<std::uint32_t> stack;
        for (std::uint32_t i = 0; i < parents.size(); ++i) {
            stack.assign(1, parents[i]);
            while (!stack.empty()) {
                const auto a = stack.back();
                stack.pop_back();
                if (owner[a] == i) continue;
                if (owner[a] != no_switch) {
                    cls[find(owner[a])] = find(i); // shares an ancestor: one class; its ancestors are marked
                    continue;
                }
                owner[a] = i;
                for (const auto& u : t_.up[a]) stack.push_back(u.peer);
            }
        }
        // Representative cable per class: R's lowest port into it.
        std::vector<std::uint8_t> best_port(parents.size(), no_route);
        std::vector<std::uint32_t> members(parents.size(), 0);
        for (std::uint32_t i = 0; i < parents.size(); ++i) ++members[find(i)];
        for (const auto& u : t_.up[root_]) {
            const auto at = std::find(parents.begin(), parents.end(), u.peer);
            const auto i = static_cast<std::uint32_t>(at - parents.begin());
            auto& b = best_port[find(i)];
            if (b == no_route || u.port < b) b = u.port;
        }
        gateway_port_.assign(S_, no_route);
        for (std::uint32_t i = 0; i < parents.size(); ++i) {
            const auto c = find(i);
            if (members[c] < 2) continue; // a class of one: the paper's case, nothing to pin
            gateway_[parents[i]] = peer_at(root_, best_port[c]);
            gateway_port_[parents[i]] = best_port[c];
        }
        for (std::uint32_t i = 0; i < parents.size(); ++i) {
            const auto g = gateway_[parents[i]];
            if (g == no_switch) continue;
            if (std::find(r_.gateways.begin(), r_.gateways.end(), t_.switches[g]) == r_.gateways.end())
                r_.gateways.push_back(t_.switches[g]);
        }
        if (r_.gateways.empty()) return;
        gateway_lid_.assign(S_, Lid());
        for (std::uint32_t s = 0; s < S_; ++s)
            if (gateway_[s] != no_switch) gateway_lid_[s] = lid_of(gateway_[s]);
        descent_.assign(S_, unplanned);
        pin_root_entries();
    }

    // Step 2a: R's own entries for switch LIDs leave through the gateway of
    // the class they would leave through (CA LIDs are not touched, so every
    // CA->CA route stays ftree's). Only where the gateway routes the LID
    // itself without coming back down to R.
    void pin_root_entries()
    {
        auto& row = *rows_[root_];
        for (auto dst : dests_) {
            auto owner = lids_.port_of(dst);
            if (!owner || !f_.node(owner->node).is_switch() || owner->node == t_.switches[root_]) continue;
            const auto port = row[dst.value()];
            const auto parent = peer_at(root_, port);
            if (parent == no_switch || gateway_[parent] == no_switch || port == gateway_port_[parent]) continue;
            const auto g = gateway_[parent];
            const auto next = (*rows_[g])[dst.value()];
            if (next == no_route || (next != 0 && peer_at(g, next) == root_)) continue;
            r_.pinned.emplace_back(root_, dst, row[dst.value()]);
            row[dst.value()] = gateway_port_[parent];
            ++r_.root_entries_pinned;
        }
    }

    // The gateway src descends to R through: that of the parent its own
    // route toward R's LID enters R from, or no_switch (paper's rule).
    std::uint32_t descent(std::uint32_t src)
    {
        if (descent_.empty()) return no_switch;
        auto& d = descent_[src];
        if (d != unplanned) return d;
        d = no_switch;
        std::uint32_t cur = src;
        for (std::size_t steps = 0; steps <= S_ && cur != root_; ++steps) {
            const auto next = peer_at(cur, (*rows_[cur])[root_lid_.value()]);
            if (next == no_switch) break;
            if (next == root_) d = gateway_[cur];
            cur = next;
        }
        return d;
    }

    // Algorithm 2 lines 1-2 and 6-13, without the hop bookkeeping: the new
    // entry of src toward dst. Entries written are logged in `written_`.
    bool assign_entry(std::uint32_t src, Lid dst)
    {
        auto& row = *rows_[src];
        if (routes(root_, dst) && root_lid_ && routes(src, root_lid_)) {
            // Step 2a: descend to R through src's gateway, where it has one.
            if (const auto g = descent(src); g != no_switch && g != src) {
                const Lid gl = gateway_lid_[g];
                if (routes(src, gl)) {
                    write(src, dst, row[gl.value()]);
                    return true;
                }
            }
            write(src, dst, row[root_lid_.value()]);
            return true;
        }
        if (sib_ != no_switch && sib_lid_ && (src == root_ || routes(src, sib_lid_)) && routes(sib_, dst)) {
            if (!routes(root_, dst)) {
                write(root_, dst, sib_port_);
                if (!get_path_length(sib_, dst)) return false;
                hops_for(dst)[root_] = static_cast<std::uint8_t>(hops_for(dst)[sib_] + 1);
            }
            if (src != root_) write(src, dst, row[sib_lid_.value()]);
            return true;
        }
        return false;
    }

    void write(std::uint32_t s, Lid dst, std::uint8_t port)
    {
        written_.push_back(s);
        (*rows_[s])[dst.value()] = port;
    }

    // Algorithm 2 for one pair; on failure every entry it wrote is undone, so
    // the tables never get a forwarding loop.
    void route_pair(std::uint32_t src, Lid dst)
    {
        ++pairs_routed_;
        written_.clear();
        if (assign_entry(src, dst) && get_path_length(src, dst)) {
            auto& log = alg2_log(dst);
            log.insert(log.end(), written_.begin(), written_.end());
            return;
        }
        for (auto s : written_) (*rows_[s])[dst.value()] = no_route;
        auto& h = hops_for(dst);
        for (auto s : written_) h[s] = unknown_hops;
        r_.failed.emplace_back(t_.switches[src], dst);
    }

    std::vector<std::uint8_t>& hops_for(Lid dst)
    {
        if (hops_.size() <= dst.value()) hops_.resize(static_cast<std::size_t>(dst.value()) + 1);
        auto& h = hops_[dst.value()];
        if (!h.empty()) return h;
        h.assign(S_, unknown_hops);
        auto owner = lids_.port_of(dst);
        if (owner) {
            if (f_.node(owner->node).is_switch()) {
                auto s = t_.index_of_node[owner->node.value];
                if (s != no_switch) h[s] = 0;
            } else if (const auto& p = f_.port(*owner); p.remote && f_.node(p.remote->node).is_switch()) {
                auto s = t_.index_of_node[p.remote->node.value];
                if (s != no_switch) h[s] = 1;
            }
        }
        return h;
    }

    // get_path_length: walk to the first switch with a known hop count,
    // then write the counts back along the walk. False on a loop/dead end.
    bool get_path_length(std::uint32_t src, Lid dst)
    {
        auto& h = hops_for(dst);
        // A scratch walk per depth (assign_entry may walk the sibling's path
        // from inside this walk): no allocation per pair.
        if (walks_.size() <= walk_depth_) walks_.resize(walk_depth_ + 1);
        auto& walk_ = walks_[walk_depth_];
        walk_.clear();
        ++walk_depth_;
        struct Leave {
            std::size_t& depth;
            ~Leave() { --depth; }
        } leave{walk_depth_};
        std::uint32_t cur = src;
        while (h[cur] == unknown_hops) {
            if (walk_.size() > S_) return false;
            walk_.push_back(cur);
            if ((*rows_[cur])[dst.value()] == no_route && !assign_entry(cur, dst)) return false;
            const auto port = (*rows_[cur])[dst.value()];
            if (port == no_route || port == 0) return false;
            const auto& p = f_.node(t_.switches[cur]).ports[port];
            if (!p.remote || !f_.node(p.remote->node).is_switch()) return false;
            const auto next = t_.index_of_node[p.remote->node.value];
            if (next == no_switch) return false;
            if (std::find(walk_.begin(), walk_.end(), next) != walk_.end()) return false;
            cur = next;
        }
        unsigned hops = h[cur];
        for (auto it = walk_.rbegin(); it != walk_.rend(); ++it) h[*it] = static_cast<std::uint8_t>(++hops);
        // The path from here on passed these switches (and the rest of it,
        // from cur, was marked by the walk that made cur's count known).
        for (std::size_t k = 1; k < walk_.size(); ++k) passes_[walk_[k]] = 1;
        passes_[cur] = 1;
        return true;
    }

    // Every hole gets Algorithm 2, switch by switch in LID order (the
    // paper's loop over src and dst, skipping what a walk already filled).
    void all_holes()
    {
        for_each_hole([&](std::uint32_t src, Lid dst) {
            if ((*rows_[src])[dst.value()] == no_route) route_pair(src, dst);
        });
    }

    // Back to D-Mod-K's tables: every hole empty.
    void clear_holes()
    {
        for_each_hole([&](std::uint32_t src, Lid dst) { (*rows_[src])[dst.value()] = no_route; });
    }

    template <class F> void for_each_hole(F f) const
    {
        for (std::uint32_t s = 0; s < holes_.size(); ++s)
            for (auto lid : holes_[s]) f(s, lid);
    }

    void reset_alg2()
    {
        passes_.assign(S_, 0);
        pairs_routed_ = 0;
        r_.failed.clear();
        alg2_.clear();
        alg2_log_.clear();
        for (auto& h : hops_) h.clear();
    }

    // ---- Re-route ----------------------------------------------------
    // Algorithm 2's entry for (src, dst) (assign_entry) is a function of the
    // subtree root and its sibling, whether the root (or sibling) routes
    // dst, and src's own entry toward the root's (or sibling's) LID; the
    // walk of get_path_length only checks that the path it makes reaches
    // dst. So when Algorithm 1 picks the same root and sibling, no gateway
    // is planned (step 2a) and neither the root's nor the sibling's row was
    // decided again, the last run's entry at a hole is the one a full run
    // writes unless (1) D-Mod-K decided its row or column again, or its row
    // leads toward the root's (sibling's) LID elsewhere than last time;
    // and its path is the last one unless (2) it passes a switch of (1)
    // that routes dst elsewhere now (another port, or the same port to
    // another switch or port). Routed again: every hole of (1), then every
    // hole of the columns of (2). A failed pair makes it a full Algorithm
    // 2 (the order of the walks matters only when one fails and is undone).
    bool may_keep(const Reuse& u) const
    {
        const auto& run = u.run;
        auto guid = [&](std::uint32_t s) { return s == no_switch ? Guid() : f_.node(t_.switches[s]).guid; };
        if (!u.old.alg2_kept || guid(root_) != u.old.alg2_root || guid(sib_) != u.old.alg2_sibling) return false;
        if (!r_.root_routes_everything || !root_lid_) return false;
        if (run.row_redone[root_] || (sib_ != no_switch && run.row_redone[sib_])) return false;
        return sib_ == no_switch || sib_lid_;
    }

    // Where an entry leads: the switch by GUID and its port.
    static std::pair<Guid, std::uint8_t> peer_of(const topology::Fabric& f, const topology::Node& n,
                                                 std::uint8_t port)
    {
        if (port == no_route || port == 0 || port >= n.ports.size() || !n.ports[port].remote) return {};
        const auto& r = *n.ports[port].remote;
        return {f.node(r.node).guid, static_cast<std::uint8_t>(r.port.value())};
    }

    // Whether switch x's entry toward `lid` leads elsewhere than last time.
    bool entry_changed(const Reuse& u, std::uint32_t x, Lid lid) const
    {
        if (!lid) return false;
        const auto ox = u.run.to_old[x];
        if (ox == no_switch) return true;
        const auto old_node = u.old.switch_nodes[ox];
        const auto it = u.previous.tables.lfts.find(old_node);
        const auto a = (*rows_[x])[lid.value()];
        const auto b = it == u.previous.tables.lfts.end() ? no_route : it->second.at(lid);
        return a != b || peer_of(f_, f_.node(t_.switches[x]), a) != peer_of(u.previous.fabric, u.previous.fabric.node(old_node), b);
    }

    // f(dst) for every entry of row x (decided again) that routes dst
    // elsewhere than the last tables did: another port, or the same port to
    // another switch or port; every entry of a new switch. Columns decided
    // again are skipped (their callers take them whole).
    template <class F> void for_changed(const Reuse& u, std::uint32_t x, F f) const
    {
        const auto& run = u.run;
        auto col_redone = [&](Lid l) { return l.value() < run.lid_redone.size() && run.lid_redone[l.value()]; };
        const auto& row = *rows_[x];
        if (run.to_old[x] == no_switch) {
            for (auto dst : dests_)
                if (!col_redone(dst)) f(dst);
            return;
        }
        const auto old_node = u.old.switch_nodes[run.to_old[x]];
        const auto it = u.previous.tables.lfts.find(old_node);
        const auto& on = u.previous.fabric.node(old_node);
        const auto& nn = f_.node(t_.switches[x]);
        for (auto dst : dests_) {
            if (col_redone(dst)) continue;
            const auto a = row[dst.value()];
            const auto b = it == u.previous.tables.lfts.end() ? no_route : it->second.at(dst);
            if (a != b || peer_of(f_, nn, a) != peer_of(u.previous.fabric, on, b)) f(dst);
        }
    }

    // Steps (1) and (2) above; false (with the kept entries still in place)
    // when a pair failed.
    bool route_changed(const Reuse& u)
    {
        const auto& run = u.run;
        const auto& lid_redone = run.lid_redone;
        auto col_redone = [&](Lid l) { return l.value() < lid_redone.size() && lid_redone[l.value()]; };
        // Rows whose Algorithm 2 entries may change: decided again by D-Mod-K,
        // or leading toward the root (or its sibling) elsewhere than last time.
        // What the kept paths pass (the last runs' walks, dmodk_state.h).
        std::vector<char> kept_passes(S_, 0);
        if (u.old.alg2_passes.size() == u.old.switch_nodes.size())
            for (std::uint32_t x = 0; x < S_; ++x)
                if (run.to_old[x] != no_switch) kept_passes[x] = u.old.alg2_passes[run.to_old[x]];
                else kept_passes[x] = 1; // conservative (only entered through a row of (1))
        else
            kept_passes.assign(S_, 1);
        passes_ = kept_passes;
        src_changed_.assign(S_, 0);
        for (std::uint32_t x = 0; x < S_; ++x)
            src_changed_[x] = t_.in_tree(x) && (run.row_redone[x] || entry_changed(u, x, root_lid_) ||
                                                (sib_ != no_switch && entry_changed(u, x, sib_lid_)));
        // Most holes to route again (a lost top above the root's own
        // chain moves the root's route at most switches): one whole
        // Algorithm 2 is cheaper than steps 1 and 2.
        std::size_t todo = 0;
        for (std::uint32_t src = 0; src < holes_.size(); ++src)
            for (auto dst : holes_[src]) todo += src_changed_[src] || col_redone(dst);
        if (2 * todo > hole_count_) return false;
        for (std::uint32_t src = 0; src < holes_.size(); ++src)
            for (auto dst : holes_[src])
                if ((src_changed_[src] || col_redone(dst)) && (*rows_[src])[dst.value()] == no_route) {
                    route_pair(src, dst);
                    if (!r_.failed.empty()) return false;
                }
        // Step 2: the columns some row of (1) that a kept path passes now
        // routes differently (a new switch is entered only through such a
        // row; a row no kept path passes after its first hop is only the
        // start of its own paths, all routed again in step 1).
        col_changed_.assign(hops_.size(), 0);
        for (std::uint32_t s = 0; s < S_; ++s)
            if (src_changed_[s] && run.to_old[s] != no_switch && kept_passes[s])
                for_changed(u, s, [&](Lid dst) { col_changed_[dst.value()] = 1; });
        for_each_hole([&](std::uint32_t, Lid dst) { todo += col_changed_[dst.value()]; });
        if (2 * todo > hole_count_) return false;
        for_each_hole([&](std::uint32_t src, Lid dst) {
            if (col_changed_[dst.value()]) (*rows_[src])[dst.value()] = no_route;
        });
        for (std::size_t lid = 0; lid < col_changed_.size(); ++lid)
            if (col_changed_[lid]) {
                hops_[lid].clear();
                alg2_erase(Lid(static_cast<std::uint16_t>(lid)));
            }
        for (std::uint32_t src = 0; src < holes_.size(); ++src)
            for (auto dst : holes_[src])
                if (col_changed_[dst.value()] && (*rows_[src])[dst.value()] == no_route) {
                    route_pair(src, dst);
                    if (!r_.failed.empty()) return false;
                }
        return true;
    }

    const topology::Fabric& f_;
    const lidassign::LidMap& lids_;
    SftreeResult& r_;
    const FatTree& t_;
    const CaOrder& order_;
    std::size_t S_;
    const std::vector<std::vector<Lid>>& holes_;
    std::size_t hole_count_ = 0;
    const Reuse* reused_ = nullptr;       // run() kept the last Algorithm 2 entries
    std::size_t pairs_routed_ = 0;        // route_pair calls (the walks Algorithm 2 made)
    bool net_changed_only_ = false;       // the safety net checked only what changed
    std::vector<char> col_changed_;       // by LID: step (2) of the re-route
    std::vector<char> src_changed_;       // by switch: step (1) of the re-route
    std::vector<char> passes_;            // by switch: some Algorithm 2 path passes it after its first hop
    bool withdrawn_ = false;
    std::vector<std::vector<std::uint64_t>> dependencies_; // of the final tables (find_cycle)
    std::vector<std::vector<std::uint8_t>*> rows_;
    std::vector<Lid> dests_;
    std::uint32_t root_ = no_switch, sib_ = no_switch;
    std::uint8_t sib_port_ = 0;
    Lid root_lid_, sib_lid_;
    std::vector<std::uint32_t> written_;
    std::vector<std::vector<std::uint8_t>> hops_; // by LID, empty = not touched
    static constexpr std::uint32_t unplanned = no_switch - 1;
    std::vector<std::uint32_t> gateway_;    // R's parent -> its class's gateway, else no_switch
    std::vector<std::uint8_t> gateway_port_; // R's parent -> R's cable to the gateway
    std::vector<Lid> gateway_lid_;          // gateway_lid_[gateway_[p]]: the gateway's LID
    std::vector<std::uint32_t> descent_;    // per source: gateway it descends through (memo)

public:
    // The hop counts of the LIDs Algorithm 2 kept entries for.
    void publish_hops()
    {
        for (auto& [dst, list] : alg2_)
            if (dst.value() < hops_.size() && !hops_[dst.value()].empty())
                r_.hops.emplace(dst, std::move(hops_[dst.value()]));
    }

    // Safety net for seed 000 §5 on irregular trees: the proof assumes no
    // up->down path runs through a subtree channel into another U-turn,
    // which a degraded tree can violate. The channel dependency graph of
    // all routes (every switch a source, which covers CA traffic) is built;
    // while it has a cycle, the Algorithm 2 entries of the destinations that
    // make one of the cycle's non-up*/down* turns are withdrawn and their
    // pairs reported as failed. Complete trees never get here.
    void break_credit_loops()
    {
        build_channels();
        if (reused_) {
            if (acyclic_after(*reused_)) return;
            // A cycle: decide as a full run does, from D-Mod-K's tables.
            reused_ = nullptr;
            clear_holes();
            reset_alg2();
            all_holes();
        }
        for (int round = 0; round < 256 && !alg2_.empty(); ++round) {
            auto cycle = find_cycle();
            if (cycle.empty()) return;
            std::vector<Lid> blamed;
            for (auto [x, in, out] : cycle) {
                if (legal_turn(x, in, out)) continue;
                for (auto& [dst, list] : alg2_) {
                    const auto& row = *rows_[x];
                    if (row[dst.value()] != out) continue;
                    const auto u = peer_[x][in];
                    const auto back = f_.node(t_.switches[x]).ports[in].remote->port.value();
                    if ((*rows_[u])[dst.value()] == back) blamed.push_back(dst);
                }
            }
            if (blamed.empty())
                for (auto& [dst, list] : alg2_) blamed.push_back(dst);
            for (auto dst : blamed) withdraw(dst);
        }
        if (!alg2_.empty() && !find_cycle().empty()) {
            std::vector<Lid> all;
            for (auto& [dst, list] : alg2_) all.push_back(dst);
            for (auto dst : all) withdraw(dst);
        }
    }

private:
    struct Turn {
        std::uint32_t sw;
        std::uint8_t in, out;
    };

    // The safety net of a re-route (seed 000 §5 on the routes as they are
    // now). The last tables' dependency graph had no cycle (or this memory
    // would not be kept). A dependency (u -> x -> y toward dst) that is new
    // needs an entry that changed, at u or at x, or a cable between them
    // that changed (then both rows were decided again). Entries change only
    // in the columns D-Mod-K decided again and in the rows of (1) (any
    // other Algorithm 2 entry is the same function of the same inputs, see
    // "Re-route" above), so the last graph plus the
    // dependencies through those entries (for a changed entry at x: x's
    // own turn onward and the turns at x of its neighbours' routes) is a
    // superset of the new graph: what it keeps of removed routes only adds
    // edges. No cycle in it means none in the new graph; a cycle in it is
    // checked on the exact graph, and a real one is for the full run.
    bool acyclic_after(const Reuse& u)
    {
        if (hole_count_ == 0) {
            // No Algorithm 2 entry: D-Mod-K's up*/down* routes alone, not checked (as a full run).
            dependencies_.clear();
            return true;
        }
        const auto& old = u.old.dependencies;
        if (old.empty()) return find_cycle().empty();
        std::vector<std::vector<std::uint64_t>> bits(S_);
        for (std::uint32_t s = 0; s < S_; ++s) {
            const auto os = u.run.to_old[s];
            if (os != no_switch && os < old.size() && old[os].size() == peer_[s].size() * stride_)
                bits[s] = old[os];
            else
                bits[s].assign(peer_[s].size() * stride_, 0);
        }
        std::vector<Lid> columns;
        for (auto dst : dests_)
            if (dst.value() < u.run.lid_redone.size() && u.run.lid_redone[dst.value()]) columns.push_back(dst);
        for (std::uint32_t x = 0; x < S_; ++x)
            if (t_.in_tree(x))
                for (auto dst : columns) add_turn(bits, x, dst);
        std::vector<std::vector<std::uint32_t>> neighbours(S_);
        std::size_t rows = 0, in_tree = 0; // the rows read per changed LID, against a whole graph's
        for (std::uint32_t x = 0; x < S_; ++x) {
            in_tree += t_.in_tree(x);
            if (!src_changed_[x]) continue;
            for (auto n : peer_[x])
                if (n != no_switch && t_.in_tree(n) &&
                    std::find(neighbours[x].begin(), neighbours[x].end(), n) == neighbours[x].end())
                    neighbours[x].push_back(n);
            rows += 1 + neighbours[x].size();
        }
        if (rows > in_tree) return find_cycle().empty(); // the whole graph costs less
        for (std::uint32_t x = 0; x < S_; ++x)
            if (src_changed_[x])
                for_changed(u, x, [&](Lid dst) {
                    add_turn(bits, x, dst);
                    for (auto n : neighbours[x]) add_turn(bits, n, dst);
                });
        if (cycle_in(bits).empty()) {
            net_changed_only_ = true;
            dependencies_ = std::move(bits);
            return true;
        }
        return find_cycle().empty();
    }

    void withdraw(Lid dst)
    {
        withdrawn_ = true;
        auto it = alg2_.find(dst);
        if (it == alg2_.end()) return;
        for (auto s : it->second) {
            if ((*rows_[s])[dst.value()] == no_route) continue;
            (*rows_[s])[dst.value()] = no_route;
            r_.failed.emplace_back(t_.switches[s], dst);
        }
        if (dst.value() < hops_.size()) hops_[dst.value()].clear();
        alg2_erase(dst);
    }

    int dir(std::uint32_t from, std::uint32_t to) const
    {
        return t_.level[to] > t_.level[from] ? 1 : t_.level[to] < t_.level[from] ? -1 : 0;
    }
    // up->up, up->down, down->down, and a last horizontal hop after either.
    bool legal_turn(std::uint32_t x, std::uint8_t in, std::uint8_t out) const
    {
        const int a = dir(peer_[x][in], x), b = dir(x, peer_[x][out]);
        return a == 1 || (a == -1 && b != 1);
    }

    void build_channels()
    {
        peer_.assign(S_, {});
        peer_port_.assign(S_, {});
        words_ = 0;
        for (std::uint32_t s = 0; s < S_; ++s) {
            const auto& node = f_.node(t_.switches[s]);
            peer_[s].assign(node.ports.size(), no_switch);
            peer_port_[s].assign(node.ports.size(), 0);
            for (const auto* list : {&t_.up[s], &t_.down[s], &t_.sibling[s]})
                for (const auto& l : *list) {
                    peer_[s][l.port] = l.peer;
                    peer_port_[s][l.port] = l.peer_port;
                }
        }
        stride_ = 1 + 255 / 64;
    }

    // Dependencies per switch as [in port][out port] bits. Switch-major:
    // a switch's row and its neighbours' rows are read in LID order, which
    // stays in cache (LID-major would miss on every row). On large trees
    // (88 M turns at 27 648 hosts, 0.7 s on one core) the source switches
    // are shared over the cores, each worker setting bits in its own copy
    // (a turn is recorded at the next switch, which several sources share),
    // OR-ed together at the end: the same bits whatever the thread count.
    std::vector<std::vector<std::uint64_t>> dependencies() const
    {
        auto empty = [&] {
            std::vector<std::vector<std::uint64_t>> bits(S_);
            for (std::uint32_t s = 0; s < S_; ++s) bits[s].assign(peer_[s].size() * stride_, 0);
            return bits;
        };
        const unsigned workers = std::max(1u, std::min({common::worker_count(0), 4u, static_cast<unsigned>(S_)}));
        std::vector<std::vector<std::vector<std::uint64_t>>> part(workers);
        common::parallel_for(S_, workers, [&](std::size_t u, unsigned w) {
            if (!t_.in_tree(static_cast<std::uint32_t>(u))) return;
            if (part[w].empty()) part[w] = empty();
            for (auto dst : dests_) add_turn(part[w], static_cast<std::uint32_t>(u), dst);
        });
        std::vector<std::vector<std::uint64_t>> bits;
        for (auto& p : part) {
            if (p.empty()) continue;
            if (bits.empty()) {
                bits = std::move(p);
                continue;
            }
            for (std::uint32_t s = 0; s < S_; ++s)
                for (std::size_t i = 0; i < bits[s].size(); ++i) bits[s][i] |= p[s][i];
        }
        return bits.empty() ? empty() : bits;
    }

    // The turn at the switch after u toward dst: (its in port, its out port).
    void add_turn(std::vector<std::vector<std::uint64_t>>& bits, std::uint32_t u, Lid dst) const
    {
        const auto pu = (*rows_[u])[dst.value()];
        if (pu == no_route || pu == 0 || pu >= peer_[u].size()) return;
        const auto x = peer_[u][pu];
        if (x == no_switch) return;
        const auto out = (*rows_[x])[dst.value()];
        if (out == no_route || out == 0 || out >= peer_[x].size() || peer_[x][out] == no_switch) return;
        const auto in = peer_port_[u][pu];
        bits[x][in * stride_ + out / 64] |= 1ull << (out % 64);
    }

    // One cycle of turns in the routes' dependency graph, or empty; the
    // graph is kept for the next re-route (dependencies_).
    std::vector<Turn> find_cycle()
    {
        dependencies_ = dependencies();
        return cycle_in(dependencies_);
    }

    std::vector<Turn> cycle_in(const std::vector<std::vector<std::uint64_t>>& bits) const
    {
        // Channel (s, out port) leading to a switch; colour per channel.
        std::vector<std::vector<std::uint8_t>> colour(S_);
        for (std::uint32_t s = 0; s < S_; ++s) colour[s].assign(peer_[s].size(), 0);
        struct Frame {
            std::uint32_t s;
            std::uint8_t port; // channel s --port--> x
            unsigned next_out;
        };
        std::vector<Frame> stack;
        for (std::uint32_t s0 = 0; s0 < S_; ++s0)
            for (std::size_t p0 = 1; p0 < peer_[s0].size(); ++p0) {
                if (peer_[s0][p0] == no_switch || colour[s0][p0]) continue;
                colour[s0][p0] = 1;
                stack.push_back({s0, static_cast<std::uint8_t>(p0), 0});
                while (!stack.empty()) {
                    auto& fr = stack.back();
                    const auto x = peer_[fr.s][fr.port];
                    const auto in = f_.node(t_.switches[fr.s]).ports[fr.port].remote->port.value();
                    bool pushed = false;
                    while (fr.next_out < peer_[x].size()) {
                        const unsigned o = fr.next_out++;
                        if (!((bits[x][in * stride_ + o / 64] >> (o % 64)) & 1)) continue;
                        if (peer_[x][o] == no_switch) continue;
                        auto& c = colour[x][o];
                        if (c == 1) {
                            // Cycle: frames from channel (x, o) to the top, plus the closing turn.
                            std::vector<Turn> cycle;
                            std::size_t k = stack.size();
                            while (k > 0 && !(stack[k - 1].s == x && stack[k - 1].port == o)) --k;
                            for (std::size_t i = k == 0 ? 0 : k - 1; i + 1 < stack.size(); ++i) {
                                const auto& a = stack[i];
                                const auto& b = stack[i + 1];
                                cycle.push_back({b.s, f_.node(t_.switches[a.s]).ports[a.port].remote->port.value(), b.port});
                            }
                            cycle.push_back({x, in, static_cast<std::uint8_t>(o)});
                            return cycle;
                        }
                        if (c == 0) {
                            c = 1;
                            stack.push_back({x, static_cast<std::uint8_t>(o), 0});
                            pushed = true;
                            break;
                        }
                    }
                    if (!pushed) {
                        colour[stack.back().s][stack.back().port] = 2;
                        stack.pop_back();
                    }
                }
            }
        return {};
    }

    std::map<Lid, std::vector<std::uint32_t>> alg2_; // switches given an Algorithm 2 entry, per LID
    // alg2_'s lists by LID (map nodes stay put): a whole Algorithm 2 logs
    // 2.8 million pairs at 27 648 hosts, a map search each otherwise.
    std::vector<std::vector<std::uint32_t>*> alg2_log_;
    std::vector<std::uint32_t>& alg2_log(Lid dst)
    {
        if (alg2_log_.size() <= dst.value()) alg2_log_.resize(static_cast<std::size_t>(dst.value()) + 1, nullptr);
        auto*& list = alg2_log_[dst.value()];
        if (!list) list = &alg2_[dst];
        return *list;
    }
    void alg2_erase(Lid dst)
    {
        alg2_.erase(dst);
        if (dst.value() < alg2_log_.size()) alg2_log_[dst.value()] = nullptr;
    }
    // get_path_length's, by depth; a deque, so growing it for a nested walk
    // leaves the outer walk's vector where it is.
    std::deque<std::vector<std::uint32_t>> walks_;
    std::size_t walk_depth_ = 0;
    std::vector<std::vector<std::uint32_t>> peer_;
    std::vector<std::vector<std::uint8_t>> peer_port_; // [switch][port] -> the peer's port
    std::size_t words_ = 0, stride_ = 4;
};

} // namespace

std::variant<SftreeResult, Refusal> run_sftree(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                               const Options& options, const std::string& engine_name, bool avoid_sm,
                                               const Previous* previous)
{
    auto d = run_dmodk(fabric, lids, options, engine_name, previous);
    if (auto* refusal = std::get_if<Refusal>(&d)) return *refusal;
    auto& run = std::get<DmodkRun>(d);
    SftreeResult r;
    r.tables = std::move(run.tables);
    r.tables.switch_to_switch = true; // seed 000: every switch pair, deadlock-free with switch traffic
    r.tree = std::move(run.tree);
    // A re-route keeps the last Algorithm 2 entries and dependencies where
    // the delta cannot change them (Sftree, "Re-route").
    const auto* old = previous ? dynamic_cast<const DmodkState*>(previous->state) : nullptr;
    std::optional<Reuse> reuse;
    if (run.incremental && run.alg2_kept && old) reuse.emplace(Reuse{*previous, *old, run});
    Sftree s(fabric, lids, r, run.order, run.state->holes);
    s.run(options.sm_port_guid, avoid_sm, reuse ? &*reuse : nullptr);
    s.break_credit_loops();
    s.publish_hops();
    s.remember(*run.state);
    run.state->pinned = r.pinned;
    r.state = std::move(run.state);
    r.how = std::move(run.how);
    if (run.incremental && !r.how.empty() && r.how.back() == ')') r.how.insert(r.how.size() - 1, "; " + s.summary());
    r.incremental = run.incremental;
    return r;
}

EngineRun SftreeEngine::compute_after(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                      const Options& options, const Previous* previous) const
{
    auto r = run_sftree(fabric, lids, options, name(), /*avoid_sm=*/true, previous);
    if (auto* refusal = std::get_if<Refusal>(&r)) return EngineRun{*refusal, nullptr, "", false};
    auto& run = std::get<SftreeResult>(r);
    if (auto why = reverse_hops_refusal(fabric, lids, run.tree, run.tables, options))
        return EngineRun{Refusal{name(), *why}, nullptr, "", false};
    return EngineRun{std::move(run.tables), std::move(run.state), std::move(run.how), run.incremental};
}

Result SftreeEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                             const Options& options) const
{
    return compute_after(fabric, lids, options, nullptr).result;
}

} // namespace ibsm::routing::fattree
