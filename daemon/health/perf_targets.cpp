#include "daemon/health/perf_targets.h"

namespace ibsm::daemon {

std::vector<PerfNode> perf_targets(const SubnetSnapshot& snap)
{
    const auto& fabric = snap.found.fabric;
    std::vector<PerfNode> switches, cas;
    for (const auto id : fabric.node_ids()) {
        const auto& node = fabric.node(id);
        if (node.is_switch()) {
            const auto lids = snap.lids.lids.lids_of({id, PortNum(0)});
            if (!lids) continue;
            PerfNode t{node.guid, lids->base, {}};
            for (std::uint8_t p = 1; p <= node.num_ports(); ++p)
                if (node.port(PortNum(p)).remote) t.ports.push_back(PortNum(p));
            if (!t.ports.empty()) switches.push_back(std::move(t));
            continue;
        }
        for (std::uint8_t p = 1; p <= node.num_ports(); ++p) {
            if (!node.port(PortNum(p)).remote) continue;
            const auto lids = snap.lids.lids.lids_of({id, PortNum(p)});
            if (!lids) continue;
            cas.push_back(PerfNode{node.guid, lids->base, {PortNum(p)}});
        }
    }
    switches.insert(switches.end(), std::make_move_iterator(cas.begin()), std::make_move_iterator(cas.end()));
    return switches;
}

std::vector<health::PortHealth> perf_rows(const std::shared_ptr<const health::CounterTable>& table,
                                          const SubnetSnapshot* snap)
{
    std::vector<health::PortHealth> rows;
    rows.reserve(table->size());
    for (const auto& [id, counters] : *table) {
        health::PortHealth row;
        row.id = id;
        row.counters = std::shared_ptr<const health::PortCounters>(table, &counters);
        if (snap) {
            const auto& fabric = snap->found.fabric;
            if (const auto n = fabric.find_node(id.node)) {
                const auto& node = fabric.node(*n);
                row.node_desc = node.description;
                row.node_name = node.name;
                if (id.port.value() <= node.num_ports()) {
                    if (const auto far = node.port(id.port).remote)
                        row.remote = health::PortId{fabric.node(far->node).guid, far->port};
                    const PortNum lid_port = node.is_switch() ? PortNum(0) : id.port;
                    if (const auto lids = snap->lids.lids.lids_of({*n, lid_port})) row.lid = lids->base;
                }
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace ibsm::daemon
