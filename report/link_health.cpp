#include "report/link_health.h"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace ibsm::report {

int state_rank(health::HealthState s)
{
    switch (s) {
    case health::HealthState::isolated: return 0;
    case health::HealthState::isolation_refused: return 1;
    case health::HealthState::reported: return 2;
    case health::HealthState::ok: return 3;
    }
    return 3;
}

std::vector<std::size_t> HealthOverlay::worst() const
{
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < cables.size(); ++i)
        if (cables[i].has_problem()) out.push_back(i);
    // Larger is worse for every key but the state rank; negate to sort ascending.
    auto key = [&](std::size_t i) {
        const CableHealth& c = cables[i];
        return std::tuple(state_rank(c.state), -static_cast<double>(c.errors_delta), c.downshifted ? 0 : 1,
                          -static_cast<double>(c.errors_total), -c.utilisation.value_or(0.0), c.order);
    };
    std::stable_sort(out.begin(), out.end(), [&](std::size_t x, std::size_t y) { return key(x) < key(y); });
    return out;
}

std::optional<std::size_t> HealthOverlay::busiest() const
{
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < cables.size(); ++i)
        if (cables[i].utilisation && (!best || *cables[i].utilisation > *cables[*best].utilisation)) best = i;
    return best;
}

} // namespace ibsm::report
