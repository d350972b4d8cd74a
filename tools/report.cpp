// `ibsm report`: the route-quality analysis of one routing (or two, with
// --compare) as one self-contained HTML page to look at — summary cards,
// the fabric drawn with each link coloured by its load, the hottest links,
// the problems (report/html.h). Reads its input like `ibsm analyze`
// (tools/route_input.h), so the cards show the numbers analyze prints; this
// file only does the file and command-line work.
#include "cli/app.h"
#include "daemon/core/atomic_file.h"
#include "tools/args.h"
#include "tools/health_file.h"
#include "tools/progress.h"
#include "tools/route_input.h"
#include "tools/subcommands.h"

#include "report/health_overlay.h"
#include "report/html.h"
#include "report/layout.h"
#include "report/model.h"

#include <chrono>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::tools {

namespace {

constexpr const char* report_description = R"(Writes the route-quality analysis of a routing as one self-contained HTML
file (inline SVG, CSS and JavaScript; nothing is fetched): summary cards with
the numbers `ibsm analyze --json` prints, the fabric drawn by fat-tree level
(or a Graphviz force-directed layout for other fabrics) with every link
coloured and thickened by its load and the credit-loop cycle highlighted, a
histogram of link loads, the 20 most loaded links, and the problems with
example pairs. DIR and --topology/--lfts/--sl/--paths are read as by
`ibsm analyze`. With --compare DIR2 the two routings are drawn side by side on
one layout, with the per-link load difference (second minus first).
With --health FILE (what `ibsm ports --json` prints) the fabric is drawn a
second time with every link coloured by its utilisation and marked where its
error counters grew, it trained below what both ends could do, or the health
policy reported or isolated it, followed by a table of the worst links.
)";

struct Scored {
    std::string title;
    RouteInput input;
    routing::analysis::Report analysis;
    report::Model model;
};

Scored score(const std::string& title, const RouteFiles& files, const routing::analysis::Options& opt,
             const report::ModelOptions& model_opt, const Args& args, ProgressLine& progress)
{
    Scored s{title, load_route_input(files, progress), {}, {}};
    progress.message("ibsm report: " + title + ": " + s.input.summary);
    s.analysis = run_analysis(s.input, opt, args, progress);
    progress.update("model");
    s.model = report::build_model(s.input.fabric, s.analysis, model_opt);
    return s;
}

int report_main(const Args& args)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const RouteFiles files = route_files(args);
    const std::string out = args.required("out");
    routing::analysis::Options opt = analysis_options(args);
    opt.keep_link_loads = true;
    report::ModelOptions model_opt;
    model_opt.fold_hosts_from = args.number("fold-hosts-from", model_opt.fold_hosts_from, 0,
                                            std::numeric_limits<std::uint32_t>::max());

    // Read before the analysis: a bad file fails at once, not after it.
    const std::optional<std::string> health_file = args.value("health");
    const std::vector<health::PortHealth> health_rows =
        health_file ? read_health_file(*health_file) : std::vector<health::PortHealth>{};

    ProgressLine progress("ibsm report");
    std::vector<Scored> scored;
    scored.push_back(score(args.positional().empty() ? files.topology : args.positional()[0], files, opt, model_opt,
                           args, progress));
    if (auto dir2 = args.value("compare")) scored.push_back(score(*dir2, route_dir_files(*dir2), opt, model_opt, args, progress));
    if (health_file) {
        // On the first routing: the counters describe the fabric as it runs.
        report::add_health(scored[0].model, scored[0].input.fabric, health_rows, *health_file);
        const auto& h = *scored[0].model.health;
        progress.message("ibsm report: " + *health_file + ": " + std::to_string(h.rows) + " ports, " +
                         std::to_string(h.matched) + " at a cable of " + scored[0].title +
                         (h.unmatched.empty() ? std::string()
                                              : "; " + std::to_string(h.unmatched.size()) +
                                                    " not cabled there (first: " + h.unmatched.front() + ")"));
    }

    progress.update("layout");
    const report::Layout layout = scored.size() == 2 ? report::compute_layout(scored[0].model, scored[1].model)
                                                     : report::compute_layout(scored[0].model);
    progress.update("HTML");
    std::vector<report::Side> sides;
    for (const Scored& s : scored) sides.push_back(report::Side{s.title, &s.analysis, &s.model});
    const std::string html = report::render_html(sides, layout, {cli::version_text("ibsm report")});
    // A browser (or a page reloading it) never sees a half-written report.
    daemon::write_file_atomically(out, html);
    progress.stop();
    std::cerr << "ibsm report: wrote " << out << " (" << html.size() << " bytes, layout " << layout.method << ") in "
              << std::chrono::duration<double>(Clock::now() - t0).count() << " s\n";
    return cli::exit_ok;
}

} // namespace

const CommandSpec& report_command()
{
    static const CommandSpec spec{
        "report",
        "draw a routing's quality as one self-contained HTML page (or compare two)",
        report_description,
        [] {
            std::vector<OptionSpec> o = route_input_options();
            o.push_back({"out", "FILE", "the HTML file to write (replaced atomically)", true});
            o.push_back({"compare", "DIR2",
                         "a second `ibsm route` directory of the same (or a changed) fabric: both drawn side by "
                         "side on one layout, with the per-link load difference (DIR2 minus DIR)"});
            o.push_back({"health", "FILE",
                         "what `ibsm ports --json` printed: draw the links' utilisation, errors, downshifts and "
                         "isolations (on DIR's drawing; ports are matched by node GUID and port number, others "
                         "are counted and named)"});
            for (auto& t : analysis_tuning_options()) o.push_back(std::move(t));
            o.push_back({"fold-hosts-from", "N",
                         "fold hosts into their leaf switch (not drawn; links between the same switches are one "
                         "bundle anyway) from N hosts on (default 11664; 0 always)"});
            return o;
        }(),
        "DIR",
        "an `ibsm route` output directory (or give --topology and --lfts)",
        {},
        report_main,
    };
    return spec;
}

} // namespace ibsm::tools
