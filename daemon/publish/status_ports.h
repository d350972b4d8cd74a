// The per-port part of the status: the monitored ports in state.json and the
// health paragraph of `ibsm status` (their metric families: port_series.h).
//
// Why apart from status.cpp: the port rows are the bulk of the files (one
// object and some twenty samples per port) and have their own rules: data
// counters count 4-byte words and are exported in bytes, XmitWait only where
// the port supports it, node descriptions escaped in labels. The rows of
// state.json are health::PortHealth in their one JSON form
// (health/port_health_json.h); only the poller's totals are encoded here.
// Pure.
#pragma once

#include "daemon/publish/status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace ibsm::daemon {

// Prometheus label value: backslash, double quote and newline escaped.
std::string prom_label_value(std::string_view v);

// "12 s ago", "5 min ago", "2.5 h ago": the status text's ages.
std::string age_text(double seconds);

nlohmann::json perf_to_json(const StatusPerf& p);
StatusPerf perf_from_json(const nlohmann::json& j);

// "counters:     ..." and the worst `worst` ports, for `ibsm status`.
std::string ports_status_text(const StatusPerf& perf, const std::vector<health::PortHealth>& rows, double now,
                              std::size_t worst = 5);

} // namespace ibsm::daemon
