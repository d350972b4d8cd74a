// The self-contained HTML report: summary cards, the SVG drawing, a load
// histogram, the top-20 links table and the problems, one file with inline
// CSS, SVG and a little JavaScript (hover details); nothing is fetched.
//
// Why: an operator (or we) can look at a routing instead of reading numbers;
// the summary cards carry exactly the numbers `ibsm analyze --json` prints so
// the two cannot disagree (tested in a browser, tests/integration/report_*).
#pragma once

#include "report/layout.h"
#include "report/model.h"
#include "routing/analysis/report.h"

#include <string>
#include <vector>

namespace ibsm::report {

// One routing to show: its analysis and the model built from it.
struct Side {
    std::string title; // e.g. the directory it came from
    const routing::analysis::Report* analysis = nullptr;
    const Model* model = nullptr;
};

struct HtmlOptions {
    std::string generated_by; // e.g. "ibsm report 0.1.0" or "ibsmd gen 12"
};

// One side, or two (--compare: side by side on `layout`, plus the per-link
// load difference second minus first).
std::string render_html(const std::vector<Side>& sides, const Layout& layout, const HtmlOptions& options);

} // namespace ibsm::report
