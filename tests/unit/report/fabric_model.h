// Test support for the layout tests and the layout benchmark: a report
// Model straight from a generated Fabric, without routing or analysis.
//
// Why: the layout reads only the model's nodes, levels and bundles; the
// real builder (report::build_model) needs an analysis Report with link
// loads, which a layout test does not care about. This keeps the model's
// conventions (switches first in fabric order, then hosts; links a < b,
// parallel cables bundled; levels from rank_fat_tree; hosts optionally
// folded into their switch) so the layouts see what they will see.
#pragma once

#include "report/model.h"
#include "routing/fattree/ranking.h"
#include "topology/fabric.h"

#include <map>
#include <stdexcept>
#include <variant>

namespace ibsm::report::test {

struct FabricModelOptions {
    bool rank = true;        // levels from rank_fat_tree (height 0 if it refuses)
    bool fold_hosts = false; // hosts not drawn, counted in their switch
};

inline Model model_of_fabric(const topology::Fabric& fabric, FabricModelOptions opt = {})
{
    Model m;
    std::vector<std::int64_t> index(fabric.node_count(), -1);
    std::vector<unsigned> level(fabric.node_count(), 0);
    if (opt.rank) {
        auto ranked = routing::fattree::rank_fat_tree(fabric, {});
        if (auto* tree = std::get_if<routing::fattree::FatTree>(&ranked)) {
            m.height = tree->height;
            for (std::size_t s = 0; s < tree->size(); ++s)
                level[tree->switches[s].value] = tree->level[s];
        }
    }
    for (bool switches : {true, false})
        for (topology::NodeId id : fabric.node_ids()) {
            const topology::Node& n = fabric.node(id);
            if (n.is_switch() != switches || (!switches && opt.fold_hosts))
                continue;
            index[id.value] = static_cast<std::int64_t>(m.nodes.size());
            Node node;
            node.name = n.description;
            node.guid = n.guid;
            node.kind = switches ? NodeKind::switch_node : NodeKind::host;
            node.level = switches ? level[id.value] : 0;
            m.nodes.push_back(node);
        }
    m.hosts_folded = opt.fold_hosts;
    std::map<std::pair<std::size_t, std::size_t>, std::size_t> bundle;
    for (const topology::Link& cable : fabric.links()) {
        std::int64_t ia = index[cable.a.node.value], ib = index[cable.b.node.value];
        if (ia < 0 || ib < 0) {
            // A folded host: counted in the switch at the other end.
            const std::int64_t sw = ia < 0 ? ib : ia;
            if (sw >= 0)
                ++m.nodes[static_cast<std::size_t>(sw)].folded_hosts;
            continue;
        }
        auto a = static_cast<std::size_t>(ia), b = static_cast<std::size_t>(ib);
        unsigned pa = cable.a.port.value(), pb = cable.b.port.value();
        if (a > b) {
            std::swap(a, b);
            std::swap(pa, pb);
        }
        auto [it, added] = bundle.emplace(std::pair{a, b}, m.links.size());
        if (added) {
            Link link;
            link.a = a;
            link.b = b;
            link.switch_link = m.nodes[a].kind == NodeKind::switch_node && m.nodes[b].kind == NodeKind::switch_node;
            m.links.push_back(link);
        }
        m.links[it->second].cables.push_back({pa, pb, 0, 0});
    }
    return m;
}

} // namespace ibsm::report::test
