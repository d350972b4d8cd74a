// The "Link health" part of the HTML report: the legend of the health
// drawing (html_drawing.h, svg_health) and the table of the worst cables.
//
// Why apart from html.cpp: the route report stands without it; this is what
// a health overlay (report/health_overlay.h) adds, and its wording (what the
// colours and badges mean, what counts as an error) lives in one place.
#pragma once

#include "report/model.h"

#include <string>

namespace ibsm::report {

// The utilisation scale and the meaning of every line style and badge.
std::string health_legend();
// Where the rows came from and how they matched, the busiest cable, and the
// worst cables (at most `limit`) with their numbers; model.health must be set.
std::string health_table(const Model& model, std::size_t side, std::size_t limit = 50);
// "1.25 GB/s", "980 MB/s", "0 B/s": a rate in bytes per second for people.
std::string byte_rate_text(double bytes_per_s);

} // namespace ibsm::report
