// The incremental gate (see incremental_gate.h).
#include "routing/incremental_gate.h"

#include "common/parallel_for.h"
#include "routing/analysis/connectivity.h"
#include "routing/analysis/forwarding.h"
#include "routing/verdict_parts.h"

#include <algorithm>
#include <stdexcept>

namespace ibsm::routing {

namespace a = analysis;

namespace {

std::uint64_t node_guid(const a::Network& net, topology::PortRef p)
{
    return net.fabric().node(p.node).guid.value();
}

// Same switches in the same order with the same ports, same endpoints with
// the same LIDs cabled to the same switches: then every index of the old
// view means the same thing in the new one. "" when so, else what differs.
std::string not_comparable(const a::Network& old_net, const a::Network& new_net)
{
    if (old_net.switch_count() != new_net.switch_count()) return "the switches changed";
    for (std::size_t s = 0; s < new_net.switch_count(); ++s) {
        const auto si = static_cast<std::int32_t>(s);
        if (old_net.fabric().node(old_net.switch_node(si)).guid != new_net.fabric().node(new_net.switch_node(si)).guid ||
            old_net.switch_ports(si) != new_net.switch_ports(si) ||
            old_net.switch_endpoint(si) != new_net.switch_endpoint(si))
            return "the switches changed";
    }
    if (old_net.endpoints().size() != new_net.endpoints().size() ||
        old_net.lid_table_size() != new_net.lid_table_size())
        return "the ports with LIDs changed";
    for (std::size_t e = 0; e < new_net.endpoints().size(); ++e) {
        const a::Endpoint& o = old_net.endpoints()[e];
        const a::Endpoint& n = new_net.endpoints()[e];
        if (o.is_switch != n.is_switch || o.base != n.base || o.lmc != n.lmc || o.port.port != n.port.port ||
            node_guid(old_net, o.port) != node_guid(new_net, n.port))
            return "the ports with LIDs changed";
        if (o.attach_switch != n.attach_switch) return "a CA moved to another switch";
    }
    return {};
}

// Where the cable on (s, port) leads, as a trace reads it.
bool same_cable(const a::Network& old_net, const a::Network& new_net, std::int32_t s, unsigned port)
{
    const std::int32_t c0 = old_net.channel_from(s, port);
    const std::int32_t c1 = new_net.channel_from(s, port);
    if (c0 < 0 || c1 < 0) return c0 < 0 && c1 < 0;
    const a::Channel& x = old_net.channel(c0);
    const a::Channel& y = new_net.channel(c1);
    return x.head_switch == y.head_switch && x.head_endpoint == y.head_endpoint && x.head.port == y.head.port;
}

// Per LID: 1 when its routes can differ between the old and the new view.
// The switches are shared over the workers, each with its own flags, OR-ed
// at the end; a switch's rows are compared as flat arrays (they stream).
std::vector<std::uint8_t> changed_destinations(const a::Network& old_net, const a::Network& new_net, unsigned threads)
{
    const std::uint32_t lid_end = new_net.lid_table_size();
    const unsigned workers = std::max(1u, std::min<unsigned>(common::worker_count(threads),
                                                             static_cast<unsigned>(new_net.switch_count())));
    std::vector<std::vector<std::uint8_t>> flags(workers);
    common::parallel_for(new_net.switch_count(), workers, [&](std::size_t s, unsigned w) {
        const auto si = static_cast<std::int32_t>(s);
        std::array<std::uint8_t, 256> moved{};
        bool any_moved = false;
        for (unsigned p = 1; p <= new_net.switch_ports(si); ++p)
            if (!same_cable(old_net, new_net, si, p)) moved[p] = 1, any_moved = true;
        const std::uint8_t* r0 = old_net.lft_row(si);
        const std::uint8_t* r1 = new_net.lft_row(si);
        const std::size_t n0 = std::min<std::size_t>(old_net.lft_row_size(si), lid_end);
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
    if (t.linear_fdb_top != old.linear_fdb_top) return "LinearFDBTop changed";
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
    if (detail::lid_keys(*fabric, lids) != st->lid_keys) return std::string("the LIDs changed");
    std::vector<a::PortLids> port_lids;
    for (const auto& [port, pl] : lids.entries()) port_lids.push_back(a::PortLids{port, pl.base, pl.lmc});
    std::unique_ptr<a::Network> net;
    try {
        net = std::make_unique<a::Network>(*fabric, *tables, std::move(port_lids));
    } catch (const std::invalid_argument&) {
        return std::string("the tables cannot be checked"); // the full gate says why
    }
    if (auto why = not_comparable(*st->net, *net); !why.empty()) return why;

    const std::vector<std::uint8_t> changed = changed_destinations(*st->net, *net, options.threads);
    IncrementalVerdict out;
    std::vector<std::uint32_t> retrace;
    for (std::uint32_t lid = 1; lid < net->lid_table_size(); ++lid) {
        if (net->lid_owner(lid) < 0) continue;
        ++out.destinations;
        if (changed[lid]) retrace.push_back(lid);
    }
    out.retraced = retrace.size();
    if (static_cast<double>(retrace.size()) > memory.max_retrace_share * static_cast<double>(out.destinations))
        return "routes to " + std::to_string(retrace.size()) + " of " + std::to_string(out.destinations) +
               " destinations changed";

    // Old routes out on the old view, new ones in on the new view. Same
    // endpoints and SLs: the SL lookup of the old tables serves both. The
    // changed LIDs go in chunks of consecutive ones over the workers; a
    // worker resolves its chunk's first hops switch by switch (LftBlock:
    // each LFT row read forward over the chunk's LID range, each switch's
    // port row in L1 meanwhile), traces them, sums its dependency changes in a delta builder and
    // writes the tallies of its own LIDs. The deltas are applied once all
    // are done (a sum, so the order of the chunks does not matter).
    // At most LftBlock::width LIDs a chunk, at least about four chunks a
    // worker when there are enough LIDs.
    const unsigned threads = common::worker_count(options.threads);
    const std::size_t chunk = std::clamp<std::size_t>(retrace.size() / (4u * threads), 8, a::LftBlock::width);
    const std::size_t chunks = (retrace.size() + chunk - 1) / chunk;
    struct Worker {
        a::LftBlock old_block, new_block;
        a::DestinationTree tree;
        a::ConnectivityCounter conn;
        a::CdgBuilder delta;
    };
    const a::Network& old_net = *st->net;
    const unsigned workers = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(chunks)));
    std::vector<std::unique_ptr<Worker>> ws;
    for (unsigned w = 0; w < workers; ++w) {
        ws.push_back(std::make_unique<Worker>(Worker{a::LftBlock{}, a::LftBlock{}, a::DestinationTree{},
                                                     a::ConnectivityCounter(*net, nullptr, true, 1),
                                                     a::CdgBuilder(*net, *st->sls, tables->switch_to_switch)}));
        ws.back()->delta.enable_delta();
    }
    std::vector<LidTally>& tallies = st->tallies;
    common::parallel_for(chunks, workers, [&](std::size_t c, unsigned w) {
        Worker& k = *ws[w];
        const std::uint32_t* lids = retrace.data() + c * chunk;
        const auto count = static_cast<std::uint32_t>(std::min(chunk, retrace.size() - c * chunk));
        k.old_block.load(old_net, lids, count);
        k.new_block.load(*net, lids, count);
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::uint32_t lid = lids[i];
            k.old_block.trace(i, k.tree);
            k.delta.remove(k.tree);
            k.new_block.trace(i, k.tree);
            k.delta.add(k.tree);
            k.conn.clear();
            k.conn.add(k.tree);
            tallies[lid] = detail::tally_of(k.conn.totals());
        }
    });
    st->cdg->rebind(*net, *st->sls);
    for (const auto& k : ws) st->cdg->apply_delta(k->delta);

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
