#include "daemon/sweep/confirmed_state.h"

#include "lidassign/base_lids.h"

namespace ibsm::daemon {

std::optional<std::string> unconfirmed_reason(const ProgramReport& programmed, const PortReport& activation)
{
    const auto& p = programmed;
    if (!p.lfts.complete())
        return std::to_string(p.lfts.blocks_dirty) + " LFT block(s) and " +
               std::to_string(p.lfts.switch_info_failed) + " SwitchInfo Set(s) not confirmed";
    if (!p.vls.complete()) return std::to_string(p.vls.failed) + " SL2VL/VLArb table(s) not confirmed";
    if (!p.ports.complete()) return std::to_string(p.ports.failed) + " PortInfo Set(s) failed";
    if (!p.pkeys.complete()) return std::to_string(p.pkeys.blocks_dirty) + " P_Key table block(s) not confirmed";
    if (!activation.complete()) return std::to_string(activation.failed) + " port activation Set(s) failed";
    return std::nullopt;
}

DiscoveryResult confirmed_fabric(DiscoveryResult found, const std::vector<PortPlanEntry>& plan, bool all_confirmed,
                                 const LftReport& lfts, const routing::RoutingTables& tables,
                                 std::uint8_t life_time_value, const lidassign::LidMap& lids)
{
    // When every Set was answered, the desired values are what the ports
    // hold: a SetResp need not echo every field as a later Get shows it
    // (ibsim's answers SubnetTimeOut 31 whatever was set), and comparing
    // against the echo would resend every PortInfo on every re-route. The
    // link states are never desired (a Set asks "no change"): they stay as
    // the ports last answered.
    for (const auto& e : plan) {
        mad::PortInfo held = e.current;
        if (all_confirmed) {
            held = e.desired;
            held.port_state = e.current.port_state;
            held.port_phys_state = e.current.port_phys_state;
            held.link_down_default_state = e.current.link_down_default_state;
        }
        // A port no Set reached still holds what discovery read, which is
        // its `current`: the map (165 888 ports at 27 648 hosts, a search
        // each) is written only where that changes, which on a re-route
        // is a few ports.
        if (e.answered || held != e.current) found.port_info[e.port] = held;
        auto& port = found.fabric.port(e.port);
        port.state = static_cast<topology::PortState>(e.current.port_state);
        port.lid = e.current.lid;
        port.lmc = e.current.lmc;
    }
    if (lfts.complete()) {
        // What the SwitchInfo Sets confirmed (and PortStateChange, which they
        // cleared): a LinearFDBTop left at 0 here would read as "switch lost
        // its tables" to the LFT programmer next time.
        for (auto& [id, si] : found.switch_info) {
            si.port_state_change = false;
            if (tables.lfts.count(id)) {
                si.linear_fdb_top = tables.linear_fdb_top.value();
                si.life_time_value = life_time_value;
            }
        }
    }
    lidassign::apply_lids(lids, found.fabric);
    return found;
}

} // namespace ibsm::daemon
