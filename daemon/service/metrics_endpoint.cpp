#include "daemon/service/metrics_endpoint.h"

namespace ibsm::daemon {

std::unique_ptr<metrics::MetricsServer> start_metrics(boost::asio::io_context& io, const config::Config& cfg,
                                                      StatusReporter& status)
{
    status.set_port_series(cfg.metrics.port_series);
    if (!cfg.metrics.listen) return nullptr;
    auto server = std::make_unique<metrics::MetricsServer>(io, *cfg.metrics.listen,
                                                           [&status] { return status.metrics_renderer(); });
    server->start();
    status.set_metrics_url(server->url());
    return server;
}

} // namespace ibsm::daemon
