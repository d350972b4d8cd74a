// The `metrics:` section onto the status reporter and the HTTP endpoint.
//
// Why here: main.cpp reads no key itself (docs/design.md, "A configuration
// key"); the endpoint is made only when metrics.listen is set, and its URL
// goes into state.json so `ibsm status` says where Prometheus scrapes.
#pragma once

#include "config/config.h"
#include "daemon/metrics/metrics_server.h"
#include "daemon/publish/status_reporter.h"

#include <boost/asio/io_context.hpp>

#include <memory>

namespace ibsm::daemon {

// Sets the reporter's metrics.port_series; with metrics.listen, starts the
// endpoint over the reporter's renderer and gives the reporter its URL.
// Null when metrics.listen is not set. Throws std::runtime_error (start-up:
// exit 1) when the address cannot be bound.
std::unique_ptr<metrics::MetricsServer> start_metrics(boost::asio::io_context& io, const config::Config& cfg,
                                                      StatusReporter& status);

} // namespace ibsm::daemon
