// The verification gate (see verify.h): the analyzer's destination pass with
// only the counters the verdict needs.
#include "routing/verify.h"

#include "routing/incremental_gate.h"
#include "routing/verdict_parts.h"

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

std::vector<a::PortLids> port_lids_of(const lidassign::LidMap& lids)
{
    std::vector<a::PortLids> out;
    for (const auto& [port, pl] : lids.entries()) out.push_back(a::PortLids{port, pl.base, pl.lmc});
    return out;
}

// The full gate's one pass. With `record`, every worker's CDG counts its
// dependencies and every destination's tally is kept (incremental_gate.h),
// and the pass leaves its Network, SLs and CDG in `record`.
Verdict gate_pass(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
                  const VerifyOptions& options, GateState* record)
{
    Verdict v;
    v.engine = tables.engine;
    v.switch_pairs_checked = tables.switch_to_switch;

    auto built = std::make_unique<std::optional<a::Network>>();
    try {
        built->emplace(fabric, tables, port_lids_of(lids));
    } catch (const std::invalid_argument& e) {
        v.reason = std::string("tables cannot be checked: ") + e.what();
        return v;
    }
    const a::Network& net = **built;
    v.checked = true;
    std::vector<std::string> problems = detail::table_problems(lids, tables, options);

    std::optional<a::PairRoutes> pair_routes;
    if (tables.pair_dlids) pair_routes.emplace(net, *tables.pair_dlids);
    if (pair_routes) record = nullptr; // the incremental gate takes destination-based tables only

    // One pass over every destination LID.
    auto sls_owned =
        std::make_unique<a::SlLookup>(net, tables, options.vl_mask_of_sl ? &*options.vl_mask_of_sl : nullptr);
    const a::SlLookup& sls = *sls_owned;
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
    const std::uint32_t lid_end = net.lid_table_size();
    std::vector<LidTally> tallies(record ? lid_end : 0);
    std::vector<std::unique_ptr<Worker>> ws;
    for (unsigned w = 0; w < workers; ++w) {
        ws.push_back(std::make_unique<Worker>(Worker{a::LftBlock{}, a::DestinationTree{},
                                                     a::ConnectivityCounter(net, nullptr, true, max_examples),
                                                     a::CdgBuilder(net, sls, tables.switch_to_switch)}));
        if (record) ws.back()->cdg.enable_counts();
    }
    // Blocks of consecutive LIDs (forwarding.h, LftBlock: one cache line of
    // every LFT per block instead of one miss per switch and LID).
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
            k.block.trace(i, k.tree);
            if (record) {
                // Counted one destination at a time, kept per LID.
                k.conn.clear();
                k.conn.add(k.tree);
                tallies[lid] = detail::tally_of(k.conn.totals());
            } else {
                k.conn.add(k.tree);
            }
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
        if (!record) ws[0]->conn.merge(ws[w]->conn);
        ws[0]->cdg.merge(ws[w]->cdg);
    }

    if (record) {
        detail::pair_problems(net, detail::tallies_of(tallies), v, problems);
    } else {
        const a::Connectivity conn = ws[0]->conn.result();
        detail::pair_problems(net, detail::tallies_of(conn), v, problems);
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

    detail::credit_problems(net, ws[0]->cdg, v, problems);
    v.reason = detail::join_problems(problems);

    if (record) {
        record->tallies = std::move(tallies);
        record->cdg = std::make_unique<a::CdgBuilder>(std::move(ws[0]->cdg));
        record->sls = std::move(sls_owned);
        record->net = std::make_unique<a::Network>(std::move(**built));
        record->cdg->rebind(*record->net, *record->sls);
        record->max_vls = options.max_vls;
        record->vl_masks = options.vl_mask_of_sl;
        record->lid_keys = detail::lid_keys(fabric, lids);
    }
    return v;
}

} // namespace

Verdict verify(const topology::Fabric& fabric, const lidassign::LidMap& lids, const RoutingTables& tables,
               const VerifyOptions& options)
{
    return gate_pass(fabric, lids, tables, options, nullptr);
}

Verdict verify_and_remember(std::shared_ptr<const topology::Fabric> fabric, const lidassign::LidMap& lids,
                            std::shared_ptr<const RoutingTables> tables, const VerifyOptions& options,
                            GateMemory& memory)
{
    memory.state.reset();
    auto state = std::make_unique<GateState>();
    Verdict v = gate_pass(*fabric, lids, *tables, options, state.get());
    if (v.checked && state->cdg) {
        state->fabric = std::move(fabric);
        state->tables = std::move(tables);
        memory.state = std::move(state);
    }
    return v;
}

} // namespace ibsm::routing
