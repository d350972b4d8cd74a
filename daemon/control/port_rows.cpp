#include "daemon/control/port_rows.h"

namespace ibsm::daemon::control {

namespace {

using Json = nlohmann::json;

Json counters_json(const health::PortCounters& c)
{
    Json out = Json::object();
    for (std::size_t i = 0; i < health::counter_count; ++i) {
        if (!c.supported[i]) continue;
        const auto name = std::string(health::counter_name(static_cast<health::Counter>(i)));
        out[name] = Json{{"total", c.total[i]}, {"delta", c.delta[i]}};
    }
    return out;
}

Json rates_json(const health::PortCounters& c)
{
    return Json{{"interval_s", c.interval_s},         {"xmit_bytes_per_s", c.xmit_bytes_per_s},
                {"rcv_bytes_per_s", c.rcv_bytes_per_s}, {"xmit_pkts_per_s", c.xmit_pkts_per_s},
                {"rcv_pkts_per_s", c.rcv_pkts_per_s},   {"xmit_wait_share", c.xmit_wait_share}};
}

Json link_json(const health::LinkCheck& l)
{
    return Json{{"downshifted", l.downshifted},       {"width_active", l.width_active},
                {"width_possible", l.width_possible}, {"speed_active", l.speed_active},
                {"speed_possible", l.speed_possible}, {"mtu_active", l.mtu_active},
                {"mtu_possible", l.mtu_possible},     {"vls_active", l.vls_active},
                {"vls_possible", l.vls_possible},     {"findings", l.findings}};
}

} // namespace

std::vector<health::PortHealth> linked_port_rows(const SubnetSnapshot& snap)
{
    std::vector<health::PortHealth> rows;
    const auto& f = snap.found.fabric;
    for (auto id : f.node_ids()) {
        const auto& node = f.node(id);
        const Lid node_lid = node.is_switch() ? node.port(PortNum(0)).lid : Lid{};
        for (std::size_t p = 1; p < node.ports.size(); ++p) {
            const auto& port = node.ports[p];
            if (!port.remote) continue;
            health::PortHealth row;
            row.id = {node.guid, port.num};
            row.node_desc = node.description;
            row.remote = health::PortId{f.node(port.remote->node).guid, port.remote->port};
            row.lid = node.is_switch() ? node_lid : port.lid;
            rows.push_back(std::move(row));
        }
    }
    health::sort_worst_first(rows);
    return rows;
}

Json port_row_json(const health::PortHealth& row)
{
    Json j{{"node_guid", row.id.node.str()},
           {"node_desc", row.node_desc},
           {"port", row.id.port.value()},
           {"lid", row.lid.value()},
           {"state", std::string(health::state_name(row.state))},
           {"since", row.since},
           {"reasons", row.reasons},
           {"link_downs_recent", row.link_downs_recent}};
    j["remote"] = row.remote ? Json{{"node_guid", row.remote->node.str()}, {"port", row.remote->port.value()}}
                             : Json(nullptr);
    j["counters"] = row.counters ? counters_json(*row.counters) : Json(nullptr);
    j["rates"] = row.counters ? rates_json(*row.counters) : Json(nullptr);
    j["link"] = row.link ? link_json(*row.link) : Json(nullptr);
    return j;
}

} // namespace ibsm::daemon::control
