// metrics.listen's text to an address and a port, and back.
//
// Why its own rule: the endpoint is off unless configured and must stay on
// the loopback unless an address is written out, so "9683" alone means
// 127.0.0.1:9683. Addresses are numeric only (IPv4, or IPv6 in brackets):
// a name would need resolving at start-up, and what it resolves to may
// change under a running daemon. Pure.
#pragma once

#include "config/config.h"

#include <string>
#include <string_view>
#include <variant>

namespace ibsm::config {

// The listen address, or why the text is not one (a sentence that says
// what to write).
std::variant<MetricsListen, std::string> parse_metrics_listen(std::string_view text);

} // namespace ibsm::config
