// The SVG parts of the HTML report: the fabric drawing of one side, the
// per-link load difference of two sides, and the load histogram.
//
// Why: these carry the bulk of the page on large fabrics, so the markup per
// element is kept to coordinates, an index and the load's colour and width
// (classes for the rest); what hover shows lives once in the page's JSON
// blob (html_assets.h), built here alongside the elements it describes.
//
// Data structures: Strings interns every name once (the blob's "S"); links
// and nodes are numbered as in their Model, so data-i / data-n index the
// blob's arrays directly.
#pragma once

#include "report/layout.h"
#include "report/model.h"
#include "routing/analysis/report.h"

#include <nlohmann/json.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace ibsm::report {

using Json = nlohmann::ordered_json;

class Strings {
public:
    std::size_t id(const std::string& s);
    const std::vector<std::string>& all() const { return list_; }

private:
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> list_;
};

// <svg class="fab" data-side=side> with one <line data-i> per Model link;
// `blob` receives {"nodes": ..., "links": ...} for the script.
std::string svg_fabric(const Model& model, const Layout& layout, std::size_t side, Strings& names, Json& blob);

// <svg class="hlt" data-side=side>: the drawing again, each link coloured by
// its utilisation (model.health must be set), errors, downshifts and
// isolations marked by line style and a badge at the link's middle (badges
// carry the link's data-i too); `blob` receives {"links": [cable indices or
// null per link], "cables": [...]} (html_assets.h).
std::string svg_health(const Model& model, const Layout& layout, std::size_t side, Strings& names, Json& blob);

// One link of either side: its bundle's hottest cable load on each side, and
// the largest change of one cable in one direction (second minus first; the
// hottest loads can stay equal while routes move between parallel cables or
// directions).
struct LinkDiff {
    Guid a, b; // a < b
    std::string name_a, name_b;
    std::uint64_t first = 0, second = 0;
    std::int64_t change = 0;
    std::int64_t diff() const { return change; }
};
// Every link of either model, keyed by its two nodes' GUIDs, in a stable order.
std::vector<LinkDiff> link_diffs(const Model& first, const Model& second);
// <svg class="diff"> with one <line data-i> per LinkDiff; `blob` gets the array.
std::string svg_diff(const std::vector<LinkDiff>& diffs, const Layout& layout, Strings& names, Json& blob);

// Bars of how many directed channels carry each load range (from
// Report::link_loads); empty when the report kept no link loads.
std::string svg_histogram(const std::vector<routing::analysis::LinkLoad>& loads);

} // namespace ibsm::report
