// Fallback chain (see header). Design rule 6: engines return reasons; this is
// where the reasons are collected and the fallback decided.
#include "routing/chain.h"

#include <algorithm>
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
Result attempt(const Engine& engine, const topology::Fabric& fabric, const lidassign::LidMap& lids,
               const Options& options)
{
    try {
        Result r = engine.compute(fabric, lids, options);
        if (auto* t = std::get_if<RoutingTables>(&r)) t->engine = engine.name();
        return r;
    } catch (const std::exception& e) {
        return Refusal{engine.name(), std::string("engine failed: ") + e.what()};
    }
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
    // The gate's memory keeps its own copies (the fabric once per run).
    std::shared_ptr<const topology::Fabric> fabric_copy;
    std::optional<std::size_t> remembered; // index into out.verdicts of the tables the memory holds
    ChainOutcome out;
    VerifyOptions gate;
    gate.max_vls = options.max_vls;
    gate.progress = options.progress;
    std::optional<std::size_t> least_bad; // index into out.verdicts of the kept tables
    bool kept_fallback = false;

    // True when `name`'s tables passed (out.tables are they); otherwise
    // records the refusal and keeps the tables if they are the least bad.
    auto try_engine = [&](const std::string& name, bool fallback) {
        auto engine = registry.create(name);
        // The engine's own progress (if it reports any) shows as this stage.
        const std::string stage = "route (" + name + ")";
        std::optional<analysis::StageProgress> progress(std::in_place, options.progress, stage, 1);
        Options engine_options = options;
        if (options.progress)
            engine_options.progress = [&](std::string_view, std::size_t done, std::size_t total) {
                options.progress(stage, done, total);
            };
        Result r = attempt(*engine, fabric, lids, engine_options);
        progress->tick();
        progress.reset();
        if (auto* refusal = std::get_if<Refusal>(&r)) {
            if (refusal->engine.empty()) refusal->engine = name;
            out.refusals.push_back(std::move(*refusal));
            return false;
        }
        auto& t = std::get<RoutingTables>(r);
        // With QoS the gate checks the VLs the pairs really take.
        gate.vl_mask_of_sl.reset();
        if (options.vl_masks) gate.vl_mask_of_sl = options.vl_masks(t.vls_used);
        // A path engine in the colour-first order brings its own LIDs.
        const lidassign::LidMap& gated_lids = t.lids ? *t.lids : lids;
        GateRun run;
        if (memory) {
            if (!fabric_copy) fabric_copy = std::make_shared<const topology::Fabric>(fabric);
            auto tables_copy = std::make_shared<const RoutingTables>(t);
            auto inc = verify_incremental(fabric_copy, gated_lids, tables_copy, gate, memory->gate);
            if (auto* r = std::get_if<IncrementalVerdict>(&inc)) {
                run.incremental = true;
                run.retraced = r->retraced;
                run.destinations = r->destinations;
                out.verdicts.push_back(std::move(r->verdict));
                if (memory->gate.cross_check) {
                    // The full gate's verdict is the one kept; a memory that
                    // disagreed with it is not trusted again.
                    run.cross_checked = true;
                    Verdict full = verify(fabric, gated_lids, t, gate);
                    run.mismatch = first_difference(full, out.verdicts.back());
                    if (!run.mismatch.empty()) memory->gate.state.reset();
                    out.verdicts.back() = std::move(full);
                }
            } else {
                run.why_full = std::get<std::string>(inc);
                out.verdicts.push_back(verify_and_remember(fabric_copy, gated_lids, tables_copy, gate, memory->gate));
            }
            remembered = out.verdicts.size() - 1;
        } else {
            out.verdicts.push_back(verify(fabric, gated_lids, t, gate));
        }
        out.gate_runs.push_back(std::move(run));
        const Verdict& v = out.verdicts.back();
        const bool pass = v.passed();
        if (!pass) out.refusals.push_back(Refusal{t.engine, v.reason});
        if (pass || !least_bad || less_bad(v, out.verdicts[*least_bad])) {
            least_bad = out.verdicts.size() - 1;
            out.tables = std::move(t);
            kept_fallback = fallback;
        }
        return pass;
    };
    auto finish = [&](bool passed) {
        out.fell_back = out.tables && kept_fallback;
        // Kept tables that are not the ones gated last leave nothing to build on.
        if (memory && (!out.tables || remembered != least_bad)) memory->gate.state.reset();
        if (!passed && out.tables) {
            const Verdict& v = out.verdicts[*least_bad];
            out.degraded = true;
            out.degraded_reason = v.engine + ": " + v.reason;
        }
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
