#include "daemon/program/port_vl_tables.h"

#include <algorithm>

namespace ibsm::daemon {

const qos::PortVlTables& port_vl_tables(const qos::SlVlPlan& plan, const qos::QosPolicy* policy, bool is_switch,
                                        PortNum port, Guid port_guid)
{
    if (is_switch) return port.value() == 0 ? plan.switch_port0 : plan.switch_external;
    if (policy) {
        const std::uint64_t groups = policy->groups_of(port_guid);
        for (const auto& [group, tables] : plan.ca_groups)
            if (group < 64 && (groups >> group & 1u)) return tables;
    }
    return plan.ca;
}

mad::Sl2VlTable sl2vl_for_port(const std::array<std::uint8_t, 16>& table, unsigned vls)
{
    const unsigned n = std::clamp(vls, 1u, 15u);
    mad::Sl2VlTable t;
    for (std::size_t sl = 0; sl < mad::num_sls; ++sl) t.vl[sl] = static_cast<std::uint8_t>(table[sl] % n);
    return t;
}

mad::VlArbitrationTable vlarb_block(const std::vector<config::QosVlArbEntry>& entries, unsigned half, unsigned vls,
                                    unsigned cap)
{
    std::vector<config::QosVlArbEntry> kept;
    for (const auto& e : entries)
        if (e.vl < vls && kept.size() < cap) kept.push_back(e);
    mad::VlArbitrationTable t;
    const std::size_t first = std::size_t{half} * mad::vl_arb_block_entries;
    for (std::size_t i = 0; i < mad::vl_arb_block_entries && first + i < kept.size(); ++i)
        t.entries[i] = {kept[first + i].vl, kept[first + i].weight};
    return t;
}

} // namespace ibsm::daemon
