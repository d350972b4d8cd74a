#include "mcast/link_rates.h"

#include "mad/link_speed.h"

namespace ibsm::mcast {

bool rate_valid(std::uint8_t code) { return mad::rate_mbps(code).has_value(); }

int compare_rates(std::uint8_t a, std::uint8_t b) { return mad::compare_rate_codes(a, b); }

std::optional<std::uint8_t> link_rate_code(const topology::Port& p)
{
    return mad::rate_code(p.link_width_active,
                          mad::active_speed(p.link_speed_active, p.link_speed_ext_active, p.link_speed_ext_active2));
}

} // namespace ibsm::mcast
