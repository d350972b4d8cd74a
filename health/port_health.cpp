#include "health/port_health.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <tuple>

namespace ibsm::health {

namespace {

struct Names {
    std::string_view snake;
    std::string_view iba;
};

constexpr std::array<Names, counter_count> names{{
    {"symbol_errors", "SymbolErrorCounter"},
    {"link_error_recovery", "LinkErrorRecoveryCounter"},
    {"link_downed", "LinkDownedCounter"},
    {"rcv_errors", "PortRcvErrors"},
    {"rcv_remote_physical_errors", "PortRcvRemotePhysicalErrors"},
    {"rcv_switch_relay_errors", "PortRcvSwitchRelayErrors"},
    {"xmit_discards", "PortXmitDiscards"},
    {"xmit_constraint_errors", "PortXmitConstraintErrors"},
    {"rcv_constraint_errors", "PortRcvConstraintErrors"},
    {"local_link_integrity_errors", "LocalLinkIntegrityErrors"},
    {"excessive_buffer_overrun_errors", "ExcessiveBufferOverrunErrors"},
    {"vl15_dropped", "VL15Dropped"},
    {"xmit_data", "PortXmitData"},
    {"rcv_data", "PortRcvData"},
    {"xmit_pkts", "PortXmitPkts"},
    {"rcv_pkts", "PortRcvPkts"},
    {"xmit_wait", "PortXmitWait"},
}};

bool iequal(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

int state_rank(HealthState s)
{
    switch (s) {
    case HealthState::isolated: return 0;
    case HealthState::isolation_refused: return 1;
    case HealthState::reported: return 2;
    case HealthState::ok: return 3;
    }
    return 3;
}

std::uint64_t error_sum(const Shared<PortCounters>& c, bool deltas)
{
    if (!c) return 0;
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < error_counter_count; ++i) sum += deltas ? c->delta[i] : c->total[i];
    return sum;
}

double traffic(const Shared<PortCounters>& c)
{
    return c ? c->xmit_bytes_per_s + c->rcv_bytes_per_s : 0.0;
}

} // namespace

std::string_view counter_name(Counter c) { return names.at(index(c)).snake; }
std::string_view counter_iba_name(Counter c) { return names.at(index(c)).iba; }

std::optional<Counter> counter_from_name(std::string_view name)
{
    for (std::size_t i = 0; i < counter_count; ++i)
        if (name == names[i].snake || iequal(name, names[i].iba)) return static_cast<Counter>(i);
    return std::nullopt;
}

std::string_view state_name(HealthState s)
{
    switch (s) {
    case HealthState::ok: return "ok";
    case HealthState::reported: return "reported";
    case HealthState::isolated: return "isolated";
    case HealthState::isolation_refused: return "isolation-refused";
    }
    return "ok";
}

void sort_worst_first(std::vector<PortHealth>& rows)
{
    auto key = [](const PortHealth& r) {
        const bool down = r.link && r.link->downshifted;
        // Larger is worse for every numeric part; negate into ascending order.
        return std::make_tuple(state_rank(r.state), -static_cast<double>(error_sum(r.counters, true)), down ? 0 : 1,
                               -static_cast<double>(error_sum(r.counters, false)), -traffic(r.counters), r.id);
    };
    // The order is settled on indexes and the rows moved into it in place:
    // std::stable_sort of the rows themselves took a buffer of half of them
    // (61 MB at 27 648 hosts, docs/scale.md "Memory").
    std::vector<std::size_t> order(rows.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return key(rows[a]) < key(rows[b]); });
    // Row order[k] goes to position k: follow each cycle once, marking the
    // positions filled (order[k] = k).
    for (std::size_t start = 0; start < order.size(); ++start) {
        if (order[start] == start) continue;
        PortHealth held = std::move(rows[start]);
        std::size_t k = start;
        while (order[k] != start) {
            const std::size_t from = order[k];
            rows[k] = std::move(rows[from]);
            order[k] = k;
            k = from;
        }
        rows[k] = std::move(held);
        order[k] = k;
    }
}

std::string_view active_width_name(const LinkCheck& l) { return mad::width_name(l.width_active); }
std::string_view possible_width_name(const LinkCheck& l)
{
    return l.width_possible ? mad::width_name(l.width_possible) : std::string_view();
}
std::string_view active_speed_name(const LinkCheck& l) { return mad::speed_name(l.speed_active); }
std::string_view possible_speed_name(const LinkCheck& l)
{
    return l.speed_possible != mad::LaneSpeed::none ? mad::speed_name(l.speed_possible) : std::string_view();
}

} // namespace ibsm::health

namespace ibsm::health {

LinkChecks::LinkChecks(std::vector<value_type> entries) : v_(std::move(entries))
{
    // check_links gives them in order: then this is one pass.
    auto before = [](const auto& a, const auto& b) { return a.first < b.first; };
    if (!std::is_sorted(v_.begin(), v_.end(), before)) std::stable_sort(v_.begin(), v_.end(), before);
    // Of equal ports the last given is kept (as repeated map assignments).
    std::size_t kept = 0;
    for (std::size_t i = 0; i < v_.size(); ++i) {
        if (kept > 0 && v_[kept - 1].first == v_[i].first) v_[kept - 1] = std::move(v_[i]);
        else if (kept++ != i) v_[kept - 1] = std::move(v_[i]);
    }
    v_.erase(v_.begin() + static_cast<std::ptrdiff_t>(kept), v_.end());
}

LinkChecks::const_iterator LinkChecks::find(const PortId& id) const
{
    auto it = std::lower_bound(v_.begin(), v_.end(), id, [](const value_type& e, const PortId& k) { return e.first < k; });
    return it != v_.end() && it->first == id ? it : v_.end();
}

LinkChecks::iterator LinkChecks::find(const PortId& id)
{
    auto it = std::lower_bound(v_.begin(), v_.end(), id, [](const value_type& e, const PortId& k) { return e.first < k; });
    return it != v_.end() && it->first == id ? it : v_.end();
}

const LinkCheck& LinkChecks::at(const PortId& id) const
{
    auto it = find(id);
    if (it == end()) throw std::out_of_range("no link check for that port");
    return it->second;
}

LinkCheck& LinkChecks::operator[](const PortId& id)
{
    auto it = std::lower_bound(v_.begin(), v_.end(), id, [](const value_type& e, const PortId& k) { return e.first < k; });
    if (it == v_.end() || it->first != id) it = v_.insert(it, value_type{id, LinkCheck{}});
    return it->second;
}

} // namespace ibsm::health
