// What the metrics endpoint answers to a request, decided from its method,
// target and Accept-Encoding alone. Pure, so every rule is a unit test and
// the server (metrics_server.h) only carries bytes.
//
// Why so few: the endpoint exists for Prometheus (and curl); anything else
// reaching it is a mistake or a probe and gets the shortest answer that says
// so. GET and HEAD of /metrics (a query string is ignored, as Prometheus'
// own exporters do); another method there is 405 with Allow; another path
// is 404.
#pragma once

#include <string_view>

namespace ibsm::daemon::metrics {

enum class Answer { metrics, not_found, method_not_allowed };

struct Route {
    Answer answer = Answer::not_found;
    bool head = false; // headers only
};

Route route(std::string_view method, std::string_view target);

// Whether an Accept-Encoding header value admits gzip: a "gzip" (or
// "x-gzip", or "*") coding whose q-value is not 0 (RFC 9110, 12.5.3).
bool accepts_gzip(std::string_view accept_encoding);

// The Content-Type of the Prometheus text exposition format.
inline constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

} // namespace ibsm::daemon::metrics
