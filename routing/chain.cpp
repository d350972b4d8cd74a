// Fallback chain (see header). Design rule 6: engines return reasons; this is
// where the reasons are collected and the fallback decided.
#include "routing/chain.h"

#include "routing/dfsssp_or_nue.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <exception>
#include <stdexcept>

namespace ibsm::routing {

void validate(const Registry& registry, const ChainSpec& spec)
{
    if (spec.engines.empty()) throw std::invalid_argument("routing chain is empty");
    for (std::size_t i = 0; i < spec.engines.size(); ++i) {
        const auto& name = spec.engines[i];
        if (!registry.contains(name)) {
            std::string known;
            for (const auto& n : registry.names()) known += (known.empty() ? "" : ", ") + n;
            throw std::invalid_argument("unknown routing engine '" + name + "' (known: " + known + ")");
        }
        if (std::find(spec.engines.begin(), spec.engines.begin() + static_cast<std::ptrdiff_t>(i), name) !=
            spec.engines.begin() + static_cast<std::ptrdiff_t>(i))
            throw std::invalid_argument("routing engine '" + name + "' appears twice in the chain");
    }
    if (!spec.no_fallback && !registry.contains(fallback_engine))
        throw std::invalid_argument(std::string("fallback engine '") + fallback_engine + "' is not registered");
}

namespace {

// One attempt: tables, or the refusal (an exception becomes one).
EngineRun attempt(const Engine& engine, const topology::Fabric& fabric, const lidassign::LidMap& lids,
                  const Options& options, const Previous* previous)
{
    try {
        EngineRun r = engine.compute_after(fabric, lids, options, previous);
        // dfsssp-or-nue hands over dfsssp's or nue's tables under their name.
        const bool names_its_tables = dynamic_cast<const DfssspOrNueEngine*>(&engine) != nullptr;
        if (auto* t = std::get_if<RoutingTables>(&r.result); t && !(names_its_tables && !t->engine.empty()))
            t->engine = engine.name();
        return r;
    } catch (const std::exception& e) {
        return EngineRun{Refusal{engine.name(), std::string("engine failed: ") + e.what()}, nullptr, "", false};
    }
}

// The options that shape routes, as one comparable string: a re-route may
// start from the last routing only when these are the same. (The QoS
// functions are not comparable; the daemon forgets its memory on a reload.)
std::string options_key(const Options& o)
{
    std::string k = "lmc=" + std::to_string(o.lmc) + " vls=" + std::to_string(o.max_vls) +
                    " bal=" + std::to_string(static_cast<int>(o.balancing)) +
                    " rev=" + std::to_string(o.max_reverse_hops) + " sm=" + std::to_string(o.sm_port_guid.value()) +
                    " la=" + std::to_string(static_cast<int>(o.lid_assignment)) +
                    " lo=" + std::to_string(static_cast<int>(o.lid_order)) + " qos=" + (o.vl_masks ? "1" : "0");
    for (const auto* list : {&o.root_guids, &o.compute_nodes, &o.io_nodes, &o.routing_order}) {
        k += " [";
        for (auto g : *list) k += std::to_string(g.value()) + ",";
        k += "]";
    }
    return k;
}

// Every port both fabrics have keeps its LIDs (by node GUID and port
// number: NodeIds shift when a node leaves). Ports that left or came are
// the delta's; the top LID may move with them.
bool same_lids(const topology::Fabric& before, const lidassign::LidMap& old_lids, const topology::Fabric& after,
               const lidassign::LidMap& new_lids)
{
    for (const auto& [ref, pl] : old_lids.entries()) {
        const auto node = after.find_node(before.node(ref.node).guid);
        if (!node) continue; // gone with its node: part of the delta
        const auto now = new_lids.lids_of(topology::PortRef{*node, ref.port});
        if (!now) continue; // a port that went down: part of the delta
        if (now->base != pl.base || now->lmc != pl.lmc) return false;
    }
    return true;
}

// Why `memory` cannot start engine `name`'s re-route, or "" when it can.
std::string why_full(const ChainMemory* memory, const std::string& name, const std::string& key,
                     const topology::Fabric& fabric, const lidassign::LidMap& lids)
{
    if (!memory) return "";
    if (!memory->tables) return "no previous routing";
    if (memory->tables->engine != name) return "previous routing by " + memory->tables->engine;
    if (memory->options_key != key) return "routing options changed";
    if (!same_lids(*memory->fabric, *memory->lids, fabric, lids)) return "LIDs changed";
    return "";
}

} // namespace

std::string GateRun::describe() const
{
    if (incremental)
        return "incremental gate, " + group_digits(retraced) + " of " + group_digits(destinations) +
               " destinations re-traced" + (cross_checked ? (mismatch.empty() ? ", cross-checked" : ", MISMATCH") : "");
    return why_full.empty() ? "full gate" : "full gate (" + why_full + ")";
}

const GateRun* ChainOutcome::gate_run() const
{
    if (!tables) return nullptr;
    for (std::size_t i = verdicts.size(); i-- > 0;)
        if (verdicts[i].engine == tables->engine) return i < gate_runs.size() ? &gate_runs[i] : nullptr;
    return nullptr;
}

const Verdict* ChainOutcome::verdict() const
{
    if (!tables) return nullptr;
    for (auto it = verdicts.rbegin(); it != verdicts.rend(); ++it)
        if (it->engine == tables->engine) return &*it;
    return nullptr;
}

ChainOutcome run_chain(const Registry& registry, const ChainSpec& spec, const topology::Fabric& fabric,
                       const lidassign::LidMap& lids, const Options& options, ChainMemory* memory)
{
    validate(registry, spec);
    // The memory's copy of the fabric, once per run; each engine's tables
    // are made shared once, and the outcome, the gate's memory and the next
    // re-route hold that one copy (88 MB at 27 648 hosts).
    std::shared_ptr<const topology::Fabric> fabric_copy;
    std::optional<std::size_t> remembered; // index into out.verdicts of the tables the memory holds
    ChainOutcome out;
    const std::string key = memory ? options_key(options) : std::string();
    if (memory) memory->delta = memory->fabric ? topology::fabric_delta(*memory->fabric, fabric) : topology::FabricDelta{};
    std::shared_ptr<const EngineMemory> kept_state; // the kept tables' engine state
    std::string kept_how;
    bool kept_incremental = false;
    VerifyOptions gate;
    gate.max_vls = options.max_vls;
    gate.progress = options.progress;
    std::optional<std::size_t> least_bad; // index into out.verdicts of the kept tables
    bool kept_fallback = false;

    // True when `name`'s tables passed (out.tables are they); otherwise
    // records the refusal and keeps the tables if they are the least bad.
    // A re-route whose tables fail the gate is run again in full (an engine
    // that is not deadlock-free by construction, minhop, sssp, can close a
    // credit loop a full run does not): the delta is no reason to program
    // worse tables than a full run gives. `failed_incremental` is that
    // gate's reason on the second run.
    auto run_engine = [&](auto& self, const std::string& name, bool fallback,
                          const std::string& failed_incremental) -> bool {
        auto engine = registry.create(name);
        // The engine's own progress (if it reports any) shows as this stage.
        const std::string stage = "route (" + name + ")";
        std::optional<analysis::StageProgress> progress(std::in_place, options.progress, stage, 1);
        Options engine_options = options;
        if (options.progress)
            engine_options.progress = [&](std::string_view, std::size_t done, std::size_t total) {
                options.progress(stage, done, total);
            };
        const std::string why =
            failed_incremental.empty() ? why_full(memory, name, key, fabric, lids)
                                       : "the incremental re-route failed the gate: " + failed_incremental;
        std::optional<Previous> previous;
        if (memory && why.empty())
            previous.emplace(Previous{*memory->fabric, *memory->lids, *memory->tables, memory->engine_state.get(),
                                      memory->delta});
        EngineRun run = attempt(*engine, fabric, lids, engine_options, previous ? &*previous : nullptr);
        if (!why.empty()) run.how = "full run (" + why + ")";
        Result& r = run.result;
        progress->tick();
        progress.reset();
        if (auto* refusal = std::get_if<Refusal>(&r)) {
            if (refusal->engine.empty()) refusal->engine = name;
            out.refusals.push_back(std::move(*refusal));
            return false;
        }
        const auto shared = std::make_shared<const RoutingTables>(std::move(std::get<RoutingTables>(r)));
        const RoutingTables& t = *shared;
        // With QoS the gate checks the VLs the pairs really take.
        gate.vl_mask_of_sl.reset();
        if (options.vl_masks) gate.vl_mask_of_sl = options.vl_masks(t.vls_used);
        // A path engine in the colour-first order brings its own LIDs.
        const lidassign::LidMap& gated_lids = t.lids ? *t.lids : lids;
        GateRun gated;
        if (memory) {
            if (!fabric_copy) fabric_copy = std::make_shared<const topology::Fabric>(fabric);
            auto inc = verify_incremental(fabric_copy, gated_lids, shared, gate, memory->gate);
            if (auto* iv = std::get_if<IncrementalVerdict>(&inc)) {
                gated.incremental = true;
                gated.retraced = iv->retraced;
                gated.destinations = iv->destinations;
                out.verdicts.push_back(std::move(iv->verdict));
                if (memory->gate.cross_check) {
                    // The full gate's verdict is the one kept; a memory that
                    // disagreed with it is not trusted again.
                    gated.cross_checked = true;
                    Verdict full = verify(fabric, gated_lids, t, gate);
                    gated.mismatch = first_difference(full, out.verdicts.back());
                    if (!gated.mismatch.empty()) memory->gate.state.reset();
                    out.verdicts.back() = std::move(full);
                }
            } else {
                gated.why_full = std::get<std::string>(inc);
                out.verdicts.push_back(verify_and_remember(fabric_copy, gated_lids, shared, gate, memory->gate));
            }
            remembered = out.verdicts.size() - 1;
        } else {
            out.verdicts.push_back(verify(fabric, gated_lids, t, gate));
        }
        out.gate_runs.push_back(std::move(gated));
        const Verdict& v = out.verdicts.back();
        const bool pass = v.passed();
        if (!pass && run.incremental) {
            out.refusals.push_back(Refusal{t.engine, "incremental re-route: " + v.reason});
            return self(self, name, fallback, v.reason);
        }
        if (!pass) out.refusals.push_back(Refusal{t.engine, v.reason});
        if (pass || !least_bad || less_bad(v, out.verdicts[*least_bad])) {
            least_bad = out.verdicts.size() - 1;
            out.tables = shared;
            kept_fallback = fallback;
            kept_state = std::move(run.state);
            kept_how = run.how;
            kept_incremental = run.incremental;
        }
        return pass;
    };
    auto try_engine = [&](const std::string& name, bool fallback) { return run_engine(run_engine, name, fallback, {}); };
    auto finish = [&](bool passed) {
        out.fell_back = out.tables && kept_fallback;
        if (out.tables) {
            out.route_how = kept_how;
            out.incremental = kept_incremental;
        }
        // Kept tables that are not the ones gated last leave nothing to build on.
        if (memory && (!out.tables || remembered != least_bad)) memory->gate.state.reset();
        if (!passed && out.tables) {
            const Verdict& v = out.verdicts[*least_bad];
            out.degraded = true;
            out.degraded_reason = v.engine + ": " + v.reason;
        }
        if (!memory) return;
        // Only a routing the gate passed is a base to re-route from.
        if (!passed || !out.tables) {
            auto delta = std::move(memory->delta);
            memory->forget();
            memory->delta = std::move(delta);
            return;
        }
        memory->fabric = fabric_copy ? fabric_copy : std::make_shared<const topology::Fabric>(fabric);
        memory->lids = std::make_shared<const lidassign::LidMap>(out.tables->lids ? *out.tables->lids : lids);
        memory->tables = out.tables;
        memory->engine_state = std::move(kept_state);
        memory->options_key = key;
    };

    bool passed = false;
    for (const auto& name : spec.engines)
        if ((passed = try_engine(name, false))) break;
    const bool tried = std::find(spec.engines.begin(), spec.engines.end(), fallback_engine) != spec.engines.end();
    if (!passed && !spec.no_fallback && !tried) passed = try_engine(fallback_engine, true);
    finish(passed);
    return out;
}

std::vector<std::string> split_engine_list(std::string_view text)
{
    std::vector<std::string> out;
    const std::string whole(text);
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        return s;
    };
    for (;;) {
        auto comma = text.find(',');
        auto item = trim(text.substr(0, comma));
        if (item.empty()) throw std::invalid_argument("empty engine name in list '" + whole + "'");
        out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
    }
    return out;
}

} // namespace ibsm::routing
