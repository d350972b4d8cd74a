// The incremental gate (see incremental_gate.h).
#include "routing/incremental_gate.h"

#include "common/parallel_for.h"
#include "routing/analysis/connectivity.h"
#include "routing/analysis/forwarding.h"
#include "routing/verdict_parts.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace ibsm::routing {

namespace a = analysis;

namespace {

// How the remembered view's switches and endpoints appear in the new one.
// The new view is the old one, or the old one less some nodes that left (a
// switch, a CA): every new switch and endpoint was there before, with the
// same ports, LIDs and attachment. Anything else (a node added, a LID moved,
// a CA cabled to another switch) is for the full gate.
struct ViewMap {
    bool identity = true;                      // same indices: nothing left
    std::vector<std::int32_t> switch_of_old;   // old switch -> new, -1: left
    std::vector<std::int32_t> old_switch_of;   // new switch -> old
    std::vector<std::int32_t> endpoint_of_old; // old endpoint -> new, -1: left
    std::uint32_t lost_cas = 0, lost_switches = 0; // endpoints that left, as sources of pairs
    std::vector<std::uint32_t> lost_lids;      // their LIDs, ascending
    std::vector<std::uint32_t> also_retrace;   // LIDs whose trees the leaving changes (below)
};

std::int32_t mapped(const std::vector<std::int32_t>& to, std::int32_t i)
{
    return i < 0 ? -1 : to[static_cast<std::size_t>(i)];
}

// The map, or why the views cannot be compared. With nodes gone it also
// checks what makes the remembered graph exact without them (sources gone,
// the SL table empty so every source sends on SL 0):
// - a CA that left took its pairs and its traffic; its traffic beyond its
//   switch is still made by another CA there (the CA-traffic graph) and by
//   the switch itself (the graph with switch traffic), so only the
//   destinations of that other CA, when it is the only one left, are traced
//   again; a switch left with no CA at all is for the full gate;
// - a switch that left had no CA (they left with it, and their traffic
//   beyond it is nobody's now); the routes through it are traced again (the
//   cables to it changed); what its own traffic made beyond the next switch
//   that switch's own traffic makes too (it has a LID, same SL), and the
//   turns into that next switch from it are dropped (CdgBuilder::remap).
std::variant<ViewMap, std::string> map_views(const a::Network& old_net, const a::Network& new_net, bool sls_empty)
{
    ViewMap m;
    const std::size_t os = old_net.switch_count(), ns = new_net.switch_count();
    m.switch_of_old.assign(os, -1);
    m.old_switch_of.assign(ns, -1);
    std::unordered_map<std::uint64_t, std::int32_t> old_switch;
    for (std::size_t s = 0; s < os; ++s)
        old_switch.emplace(old_net.fabric().node(old_net.switch_node(static_cast<std::int32_t>(s))).guid.value(),
                           static_cast<std::int32_t>(s));
    for (std::size_t s = 0; s < ns; ++s) {
        const auto si = static_cast<std::int32_t>(s);
        auto it = old_switch.find(new_net.fabric().node(new_net.switch_node(si)).guid.value());
        if (it == old_switch.end() || old_net.switch_ports(it->second) != new_net.switch_ports(si))
            return std::string("the switches changed");
        m.old_switch_of[s] = it->second;
        m.switch_of_old[static_cast<std::size_t>(it->second)] = si;
        m.identity = m.identity && it->second == si;
    }
    m.identity = m.identity && os == ns;

    auto key = [](const a::Network& net, const a::Endpoint& e) {
        return (net.fabric().node(e.port.node).guid.value() << 8) | e.port.port.value();
    };
    const auto& oe = old_net.endpoints();
    const auto& ne = new_net.endpoints();
    m.endpoint_of_old.assign(oe.size(), -1);
    std::unordered_map<std::uint64_t, std::int32_t> old_endpoint;
    for (std::size_t e = 0; e < oe.size(); ++e) old_endpoint.emplace(key(old_net, oe[e]), static_cast<std::int32_t>(e));
    for (std::size_t e = 0; e < ne.size(); ++e) {
        auto it = old_endpoint.find(key(new_net, ne[e]));
        if (it == old_endpoint.end()) return std::string("the ports with LIDs changed");
        const a::Endpoint& o = oe[static_cast<std::size_t>(it->second)];
        const a::Endpoint& n = ne[e];
        if (o.is_switch != n.is_switch || o.base != n.base || o.lmc != n.lmc)
            return std::string("the ports with LIDs changed");
        if (mapped(m.switch_of_old, o.attach_switch) != n.attach_switch) return std::string("a CA moved to another switch");
        m.endpoint_of_old[static_cast<std::size_t>(it->second)] = static_cast<std::int32_t>(e);
        m.identity = m.identity && it->second == static_cast<std::int32_t>(e);
    }
    m.identity = m.identity && oe.size() == ne.size();
    if (m.identity) {
        if (old_net.lid_table_size() != new_net.lid_table_size()) return std::string("the ports with LIDs changed");
        return m;
    }
    if (!sls_empty) return std::string("a node left and the tables give SLs");

    std::vector<std::uint32_t> cas_now(ns, 0);
    std::vector<std::int32_t> a_ca_now(ns, -1);
    for (std::size_t e = 0; e < ne.size(); ++e)
        if (!ne[e].is_switch && ne[e].attach_switch >= 0) {
            ++cas_now[static_cast<std::size_t>(ne[e].attach_switch)];
            a_ca_now[static_cast<std::size_t>(ne[e].attach_switch)] = static_cast<std::int32_t>(e);
        }
    std::vector<std::uint8_t> lone(ns, 0); // switches whose CAs lost one and kept one
    for (std::size_t e = 0; e < oe.size(); ++e) {
        if (m.endpoint_of_old[e] >= 0) continue;
        const a::Endpoint& o = oe[e];
        for (std::uint32_t k = 0; k < (1u << o.lmc); ++k) m.lost_lids.push_back(o.base.value() + k);
        if (o.is_switch) {
            ++m.lost_switches;
            continue;
        }
        ++m.lost_cas;
        const std::int32_t at = mapped(m.switch_of_old, o.attach_switch);
        if (at < 0) return std::string("a CA left with its switch, or had none");
        if (cas_now[static_cast<std::size_t>(at)] == 0) return std::string("the last CA of a switch left");
        if (cas_now[static_cast<std::size_t>(at)] == 1) lone[static_cast<std::size_t>(at)] = 1;
    }
    for (std::size_t s = 0; s < os; ++s) {
        if (m.switch_of_old[s] >= 0) continue;
        const auto si = static_cast<std::int32_t>(s);
        if (old_net.switch_endpoint(si) < 0) return std::string("a switch without a LID left");
        // Its neighbours must be sources themselves (have a LID).
        for (unsigned p = 1; p <= old_net.switch_ports(si); ++p) {
            const std::int32_t c = old_net.channel_from(si, p);
            if (c < 0) continue;
            const a::Channel& ch = old_net.channel(c);
            if (ch.head_switch < 0) return std::string("a switch with CAs left");
            const std::int32_t n = m.switch_of_old[static_cast<std::size_t>(ch.head_switch)];
            if (n >= 0 && new_net.switch_endpoint(n) < 0) return std::string("a switch without a LID lost a neighbour");
        }
    }
    for (std::size_t s = 0; s < ns; ++s) {
        if (!lone[s]) continue;
        const a::Endpoint& e = ne[static_cast<std::size_t>(a_ca_now[s])];
        for (std::uint32_t k = 0; k < (1u << e.lmc); ++k) m.also_retrace.push_back(e.base.value() + k);
    }
    std::sort(m.lost_lids.begin(), m.lost_lids.end());
    return m;
}

// Where the cable on (s, port) leads, as a trace reads it: old switch o in
// the old view, new switch s in the new one.
bool same_cable(const a::Network& old_net, const a::Network& new_net, const ViewMap& m, std::int32_t o,
                std::int32_t s, unsigned port)
{
    const std::int32_t c0 = old_net.channel_from(o, port);
    const std::int32_t c1 = new_net.channel_from(s, port);
    if (c0 < 0 || c1 < 0) return c0 < 0 && c1 < 0;
    const a::Channel& x = old_net.channel(c0);
    const a::Channel& y = new_net.channel(c1);
    if (m.identity) return x.head_switch == y.head_switch && x.head_endpoint == y.head_endpoint && x.head.port == y.head.port;
    const std::int32_t hs = x.head_switch < 0 ? -1 : m.switch_of_old[static_cast<std::size_t>(x.head_switch)];
    const std::int32_t he = x.head_endpoint < 0 ? -1 : m.endpoint_of_old[static_cast<std::size_t>(x.head_endpoint)];
    if ((x.head_switch >= 0 && hs < 0) || (x.head_endpoint >= 0 && he < 0)) return false; // led to a node that left
    return hs == y.head_switch && he == y.head_endpoint && x.head.port == y.head.port;
}

// Per LID: 1 when its routes can differ between the old and the new view.
// The switches are shared over the workers, each with its own flags, OR-ed
// at the end; a switch's rows are compared as flat arrays (they stream).
std::vector<std::uint8_t> changed_destinations(const a::Network& old_net, const a::Network& new_net, const ViewMap& m,
                                               unsigned threads)
{
    const std::uint32_t lid_end = new_net.lid_table_size();
    const unsigned workers = std::max(1u, std::min<unsigned>(common::worker_count(threads),
                                                             static_cast<unsigned>(new_net.switch_count())));
    std::vector<std::vector<std::uint8_t>> flags(workers);
    common::parallel_for(new_net.switch_count(), workers, [&](std::size_t s, unsigned w) {
        const auto si = static_cast<std::int32_t>(s);
        const std::int32_t oi = m.old_switch_of[s];
        std::array<std::uint8_t, 256> moved{};
        bool any_moved = false;
        for (unsigned p = 1; p <= new_net.switch_ports(si); ++p)
            if (!same_cable(old_net, new_net, m, oi, si, p)) moved[p] = 1, any_moved = true;
        const std::uint8_t* r0 = old_net.lft_row(oi);
        const std::uint8_t* r1 = new_net.lft_row(si);
        const std::size_t n0 = std::min<std::size_t>(old_net.lft_row_size(oi), lid_end);
        const std::size_t n1 = std::min<std::size_t>(new_net.lft_row_size(si), lid_end);
        if (!any_moved && n0 == n1 && (n0 == 0 || std::equal(r0, r0 + n0, r1)))
            return; // the common case: nothing at this switch
        std::vector<std::uint8_t>& changed = flags[w];
        if (changed.empty()) changed.assign(lid_end, 0);
        const std::size_t both = std::min(n0, n1);
        if (any_moved) {
            for (std::size_t lid = 0; lid < both; ++lid)
                changed[lid] |= static_cast<std::uint8_t>((r0[lid] != r1[lid]) | moved[r0[lid]]);
        } else {
            for (std::size_t lid = 0; lid < both; ++lid) changed[lid] |= static_cast<std::uint8_t>(r0[lid] != r1[lid]);
        }
        for (std::uint32_t lid = static_cast<std::uint32_t>(both); lid < lid_end; ++lid) {
            const std::uint8_t p0 = lid < n0 ? r0[lid] : no_route, p1 = lid < n1 ? r1[lid] : no_route;
            if (p0 != p1 || moved[p0]) changed[lid] = 1;
        }
    });
    std::vector<std::uint8_t> changed(lid_end, 0);
    for (const auto& f : flags)
        if (!f.empty())
            for (std::uint32_t lid = 0; lid < lid_end; ++lid) changed[lid] |= f[lid];
    return changed;
}

std::string why_not_same_tables(const GateState& st, const RoutingTables& t, const VerifyOptions& options)
{
    const RoutingTables& old = *st.tables;
    if (t.pair_dlids || t.lids) return "per-pair path tables";
    // LinearFDBTop is not compared: the traces read the LFT rows (compared
    // entry by entry) and the table checks run afresh every time; a top
    // LID that left lowers it.
    if (t.vls_used != old.vls_used) return "the VL count changed";
    if (t.switch_to_switch != old.switch_to_switch) return "the switch-pair promise changed";
    if (options.max_vls != st.max_vls || options.vl_mask_of_sl != st.vl_masks) return "the VL masks changed";
    if (!(t.sl == old.sl)) return "the SLs changed";
    return {};
}

} // namespace

std::variant<IncrementalVerdict, std::string> verify_incremental(std::shared_ptr<const topology::Fabric> fabric,
                                                                 const lidassign::LidMap& lids,
                                                                 std::shared_ptr<const RoutingTables> tables,
                                                                 const VerifyOptions& options, GateMemory& memory)
{
    if (!memory.state) return std::string("no routing verified before");
    // Whatever happens next, the memory holds these tables or nothing.
    std::unique_ptr<GateState> st = std::move(memory.state);
    if (auto why = why_not_same_tables(*st, *tables, options); !why.empty()) return why;
    {
        // Every LID now was there before, on the same port (none new or moved).
        const auto keys = detail::lid_keys(*fabric, lids);
        std::size_t o = 0;
        for (const auto& k : keys) {
            while (o < st->lid_keys.size() && std::get<2>(st->lid_keys[o]) < std::get<2>(k)) ++o;
            if (o == st->lid_keys.size() || st->lid_keys[o] != k) return std::string("the LIDs changed");
        }
    }
    std::vector<a::PortLids> port_lids;
    for (const auto& [port, pl] : lids.entries()) port_lids.push_back(a::PortLids{port, pl.base, pl.lmc});
    std::unique_ptr<a::Network> net;
    try {
        net = std::make_unique<a::Network>(*fabric, *tables, std::move(port_lids));
    } catch (const std::invalid_argument&) {
        return std::string("the tables cannot be checked"); // the full gate says why
    }
    auto mapping = map_views(*st->net, *net, st->sls->empty());
    if (auto* why = std::get_if<std::string>(&mapping)) return *why;
    const ViewMap& m = std::get<ViewMap>(mapping);

    const std::vector<std::uint8_t> changed = changed_destinations(*st->net, *net, m, options.threads);
    IncrementalVerdict out;
    std::vector<std::uint32_t> retrace;
    std::vector<LidTally>& tallies = st->tallies;
    if (tallies.size() < net->lid_table_size()) tallies.resize(net->lid_table_size());
    std::vector<std::uint8_t> also(m.identity ? 0 : net->lid_table_size(), 0);
    for (auto lid : m.also_retrace)
        if (lid < also.size()) also[lid] = 1;
    for (std::uint32_t lid = 1; lid < net->lid_table_size(); ++lid) {
        if (net->lid_owner(lid) < 0) continue;
        ++out.destinations;
        bool again = changed[lid];
        if (!m.identity && !again) {
            // A source left: a destination some pair did not reach is traced
            // again (its example source may be the one that left, or change
            // with it); the others lose that source's pairs, all delivered.
            const LidTally& t = tallies[lid];
            for (const auto& n : t.n) again = again || n[1] || n[2];
            again = again || also[lid];
        }
        if (again) retrace.push_back(lid);
    }
    out.retraced = retrace.size() + m.lost_lids.size();
    if (static_cast<double>(out.retraced) > memory.max_retrace_share * static_cast<double>(out.destinations))
        return "routes to " + std::to_string(out.retraced) + " of " + std::to_string(out.destinations) +
               " destinations changed";

    // Old routes out on the old view, new ones in on the new view. The
    // changed LIDs go in chunks of consecutive ones over the workers; a
    // worker resolves its chunk's first hops switch by switch (LftBlock:
    // each LFT row read forward over the chunk's LID range, each switch's
    // port row in L1 meanwhile), traces them, sums its dependency changes in a delta builder and
    // writes the tallies of its own LIDs. The deltas are applied once all
    // are done (a sum, so the order of the chunks does not matter).
    // At most LftBlock::width LIDs a chunk, at least about four chunks a
    // worker when there are enough LIDs.
    const unsigned threads = common::worker_count(options.threads);
    const a::Network& old_net = *st->net;
    struct Chunks {
        std::size_t size = 0, count = 0;
        unsigned workers = 1;
    };
    auto chunks_of = [&](std::size_t n) {
        Chunks c;
        c.size = std::clamp<std::size_t>(n / (4u * threads), 8, a::LftBlock::width);
        c.count = (n + c.size - 1) / c.size;
        c.workers = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(c.count)));
        return c;
    };
    struct Worker {
        a::LftBlock block;
        a::DestinationTree tree;
        a::CdgBuilder delta;
    };
    auto workers_for = [&](const a::Network& view, const a::SlLookup& sls, unsigned n) {
        std::vector<std::unique_ptr<Worker>> ws;
        for (unsigned w = 0; w < n; ++w) {
            ws.push_back(std::make_unique<Worker>(
                Worker{a::LftBlock{}, a::DestinationTree{}, a::CdgBuilder(view, sls, tables->switch_to_switch)}));
            ws.back()->delta.enable_delta();
        }
        return ws;
    };
    if (m.identity) {
        // Same endpoints and SLs: the SL lookup of the old tables serves
        // both views, and one delta builder takes both trees.
        const Chunks ch = chunks_of(retrace.size());
        auto ws = workers_for(*net, *st->sls, ch.workers);
        std::vector<a::LftBlock> new_blocks(ch.workers);
        std::vector<a::ConnectivityCounter> conns(ch.workers, a::ConnectivityCounter(*net, nullptr, true, 1));
        common::parallel_for(ch.count, ch.workers, [&](std::size_t c, unsigned w) {
            Worker& k = *ws[w];
            const std::uint32_t* list = retrace.data() + c * ch.size;
            const auto count = static_cast<std::uint32_t>(std::min(ch.size, retrace.size() - c * ch.size));
            k.block.load(old_net, list, count);
            new_blocks[w].load(*net, list, count);
            for (std::uint32_t i = 0; i < count; ++i) {
                k.block.trace(i, k.tree);
                k.delta.remove(k.tree);
                new_blocks[w].trace(i, k.tree);
                k.delta.add(k.tree);
                conns[w].clear();
                conns[w].add(k.tree);
                tallies[list[i]] = detail::tally_of(conns[w].totals());
            }
        });
        st->cdg->rebind(*net, *st->sls);
        for (const auto& k : ws) st->cdg->apply_delta(k->delta);
    } else {
        // A node left: the old trees come out of the remembered graph in its
        // own layout (builders on the old view: its CA counts and LIDs), the
        // graph is laid out for the new view without the turns into the
        // switches from what left, and the new trees go in on the new view.
        std::vector<std::uint32_t> gone = retrace;
        gone.insert(gone.end(), m.lost_lids.begin(), m.lost_lids.end());
        std::sort(gone.begin(), gone.end());
        {
            const Chunks ch = chunks_of(gone.size());
            auto ws = workers_for(old_net, *st->sls, ch.workers);
            common::parallel_for(ch.count, ch.workers, [&](std::size_t c, unsigned w) {
                Worker& k = *ws[w];
                const std::uint32_t* list = gone.data() + c * ch.size;
                const auto count = static_cast<std::uint32_t>(std::min(ch.size, gone.size() - c * ch.size));
                k.block.load(old_net, list, count);
                for (std::uint32_t i = 0; i < count; ++i) {
                    k.block.trace(i, k.tree);
                    k.delta.remove(k.tree);
                }
            });
            for (const auto& k : ws) st->cdg->apply_delta(k->delta);
        }
        auto sls = std::make_unique<a::SlLookup>(*net, *tables,
                                                 options.vl_mask_of_sl ? &*options.vl_mask_of_sl : nullptr);
        std::vector<std::vector<std::uint8_t>> cut_in(net->switch_count());
        for (std::size_t s = 0; s < net->switch_count(); ++s) {
            const auto o = m.old_switch_of[s];
            cut_in[s].assign(net->switch_ports(static_cast<std::int32_t>(s)) + 1u, 0);
            for (unsigned p = 1; p <= old_net.switch_ports(o); ++p) {
                const std::int32_t c = old_net.channel_from(o, p);
                if (c < 0) continue;
                const a::Channel& x = old_net.channel(c);
                if ((x.head_switch >= 0 && m.switch_of_old[static_cast<std::size_t>(x.head_switch)] < 0) ||
                    (x.head_endpoint >= 0 && m.endpoint_of_old[static_cast<std::size_t>(x.head_endpoint)] < 0))
                    cut_in[s][p] = 1;
            }
        }
        st->cdg->remap(*net, *sls, m.old_switch_of, cut_in);
        st->sls = std::move(sls);
        for (auto lid : m.lost_lids)
            if (lid < tallies.size()) tallies[lid] = LidTally{};
        std::vector<std::uint8_t> again(net->lid_table_size(), 0);
        for (auto lid : retrace) again[lid] = 1;
        for (std::uint32_t lid = 1; lid < net->lid_table_size(); ++lid) {
            const std::int32_t owner = net->lid_owner(lid);
            if (owner < 0 || again[lid]) continue;
            const std::size_t to = net->endpoint(owner).is_switch ? 1 : 0; // ca_to_switch / ca_to_ca
            tallies[lid].n[to][0] -= m.lost_cas;
            tallies[lid].n[to + 2][0] -= m.lost_switches; // switch_to_switch / switch_to_ca
        }
        const Chunks ch = chunks_of(retrace.size());
        auto ws = workers_for(*net, *st->sls, ch.workers);
        std::vector<a::ConnectivityCounter> conns(ch.workers, a::ConnectivityCounter(*net, nullptr, true, 1));
        common::parallel_for(ch.count, ch.workers, [&](std::size_t c, unsigned w) {
            Worker& k = *ws[w];
            const std::uint32_t* list = retrace.data() + c * ch.size;
            const auto count = static_cast<std::uint32_t>(std::min(ch.size, retrace.size() - c * ch.size));
            k.block.load(*net, list, count);
            for (std::uint32_t i = 0; i < count; ++i) {
                k.block.trace(i, k.tree);
                k.delta.add(k.tree);
                conns[w].clear();
                conns[w].add(k.tree);
                tallies[list[i]] = detail::tally_of(conns[w].totals());
            }
        });
        for (const auto& k : ws) st->cdg->apply_delta(k->delta);
    }

    Verdict& v = out.verdict;
    v.engine = tables->engine;
    v.switch_pairs_checked = tables->switch_to_switch;
    v.checked = true;
    std::vector<std::string> problems = detail::table_problems(lids, *tables, options);
    detail::pair_problems(*net, detail::tallies_of(st->tallies), v, problems);
    detail::credit_problems(*net, *st->cdg, v, problems);
    v.reason = detail::join_problems(problems);

    st->net = std::move(net); // the object st->cdg is bound to
    st->fabric = std::move(fabric);
    st->tables = std::move(tables);
    memory.state = std::move(st);
    return out;
}

std::string first_difference(const Verdict& full, const Verdict& inc)
{
    auto num = [](const char* what, std::uint64_t f, std::uint64_t i) {
        return f == i ? std::string() : std::string(what) + ": full " + std::to_string(f) + ", incremental " + std::to_string(i);
    };
    auto flag = [](const char* what, bool f, bool i) {
        return f == i ? std::string()
                      : std::string(what) + ": full " + (f ? "yes" : "no") + ", incremental " + (i ? "yes" : "no");
    };
    if (full.engine != inc.engine) return "engine: full " + full.engine + ", incremental " + inc.engine;
    for (auto d : {flag("checked", full.checked, inc.checked),
                   flag("switch pairs checked", full.switch_pairs_checked, inc.switch_pairs_checked)})
        if (!d.empty()) return d;
    const std::pair<const char*, std::pair<const PairCounts*, const PairCounts*>> classes[] = {
        {"CA pairs", {&full.ca_to_ca, &inc.ca_to_ca}},
        {"CA→switch pairs", {&full.ca_to_switch, &inc.ca_to_switch}},
        {"switch→CA pairs", {&full.switch_to_ca, &inc.switch_to_ca}},
        {"switch pairs", {&full.switch_to_switch, &inc.switch_to_switch}},
    };
    for (const auto& [name, p] : classes) {
        const auto [f, i] = p;
        const std::string n = name;
        for (auto d : {num((n + " counted").c_str(), f->pairs, i->pairs),
                       num((n + " unreachable").c_str(), f->unreachable, i->unreachable),
                       num((n + " looping").c_str(), f->looping, i->looping)})
            if (!d.empty()) return d;
    }
    for (auto d : {flag("credit loop in CA traffic", full.ca_credit_loop, inc.ca_credit_loop),
                   flag("credit loop with switch traffic", full.switch_credit_loop, inc.switch_credit_loop)})
        if (!d.empty()) return d;
    if (full.reason != inc.reason) return "reason: full \"" + full.reason + "\", incremental \"" + inc.reason + "\"";
    return {};
}

} // namespace ibsm::routing
