// The verification gate (see verify.h): the analyzer's destination pass with
// only the counters the verdict needs.
#include "routing/verify.h"

#include "common/parallel_for.h"
#include "routing/analysis/connectivity.h"
#include "routing/analysis/credit_loops.h"
#include "routing/analysis/forwarding.h"
#include "routing/analysis/network.h"
#include "routing/analysis/pair_routes.h"

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <vector>

namespace ibsm::routing {

namespace a = analysis;

std::string group_digits(std::uint64_t n)
{
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
        out += digits[i];
    }
    return out;
}

bool less_bad(const Verdict& x, const Verdict& y)
{
    auto key = [](const Verdict& v) {
        return std::tuple{!v.checked, v.ca_to_ca.undelivered(), v.ca_credit_loop, v.other_undelivered()};
    };
    return key(x) < key(y);
}

namespace {

const char* class_label(a::PairClass c)
{
    switch (c) {
    case a::PairClass::ca_to_ca: return "CA";
    case a::PairClass::ca_to_switch: return "CA→switch";
    case a::PairClass::switch_to_ca: return "switch→CA";
    case a::PairClass::switch_to_switch: return "switch";
    }
    return "?";
}

std::string example(const a::Network& net, const std::vector<a::PairExample>& examples)
{
    if (examples.empty()) return {};
    const a::PairExample& e = examples.front();
    const std::int32_t owner = net.lid_owner(e.lid);
    return ", e.g. " + net.endpoint(e.source).name + " → " + (owner >= 0 ? net.endpoint(owner).name : "?") +
           " (LID " + std::to_string(e.lid) + ")";
}

// "credit loop on VL 0 in CA traffic: a[1] → b[2] → c[3] → a[1]" (at most 8 links shown).
std::string credit_loop_text(const a::Network& net, const a::CreditLoops& loops, const char* traffic)
{
    for (const a::VlCreditResult& v : loops.vls) {
        if (v.cycle.empty()) continue;
        std::string text = "credit loop on VL " + std::to_string(v.vl) + " in " + traffic + ": ";
        const std::size_t shown = std::min<std::size_t>(v.cycle.size(), 8);
        for (std::size_t i = 0; i < shown; ++i) text += net.port_label(net.channel(v.cycle[i]).tail) + " → ";
        text += shown < v.cycle.size() ? "… (" + std::to_string(v.cycle.size()) + " links)"
                                       : net.port_label(net.channel(v.cycle.front()).tail);
        return text;
    }
    return {};
}

PairCounts counts_of(const a::PairStats& s)
{
    return PairCounts{s.pairs, s.unreachable, s.loops};
}

} // namespace

Verdict verify(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
               const VerifyOptions& options)
{
    Verdict v;
    v.engine = tables.engine;
    v.switch_pairs_checked = tables.switch_to_switch;
    std::vector<std::string> problems;

    std::vector<a::PortLids> port_lids;
    for (const auto& [port, pl] : lids.entries()) port_lids.push_back(a::PortLids{port, pl.base, pl.lmc});
    std::optional<a::Network> built;
    try {
        built.emplace(fabric, tables, std::move(port_lids));
    } catch (const std::invalid_argument& e) {
        v.reason = std::string("tables cannot be checked: ") + e.what();
        return v;
    }
    const a::Network& net = *built;
    v.checked = true;

    if (lids.top().value() > tables.linear_fdb_top.value())
        problems.push_back("LinearFDBTop " + std::to_string(tables.linear_fdb_top.value()) + " is below the top LID " +
                           std::to_string(lids.top().value()));
    const std::uint8_t sl_top = tables.sl.max_sl();
    if (tables.vls_used > options.max_vls)
        problems.push_back("needs " + std::to_string(tables.vls_used) + " VLs, the ports offer " +
                           std::to_string(options.max_vls));
    if (!tables.sl.empty() && sl_top >= std::max<std::uint8_t>(tables.vls_used, 1))
        problems.push_back("uses SL " + std::to_string(sl_top) + " but maps only " +
                           std::to_string(std::max<std::uint8_t>(tables.vls_used, 1)) + " VL(s)");

    std::optional<a::PairRoutes> pair_routes;
    if (tables.pair_dlids) pair_routes.emplace(net, *tables.pair_dlids);

    // One pass over every destination LID.
    const a::SlLookup sls(net, tables, options.vl_mask_of_sl ? &*options.vl_mask_of_sl : nullptr);
    const unsigned workers = common::worker_count(options.threads);
    // Per-pair path routing: the DLID map destination-major (one sequential
    // scan finds the sources using a LID) and each Network endpoint's
    // destination index.
    std::vector<std::uint8_t> by_dest;
    std::vector<std::int32_t> dest_of(net.endpoints().size(), -1);
    std::size_t nsrc = 0;
    if (pair_routes) {
        const a::PairRoutes& pr = *pair_routes;
        const PairDlids& dl = pr.dlids();
        nsrc = dl.sources.size();
        by_dest.resize(dl.destinations.size() * nsrc);
        for (std::size_t s = 0; s < nsrc; ++s)
            for (std::size_t d = 0; d < dl.destinations.size(); ++d) by_dest[d * nsrc + s] = dl.offset_of(s, d);
        for (std::size_t d = 0; d < pr.destination_count(); ++d)
            if (pr.destination(d) >= 0) dest_of[static_cast<std::size_t>(pr.destination(d))] = static_cast<std::int32_t>(d);
    }
    struct Worker {
        a::LftBlock block;
        a::DestinationTree tree;
        a::ConnectivityCounter conn;
        a::CdgBuilder cdg;
        std::vector<std::uint8_t> ca_users{}, switch_users{};
        std::array<std::uint64_t, 4> bad{0, 0, 0, 0}; // CA pairs unreachable, looping; switch pairs ...
        // The worker's first undelivered pair: (LID, source index, source).
        // A worker meets its pairs in that order, so the least of the
        // workers' is the first of all, however the blocks were shared.
        std::optional<std::tuple<std::uint32_t, std::size_t, std::int32_t>> example{};
    };
    constexpr std::size_t max_examples = 1;
    std::vector<std::unique_ptr<Worker>> ws;
    for (unsigned w = 0; w < workers; ++w)
        ws.push_back(std::make_unique<Worker>(Worker{a::LftBlock{}, a::DestinationTree{},
                                                     a::ConnectivityCounter(net, nullptr, true, max_examples),
                                                     a::CdgBuilder(net, sls)}));
    // Blocks of consecutive LIDs (forwarding.h, LftBlock: one cache line of
    // every LFT per block instead of one miss per switch and LID).
    const std::uint32_t lid_end = net.lid_table_size();
    const std::size_t blocks = (lid_end + a::LftBlock::width - 1) / a::LftBlock::width;
    const std::string stage = "verify (" + tables.engine + ")";
    a::StageProgress progress(options.progress, stage, blocks);
    common::parallel_for(blocks, workers, [&](std::size_t b, unsigned w) {
        Worker& k = *ws[w];
        const auto first = static_cast<std::uint32_t>(b * a::LftBlock::width);
        k.block.load(net, first, std::min(a::LftBlock::width, lid_end - first));
        for (std::uint32_t i = 0; i < k.block.count(); ++i) {
            const std::uint32_t lid = first + i;
            if (lid == 0 || net.lid_owner(lid) < 0) continue;
            a::trace_destination(net, lid, k.block.ports(i), k.tree);
            k.conn.add(k.tree);
            const std::int32_t owner = net.lid_owner(lid);
            if (!pair_routes || net.endpoint(owner).is_switch) {
                k.cdg.add(k.tree);
                continue;
            }
            // A path routing's CA destination: every LID is traced for
            // delivery from everywhere (above), but only the sources whose
            // pair uses this LID send on it: their routes must be delivered
            // and only they make dependencies.
            k.ca_users.assign(net.switch_count(), 0);
            k.switch_users.assign(net.switch_count(), 0);
            const std::int32_t d = dest_of[static_cast<std::size_t>(owner)];
            if (d >= 0) {
                const auto& block = pair_routes->dlids().destinations[static_cast<std::size_t>(d)];
                const std::uint32_t o = lid - block.base.value();
                const std::uint8_t* row = &by_dest[static_cast<std::size_t>(d) * nsrc];
                for (std::size_t s = 0; s < nsrc && o < (1u << block.lmc); ++s) {
                    if (row[s] != o) continue;
                    const std::int32_t src = pair_routes->source(s);
                    if (src < 0) continue;
                    const a::Endpoint& e = net.endpoint(src);
                    const a::Reach r = e.attach_switch < 0 ? a::Reach::unreachable
                                                           : k.tree.status[static_cast<std::size_t>(e.attach_switch)];
                    if (r != a::Reach::delivered) {
                        ++k.bad[(e.is_switch ? 2 : 0) + (r == a::Reach::loop ? 1 : 0)];
                        if (!k.example) k.example.emplace(lid, s, src);
                        continue;
                    }
                    (e.is_switch ? k.switch_users : k.ca_users)[static_cast<std::size_t>(e.attach_switch)] = 1;
                }
            }
            k.cdg.add_users(k.tree, k.ca_users, k.switch_users);
        }
        progress.tick();
    });
    for (unsigned w = 1; w < workers; ++w) {
        ws[0]->conn.merge(ws[w]->conn);
        ws[0]->cdg.merge(ws[w]->cdg);
    }

    const a::Connectivity conn = ws[0]->conn.result();
    v.ca_to_ca = counts_of(conn.of(a::PairClass::ca_to_ca));
    v.ca_to_switch = counts_of(conn.of(a::PairClass::ca_to_switch));
    v.switch_to_ca = counts_of(conn.of(a::PairClass::switch_to_ca));
    v.switch_to_switch = counts_of(conn.of(a::PairClass::switch_to_switch));
    for (auto c : {a::PairClass::ca_to_ca, a::PairClass::ca_to_switch, a::PairClass::switch_to_ca,
                   a::PairClass::switch_to_switch}) {
        if (c == a::PairClass::switch_to_switch && !v.switch_pairs_checked) continue;
        const a::PairStats& s = conn.of(c);
        if (s.unreachable)
            problems.push_back(group_digits(s.unreachable) + " " + class_label(c) + " pairs unreachable" +
                               example(net, s.unreachable_examples));
        if (s.loops)
            problems.push_back(group_digits(s.loops) + " " + class_label(c) + " pairs in forwarding loops" +
                               example(net, s.loop_examples));
    }

    if (pair_routes) {
        std::array<std::uint64_t, 4> bad{0, 0, 0, 0};
        std::optional<std::tuple<std::uint32_t, std::size_t, std::int32_t>> ex;
        for (unsigned w = 0; w < workers; ++w) {
            for (std::size_t i = 0; i < 4; ++i) bad[i] += ws[w]->bad[i];
            if (ws[w]->example && (!ex || *ws[w]->example < *ex)) ex = ws[w]->example;
        }
        // Counted into the classes too, so the verdict's counts show them.
        v.ca_to_ca.unreachable += bad[0];
        v.ca_to_ca.looping += bad[1];
        v.switch_to_ca.unreachable += bad[2];
        v.switch_to_ca.looping += bad[3];
        if (bad[0] + bad[1] + bad[2] + bad[3]) {
            const auto [lid, s, src] = *ex;
            const std::int32_t owner = net.lid_owner(lid);
            problems.push_back(group_digits(bad[0] + bad[1] + bad[2] + bad[3]) +
                               " pairs not delivered on the DLID of their path, e.g. " + net.endpoint(src).name +
                               " → " + (owner >= 0 ? net.endpoint(owner).name : "?") + " (LID " +
                               std::to_string(lid) + ")");
        }
        if (pair_routes->missing())
            problems.push_back(group_digits(pair_routes->missing()) + " pairs of the DLID map name ports without a LID");
    }

    const a::CreditLoops ca_loops = ws[0]->cdg.result(a::CdgBuilder::ca_only);
    v.ca_credit_loop = ca_loops.has_loop();
    if (v.ca_credit_loop) problems.push_back(credit_loop_text(net, ca_loops, "CA traffic"));
    if (v.switch_pairs_checked) {
        const a::CreditLoops all = ws[0]->cdg.result(a::CdgBuilder::with_switches);
        v.switch_credit_loop = all.has_loop();
        if (v.switch_credit_loop && !v.ca_credit_loop)
            problems.push_back(credit_loop_text(net, all, "CA and switch traffic"));
    }

    for (const auto& p : problems) v.reason += (v.reason.empty() ? "" : "; ") + p;
    return v;
}

} // namespace ibsm::routing
