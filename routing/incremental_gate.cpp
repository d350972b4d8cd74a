// The incremental gate (see incremental_gate.h).
#include "routing/incremental_gate.h"

#include "routing/analysis/connectivity.h"
#include "routing/analysis/forwarding.h"
#include "routing/verdict_parts.h"

#include <algorithm>
#include <stdexcept>

namespace ibsm::routing {

namespace a = analysis;

namespace {

std::uint8_t entry(const Lft* lft, std::uint32_t lid)
{
    return lft && lid < lft->port.size() ? lft->port[lid] : no_route;
}

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
std::vector<std::uint8_t> changed_destinations(const a::Network& old_net, const a::Network& new_net)
{
    const std::uint32_t lid_end = new_net.lid_table_size();
    std::vector<std::uint8_t> changed(lid_end, 0);
    std::array<std::uint8_t, 256> moved{};
    for (std::size_t s = 0; s < new_net.switch_count(); ++s) {
        const auto si = static_cast<std::int32_t>(s);
        bool any_moved = false;
        moved.fill(0);
        for (unsigned p = 1; p <= new_net.switch_ports(si); ++p)
            if (!same_cable(old_net, new_net, si, p)) moved[p] = 1, any_moved = true;
        const Lft* l0 = old_net.lft(si);
        const Lft* l1 = new_net.lft(si);
        const std::size_t n0 = l0 ? std::min<std::size_t>(l0->port.size(), lid_end) : 0;
        const std::size_t n1 = l1 ? std::min<std::size_t>(l1->port.size(), lid_end) : 0;
        if (!any_moved && n0 == n1 && (n0 == 0 || std::equal(l0->port.begin(), l0->port.begin() + static_cast<std::ptrdiff_t>(n0),
                                                              l1->port.begin())))
            continue; // the common case: nothing at this switch
        for (std::uint32_t lid = 0; lid < lid_end; ++lid) {
            const std::uint8_t p0 = entry(l0, lid), p1 = entry(l1, lid);
            if (p0 != p1 || moved[p0]) changed[lid] = 1;
        }
    }
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

    const std::vector<std::uint8_t> changed = changed_destinations(*st->net, *net);
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
    // endpoints and SLs: the SL lookup of the old tables serves both.
    a::DestinationTree tree;
    std::vector<std::uint8_t> ports(net->switch_count());
    auto column = [&](const a::Network& n, std::uint32_t lid) {
        for (std::size_t s = 0; s < ports.size(); ++s) ports[s] = entry(n.lft(static_cast<std::int32_t>(s)), lid);
        return ports.data();
    };
    st->cdg->rebind(*st->net, *st->sls);
    for (std::uint32_t lid : retrace) {
        a::trace_destination(*st->net, lid, column(*st->net, lid), tree);
        st->cdg->remove(tree);
    }
    st->cdg->rebind(*net, *st->sls);
    a::ConnectivityCounter conn(*net, nullptr, true, 1);
    for (std::uint32_t lid : retrace) {
        a::trace_destination(*net, lid, column(*net, lid), tree);
        st->cdg->add(tree);
        conn.clear();
        conn.add(tree);
        st->tallies[lid] = detail::tally_of(conn.totals());
    }

    Verdict& v = out.verdict;
    v.engine = tables->engine;
    v.switch_pairs_checked = tables->switch_to_switch;
    v.checked = true;
    std::vector<std::string> problems = detail::table_problems(lids, *tables, options);
    detail::pair_problems(*net, detail::tallies_of(st->tallies), v, problems);
    detail::credit_problems(*net, *st->cdg, v, problems);
    v.reason = detail::join_problems(problems);

    st->net = std::move(net);
    st->cdg->rebind(*st->net, *st->sls);
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
