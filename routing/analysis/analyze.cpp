#include "routing/analysis/analyze.h"

#include "common/parallel_for.h"
#include "routing/analysis/channel_examples.h"
#include "routing/analysis/congestion.h"
#include "routing/analysis/connectivity.h"
#include "routing/analysis/credit_loops.h"
#include "routing/analysis/edge_forwarding.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/host_order.h"
#include "routing/analysis/network.h"
#include "routing/analysis/pair_routes.h"
#include "routing/analysis/shifts.h"
#include "routing/analysis/shortest_paths.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>

namespace ibsm::routing::analysis {

namespace {

using Clock = std::chrono::steady_clock;

NamedPort named_port(const Network& net, topology::PortRef p)
{
    return NamedPort{net.display_name(p.node), net.fabric().node(p.node).guid, p.port.value()};
}

NamedLink named_link(const Network& net, std::int32_t channel)
{
    const Channel& c = net.channel(channel);
    return NamedLink{named_port(net, c.tail), named_port(net, c.head)};
}

std::vector<NamedPair> named_pairs(const Network& net, const std::vector<PairExample>& ex)
{
    std::vector<NamedPair> out;
    for (const PairExample& e : ex) {
        const Endpoint& src = net.endpoint(e.source);
        std::int32_t owner = net.lid_owner(e.lid);
        out.push_back(NamedPair{src.name, net.fabric().node(src.port.node).guid, e.lid,
                                owner >= 0 ? net.endpoint(owner).name : std::string("?")});
    }
    return out;
}

CreditReport credit_report(const Network& net, const CreditLoops& loops)
{
    CreditReport r;
    r.computed = loops.computed;
    for (const VlCreditResult& v : loops.vls) {
        VlCreditReport vr;
        vr.vl = v.vl;
        vr.dependencies = v.dependencies;
        for (std::int32_t c : v.cycle) vr.cycle.push_back(named_link(net, c));
        r.vls.push_back(std::move(vr));
    }
    return r;
}

LoadReport load_report(const Network& net, const LoadSummary& s)
{
    LoadReport r;
    r.channels = s.channels;
    r.max = s.max;
    r.mean = s.mean;
    if (s.max_channel >= 0) r.max_link = named_link(net, s.max_channel);
    return r;
}

std::vector<LinkLoad> link_loads(const Network& net, const std::vector<std::uint64_t>& load,
                                 const ChannelExamples& examples)
{
    std::vector<LinkLoad> out;
    out.reserve(load.size());
    for (std::size_t c = 0; c < load.size(); ++c) {
        const auto ci = static_cast<std::int32_t>(c);
        const Channel& ch = net.channel(ci);
        out.push_back(LinkLoad{named_link(net, ci), load[c], ch.tail_switch >= 0 && ch.head_switch >= 0,
                               named_pairs(net, examples.of(ci))});
    }
    return out;
}

LidReport lid_report(const Network& net, const RoutingTables& tables)
{
    LidReport r;
    std::set<unsigned> lmcs;
    for (const Endpoint& e : net.endpoints()) {
        (e.is_switch ? r.switches_with_lid : r.ca_ports)++;
        lmcs.insert(e.lmc);
    }
    for (std::uint32_t l = 1; l < net.lid_table_size(); ++l) {
        if (net.lid_owner(l) < 0) continue;
        ++r.lids;
        if (r.min_lid == 0) r.min_lid = l;
        r.max_lid = l;
    }
    r.lmcs.assign(lmcs.begin(), lmcs.end());
    r.linear_fdb_top = tables.linear_fdb_top.value();
    for (std::size_t s = 0; s < net.switch_count(); ++s)
        if (!net.lft(static_cast<std::int32_t>(s))) ++r.switches_without_lft;
    return r;
}

} // namespace

Report analyze(const topology::Fabric& fabric, const RoutingTables& tables, const Options& options)
{
    Report rep;
    auto t0 = Clock::now();
    auto lap = [&](const char* stage) {
        auto t = Clock::now();
        rep.seconds.emplace_back(stage, std::chrono::duration<double>(t - t0).count());
        t0 = t;
    };

    std::optional<StageProgress> prepare;
    prepare.emplace(options.progress, "prepare", 1);
    const Network net(fabric, tables);
    std::vector<std::int32_t> order =
        options.order_lines.empty() ? net.hosts_by_name() : resolve_host_order(net, options.order_lines);
    rep.host_order = options.order_lines.empty() ? "name" : "given";
    rep.engine = tables.engine;
    rep.switches = net.switch_count();
    rep.hosts = net.hosts_by_name().size();
    rep.links = fabric.link_count();
    rep.lids = lid_report(net, tables);
    const ShortestPaths sp(net, options.threads);
    const SlLookup sls(net, tables, options.vl_mask_of_sl ? &*options.vl_mask_of_sl : nullptr);
    prepare->tick();
    prepare.reset();
    lap("prepare");

    // Per-pair path routing (tables.pair_dlids, e.g. from a path file): CA
    // destinations are scored on the pairs' own routes below, switch
    // destinations by the per-destination pass as usual.
    std::optional<PairRoutes> pair_routes;
    if (tables.pair_dlids) pair_routes.emplace(net, *tables.pair_dlids);

    // One pass over every destination LID.
    std::vector<std::uint32_t> dests;
    for (std::uint32_t l = 1; l < net.lid_table_size(); ++l)
        if (net.lid_owner(l) >= 0 && !(pair_routes && !net.endpoint(net.lid_owner(l)).is_switch)) dests.push_back(l);
    const unsigned workers =
        static_cast<unsigned>(std::min<std::size_t>(common::worker_count(options.threads), std::max<std::size_t>(dests.size(), 1)));
    const std::size_t link_examples = options.keep_link_loads ? options.link_examples : 0;
    struct Worker {
        DestinationTree tree;
        ConnectivityCounter conn;
        CdgBuilder cdg;
        EdgeForwardingCounter efi;
    };
    std::vector<std::unique_ptr<Worker>> ws;
    for (unsigned w = 0; w < workers; ++w)
        ws.push_back(std::make_unique<Worker>(Worker{DestinationTree{},
                                                     ConnectivityCounter(net, &sp, options.switch_traffic,
                                                                         options.max_examples),
                                                     CdgBuilder(net, sls),
                                                     EdgeForwardingCounter(net, link_examples)}));
    PathTable paths(net);
    StageProgress trace(options.progress, "trace", dests.size());
    common::parallel_for(dests.size(), workers, [&](std::size_t i, unsigned w) {
        Worker& k = *ws[w];
        trace_destination(net, dests[i], k.tree);
        k.conn.add(k.tree);
        k.cdg.add(k.tree);
        k.efi.add(k.tree);
        paths.add(k.tree);
        trace.tick();
    });
    // The pairs of a path routing, each on its DLID.
    struct PairWorker {
        PairStats ca, sw;
        std::vector<std::uint64_t> load;
        ChannelExamples examples;
        std::uint64_t routes = 0;
    };
    std::vector<PairWorker> pw(workers);
    if (pair_routes) {
        const PairRoutes& pr = *pair_routes;
        paths.use_pair_routes(pr);
        for (auto& p : pw) {
            p.load.assign(net.channels().size(), 0);
            p.examples = ChannelExamples(net.channels().size(), link_examples);
        }
        common::parallel_for(pr.source_count(), workers, [&](std::size_t s, unsigned w) {
            const std::int32_t src = pr.source(s);
            if (src < 0) return;
            const Endpoint& se = net.endpoint(src);
            if (se.is_switch && !options.switch_traffic) return;
            PairWorker& k = pw[w];
            PairStats& st = se.is_switch ? k.sw : k.ca;
            std::vector<std::int32_t> path;
            for (std::size_t d = 0; d < pr.destination_count(); ++d) {
                const auto dlid = pr.dlids().dlid(s, d);
                const std::int32_t dst = pr.destination(d);
                if (!dlid || dst < 0) continue;
                ++st.pairs;
                const Reach r = pr.walk(src, dlid->value(), path);
                if (r == Reach::delivered) {
                    const unsigned shortest = sp.between(se.attach_switch, net.endpoint(dst).attach_switch) + 1u;
                    if (se.is_switch) {
                        st.add_delivered(static_cast<unsigned>(path.size()), shortest, 1);
                    } else {
                        st.add_delivered(static_cast<unsigned>(path.size()) + 1u, shortest + 1u, 1);
                        ++k.routes;
                        // Pair order, so the kept examples do not depend on the threads.
                        const auto pair_seq = static_cast<std::uint32_t>(s * pr.destination_count() + d);
                        if (const std::int32_t inj = net.injection_channel(src); inj >= 0) {
                            ++k.load[static_cast<std::size_t>(inj)];
                            k.examples.add(inj, src, dlid->value(), pair_seq);
                        }
                        for (std::int32_t c : path) {
                            ++k.load[static_cast<std::size_t>(c)];
                            k.examples.add(c, src, dlid->value(), pair_seq);
                        }
                    }
                } else {
                    auto& list = r == Reach::loop ? st.loop_examples : st.unreachable_examples;
                    (r == Reach::loop ? st.loops : st.unreachable)++;
                    // Ordered by (DLID, source): a worker keeps its least
                    // and the merge the least of all, whoever met them.
                    list.push_back(PairExample{dlid->value(), static_cast<std::uint32_t>(s), src});
                    if (list.size() > 4 * options.max_examples + 16) {
                        std::sort(list.begin(), list.end());
                        list.resize(options.max_examples);
                    }
                }
                pr.add_turns(path, se.is_switch, ws[w]->cdg);
            }
        });
    }
    for (unsigned w = 1; w < workers; ++w) {
        ws[0]->conn.merge(ws[w]->conn);
        ws[0]->cdg.merge(ws[w]->cdg);
        ws[0]->efi.merge(ws[w]->efi);
    }
    lap("trace");

    StageProgress credit(options.progress, "credit_loops", 1);
    Connectivity conn = ws[0]->conn.result();
    std::optional<EdgeForwarding> pair_efi;
    std::vector<std::uint64_t> pair_load;
    ChannelExamples pair_examples(net.channels().size(), link_examples);
    if (pair_routes) {
        pair_load.assign(net.channels().size(), 0);
        std::uint64_t routes = 0;
        for (const PairWorker& k : pw) {
            conn.of(PairClass::ca_to_ca).merge(k.ca, options.max_examples);
            conn.of(PairClass::switch_to_ca).merge(k.sw, options.max_examples);
            for (std::size_t c = 0; c < pair_load.size(); ++c) pair_load[c] += k.load[c];
            pair_examples.merge(k.examples);
            routes += k.routes;
        }
        pair_efi = summarise_loads(net, pair_load, routes);
        rep.pair_routes = true;
        rep.pair_missing = pair_routes->missing();
    }
    for (std::size_t c = 0; c < pair_class_count; ++c) {
        const PairStats& s = conn.classes[c];
        ClassReport cr;
        cr.cls = static_cast<PairClass>(c);
        cr.counted = options.switch_traffic || cr.cls == PairClass::ca_to_ca || cr.cls == PairClass::ca_to_switch;
        cr.pairs = s.pairs;
        cr.delivered = s.delivered;
        cr.unreachable = s.unreachable;
        cr.loops = s.loops;
        cr.hops_mean = s.hops_mean();
        cr.hops_max = s.hops_max();
        cr.shortest_mean = s.shortest_mean();
        cr.stretch_mean = s.stretch_mean();
        cr.stretch_max = s.stretch_max();
        cr.nonminimal = s.nonminimal();
        cr.unreachable_examples = named_pairs(net, s.unreachable_examples);
        cr.loop_examples = named_pairs(net, s.loop_examples);
        rep.classes.push_back(std::move(cr));
    }
    rep.credit_ca_only = credit_report(net, ws[0]->cdg.result(CdgBuilder::ca_only));
    if (options.switch_traffic) rep.credit_all = credit_report(net, ws[0]->cdg.result(CdgBuilder::with_switches));
    EdgeForwarding efi = pair_efi ? *pair_efi : ws[0]->efi.result();
    rep.efi_routes = efi.routes;
    rep.efi_all = load_report(net, efi.all);
    rep.efi_switch_links = load_report(net, efi.switch_links);
    if (options.keep_link_loads)
        rep.link_loads = pair_routes ? link_loads(net, pair_load, pair_examples)
                                     : link_loads(net, ws[0]->efi.loads(), ws[0]->efi.examples());
    ws.clear();
    credit.tick();
    lap("credit_loops");

    const FlowEvaluator eval(net, paths);
    if (options.run_ebb) {
        StageProgress ebb(options.progress, "ebb", options.ebb.bisections);
        rep.ebb = effective_bisection_bandwidth(eval, net.hosts_by_name(), options.ebb, options.threads, &ebb);
        lap("ebb");
    }
    if (options.run_shifts) {
        StageProgress shifts(options.progress, "shifts", order.size() > 1 ? order.size() - 1 : 0);
        rep.shifts = shift_permutations(eval, order, options.threads, &shifts);
        lap("shifts");
    }
    return rep;
}

} // namespace ibsm::routing::analysis
