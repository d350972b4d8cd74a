#include "daemon/publish/report_dump.h"

#include "lidassign/base_lids.h"
#include "report/health_overlay.h"
#include "report/html.h"
#include "report/layout.h"
#include "report/model.h"
#include "routing/analysis/analyze.h"

namespace ibsm::daemon {

std::string render_generation_report(const SubnetSnapshot& snap, const std::vector<health::PortHealth>& health)
{
    if (!snap.tables) throw std::invalid_argument("generation " + std::to_string(snap.generation) + " has no tables");
    // The analysis reads LIDs from the ports, as from an ibnetdiscover file;
    // the snapshot's assignment is the authority (the programmed one).
    topology::Fabric fabric = snap.found.fabric;
    lidassign::apply_lids(snap.lids.lids, fabric);
    routing::analysis::Options opt;
    opt.threads = 1;
    opt.keep_link_loads = true;
    const routing::analysis::Report analysis = routing::analysis::analyze(fabric, *snap.tables, opt);
    report::Model model = report::build_model(fabric, analysis);
    if (!health.empty())
        report::add_health(model, fabric, health,
                           "ibsmd's health monitor at generation " + std::to_string(snap.generation));
    const report::Layout layout = report::compute_layout(model);
    report::HtmlOptions html;
    html.generated_by = "ibsmd generation " + std::to_string(snap.generation);
    return report::render_html({report::Side{"generation " + std::to_string(snap.generation), &analysis, &model}},
                               layout, html);
}

} // namespace ibsm::daemon
