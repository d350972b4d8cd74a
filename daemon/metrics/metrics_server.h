// The metrics endpoint (metrics.listen): HTTP/1.1 on the daemon's loop,
// serving the Prometheus text exposition format, gzipped when the scraper
// accepts it.
//
// Why bounded everywhere: whoever connects must not be able to stall the SM
// or grow its memory. At most max_clients connections are served at once
// (the next is closed at accept); a request's header has max_header bytes
// and must arrive within read_timeout (an idle keep-alive connection is
// closed after it too); an answer must be read within write_timeout; a
// request with a body, or malformed, gets 400 and the connection closes,
// logged at most once per 10 s with a count of those not logged.
//
// Why rendering is not on the loop: at 27 648 hosts the text runs to
// megabytes and takes a tenth of a second or more to format and gzip. The
// loop only takes the snapshot (Source: the status as of now and the shared,
// immutable port rows, docs/design.md "Threads"); the renderer it returns
// runs on the server's own thread, and the answer is written from the loop.
// That thread keeps the normal CPU priority, unlike the dump writer's: a
// render is bounded work a scraper waits for, and at nice 19 on a loaded
// host (load 27 on 2 cores) it starved past curl's 10 s timeout.
//
// Data structures: the acceptor; the live connections by id (closed by
// stop()); counters; all on the loop, shared with the sessions' coroutines
// through one shared State so a session outliving the server touches
// nothing freed.
//
// Algorithm: an accept coroutine; one coroutine per connection reading
// requests with Beast's parser (http_rules.h decides the answer), and
// writing each answer before reading the next.
#pragma once

#include "config/config.h"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace ibsm::daemon::metrics {

struct ServerLimits {
    std::size_t max_clients = 8;
    std::size_t max_header = 8 * 1024;
    std::chrono::milliseconds read_timeout{10'000};
    std::chrono::milliseconds write_timeout{30'000};
};

struct ServerCounters {
    std::uint64_t connections = 0, refused = 0, scrapes = 0, gzipped = 0, bad_requests = 0, not_found = 0,
                  timeouts = 0, render_failures = 0;
    std::uint64_t bytes_sent = 0; // bodies, as sent
};

class MetricsServer {
public:
    // Loop thread: renders the exposition text, on the server's thread.
    using Renderer = std::function<std::string()>;
    // Loop thread: the snapshot to render, taken at each scrape.
    using Source = std::function<Renderer()>;

    MetricsServer(boost::asio::io_context& io, config::MetricsListen where, Source source, ServerLimits limits = {});
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    // Binds and listens. Throws std::runtime_error naming the address and
    // what to do when it cannot (in use, not an address of this host, not
    // permitted).
    void start();
    // Closes the acceptor and every connection.
    void stop();

    // "http://127.0.0.1:9683/metrics" (the bound port: port 0 asks the
    // kernel for one, as the tests do).
    std::string url() const;
    std::uint16_t port() const;
    const ServerCounters& counters() const;
    std::size_t clients() const;

    struct State;

private:
    std::shared_ptr<State> state_;
};

} // namespace ibsm::daemon::metrics
