// dfsssp where its layers fit and score no worse, else nue (see header).
#include "routing/dfsssp_or_nue.h"

#include "routing/dfsssp.h"
#include "routing/nue.h"
#include "routing/nue/ebb_estimate.h"

#include <algorithm>
#include <string>

namespace ibsm::routing {

Result DfssspOrNueEngine::compute(const topology::Fabric& fabric, const lidassign::LidMap& lids,
                                  const Options& options) const
{
    const unsigned budget = std::clamp<unsigned>(options.max_vls, 1, 15);
    Result d = DfssspEngine{false}.compute(fabric, lids, options);
    auto* dt = std::get_if<RoutingTables>(&d);
    const bool fits = dt != nullptr;
    const std::string budget_text = std::to_string(budget) + (budget == 1 ? " VL" : " VLs");
    if (!fits) {
        Result n = NueEngine{}.compute(fabric, lids, options);
        if (auto* nt = std::get_if<RoutingTables>(&n)) {
            nt->engine = "nue";
            nt->notes.push_back("dfsssp-or-nue picked nue: dfsssp " + std::get<Refusal>(d).reason);
        }
        return n;
    }
    dt->engine = "dfsssp";
    std::size_t hosts = 0;
    for (const auto& [port, pl] : lids.entries())
        if (!fabric.node(port.node).is_switch()) ++hosts;
    if (hosts > NueEngine::compare_host_limit) {
        dt->notes.push_back("dfsssp-or-nue picked dfsssp: its " + std::to_string(dt->layers_needed) +
                            " layers fit " + budget_text + " (not compared with nue above " +
                            std::to_string(NueEngine::compare_host_limit) + " hosts)");
        return d;
    }
    Result n = NueEngine{}.compute(fabric, lids, options);
    auto* nt = std::get_if<RoutingTables>(&n);
    if (!nt) return d;
    nt->engine = "nue";
    const unsigned bisections = NueEngine::estimate_bisections;
    const double de = nue::estimate_ebb(fabric, lids, *dt, bisections, 1);
    const double ne = nue::estimate_ebb(fabric, lids, *nt, bisections, 1);
    const std::string why = "dfsssp's " + std::to_string(dt->layers_needed) + " layers fit " + budget_text +
                            "; EBB estimate (" + std::to_string(bisections) + " bisections) dfsssp " + nue::fixed4(de) +
                            ", nue " + nue::fixed4(ne);
    if (de >= ne) {
        dt->notes.push_back("dfsssp-or-nue picked dfsssp: " + why);
        return d;
    }
    nt->notes.push_back("dfsssp-or-nue picked nue: " + why);
    return n;
}

} // namespace ibsm::routing
