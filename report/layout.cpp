// Which layout a model gets, what Graphviz is handed, and the union of two
// models for --compare. The layouts themselves: levels_layout.h (fat-trees)
// and graphviz_layout.h (everything else).
#include "report/layout.h"

#include "report/graphviz_layout.h"
#include "report/levels_layout.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

namespace ibsm::report {

LayoutInput layout_input(const Model& model)
{
    LayoutInput in;
    in.vertices.reserve(model.nodes.size());
    for (const Node& node : model.nodes)
        in.vertices.push_back(node.guid.str());
    in.edges.reserve(model.links.size());
    in.edge_weight.reserve(model.links.size());
    for (const Link& link : model.links) {
        if (link.a >= model.nodes.size() || link.b >= model.nodes.size() || link.a == link.b)
            throw std::invalid_argument("report layout: link " + std::to_string(link.a) + "-" +
                                        std::to_string(link.b) + " does not join two of the " +
                                        std::to_string(model.nodes.size()) + " nodes");
        in.edges.emplace_back(link.a, link.b);
        in.edge_weight.push_back(static_cast<unsigned>(std::max<std::size_t>(1, link.cables.size())));
    }
    in.engine = model.nodes.size() < sfdp_from_nodes ? "neato" : "sfdp";
    return in;
}

Layout compute_layout(const Model& model)
{
    if (model.height > 0)
        return levels_layout(model);
    return graphviz_layout(model, layout_input(model));
}

namespace {

// The nodes of both models (a's first, then those only b has) and their
// links, bundles present in both counted with the larger cable list. Levels
// come from whichever model ranks (a first), so a tree compared with its
// degraded self that no longer ranks is still drawn by level; nodes only the
// unranked side knows land in the levels layout's extra row.
Model union_model(const Model& a, const Model& b)
{
    Model u;
    u.height = a.height > 0 ? a.height : b.height;
    u.hosts_folded = a.hosts_folded || b.hosts_folded;
    u.nodes = a.nodes;
    if (a.height == 0)
        for (Node& n : u.nodes)
            n.level = 0;
    std::unordered_map<Guid, std::size_t> index;
    for (std::size_t i = 0; i < u.nodes.size(); ++i)
        index.emplace(u.nodes[i].guid, i);
    std::vector<std::size_t> from_b(b.nodes.size());
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
        const Node& n = b.nodes[i];
        auto [it, added] = index.emplace(n.guid, u.nodes.size());
        if (added) {
            u.nodes.push_back(n);
            if (b.height == 0 || u.height != b.height)
                u.nodes.back().level = 0;
        } else if (a.height == 0 && b.height > 0) {
            u.nodes[it->second].level = n.level;
        }
        from_b[i] = it->second;
    }

    std::map<std::pair<std::size_t, std::size_t>, std::size_t> link_at;
    auto add = [&](const Link& l, std::size_t x, std::size_t y) {
        Link copy = l;
        copy.a = std::min(x, y);
        copy.b = std::max(x, y);
        auto [it, added] = link_at.emplace(std::pair{copy.a, copy.b}, u.links.size());
        if (added)
            u.links.push_back(std::move(copy));
        else if (copy.cables.size() > u.links[it->second].cables.size())
            u.links[it->second].cables = std::move(copy.cables);
    };
    for (const Link& l : a.links)
        add(l, l.a, l.b);
    for (const Link& l : b.links) {
        if (l.a >= from_b.size() || l.b >= from_b.size())
            throw std::invalid_argument("report layout: link of the second model refers to a missing node");
        add(l, from_b[l.a], from_b[l.b]);
    }
    return u;
}

} // namespace

Layout compute_layout(const Model& a, const Model& b)
{
    return compute_layout(union_model(a, b));
}

} // namespace ibsm::report
