// The text `ibsm ports` prints from the daemon's `ports` answer: one row
// per port, worst first as the daemon sorted them. Pure: JSON in, text out.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ibsm::tools {

// "1.2 GB/s", "512 B/s": bytes per second in human units.
std::string human_rate(double bytes_per_s);

// `answer` holds "ports" (health/port_health_json.h objects); missing fields print "-".
std::string ports_table(const nlohmann::json& answer);

} // namespace ibsm::tools
