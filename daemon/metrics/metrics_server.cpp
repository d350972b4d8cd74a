#include "daemon/metrics/metrics_server.h"

#include "daemon/metrics/gzip.h"
#include "daemon/metrics/http_rules.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <spdlog/spdlog.h>

#include <map>
#include <stdexcept>

namespace ibsm::daemon::metrics {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto use = asio::as_tuple(asio::use_awaitable);

// At most one line per period for a kind of trouble any client can cause
// at will, with the count of those not logged.
class LogLimit {
public:
    // The number of lines held back since the last one logged, or nullopt
    // when this one is held back too.
    std::optional<std::uint64_t> allow()
    {
        const auto now = std::chrono::steady_clock::now();
        if (logged_ && now - last_ < std::chrono::seconds(10)) {
            ++held_;
            return std::nullopt;
        }
        logged_ = true;
        last_ = now;
        return std::exchange(held_, 0);
    }

private:
    bool logged_ = false;
    std::chrono::steady_clock::time_point last_{};
    std::uint64_t held_ = 0;
};

std::string held_text(std::uint64_t held)
{
    return held ? " (" + std::to_string(held) + " more since the last line)" : std::string();
}

std::string peer_of(const tcp::socket& s)
{
    boost::system::error_code ec;
    const auto ep = s.remote_endpoint(ec);
    if (ec) return "a client";
    const auto a = ep.address();
    return (a.is_v6() ? "[" + a.to_string() + "]" : a.to_string()) + ":" + std::to_string(ep.port());
}

struct Rendered {
    std::string body;
    bool gzipped = false;
};

} // namespace

struct MetricsServer::State {
    State(asio::io_context& io, config::MetricsListen w, Source s, ServerLimits l)
        : io(io), where(std::move(w)), source(std::move(s)), limits(l)
    {
    }
    ~State() { render.join(); }

    asio::io_context& io;
    config::MetricsListen where;
    Source source;
    ServerLimits limits;
    ServerCounters counters;
    std::unique_ptr<tcp::acceptor> acceptor;
    std::uint16_t bound_port = 0;
    bool running = false;
    std::uint64_t next_id = 0;
    std::map<std::uint64_t, beast::tcp_stream*> sessions; // loop thread
    LogLimit bad_log, refused_log, accept_log;
    asio::thread_pool render{1};
};

namespace {

using State = MetricsServer::State;

template <class Body>
void common_headers(http::response<Body>& res, bool keep_alive)
{
    res.set(http::field::server, "ibsmd");
    res.keep_alive(keep_alive);
}

http::response<http::string_body> plain(http::status status, unsigned version, bool keep_alive, std::string text)
{
    http::response<http::string_body> res{status, version};
    common_headers(res, keep_alive);
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.body() = std::move(text);
    res.prepare_payload();
    return res;
}

// Not a coroutine itself: GCC 12 destroyed a coroutine parameter moved
// into the lambda below twice (ASan: heap-use-after-free of the renderer's
// captures), so the renderer goes straight into co_spawn's function object.
asio::awaitable<Rendered> render_off_loop(State& st, MetricsServer::Renderer renderer, bool gzip_it)
{
    return asio::co_spawn(
        st.render.get_executor(),
        [renderer = std::move(renderer), gzip_it]() -> asio::awaitable<Rendered> {
            Rendered out{renderer(), false};
            if (gzip_it) {
                out.body = gzip(out.body);
                out.gzipped = true;
            }
            co_return out;
        },
        asio::use_awaitable);
}

template <class Message>
asio::awaitable<bool> send(State& st, beast::tcp_stream& stream, Message& msg)
{
    stream.expires_after(st.limits.write_timeout);
    auto [ec, n] = co_await http::async_write(stream, msg, use);
    if (ec) {
        if (ec == beast::error::timeout) ++st.counters.timeouts;
        spdlog::debug("metrics: answer to {} not sent: {}", peer_of(stream.socket()), ec.message());
        co_return false;
    }
    co_return true;
}

// One answer to a parsed request; false: close the connection.
asio::awaitable<bool> answer(std::shared_ptr<State> st, beast::tcp_stream& stream,
                             const http::request<http::empty_body>& req)
{
    const Route r = route(std::string_view(req.method_string().data(), req.method_string().size()),
                          std::string_view(req.target().data(), req.target().size()));
    const bool keep = req.keep_alive();
    if (r.answer == Answer::not_found) {
        ++st->counters.not_found;
        auto res = plain(http::status::not_found, req.version(), keep, "ibsmd serves /metrics only\n");
        if (r.head) res.body().clear(); // Content-Length stays: what GET would have sent
        co_return co_await send(*st, stream, res) && keep;
    }
    if (r.answer == Answer::method_not_allowed) {
        auto res = plain(http::status::method_not_allowed, req.version(), keep, "GET or HEAD /metrics\n");
        res.set(http::field::allow, "GET, HEAD");
        co_return co_await send(*st, stream, res) && keep;
    }
    const auto encoding = req[http::field::accept_encoding];
    const bool gz = accepts_gzip(std::string_view(encoding.data(), encoding.size()));
    Rendered out;
    std::string failure;
    try {
        out = co_await render_off_loop(*st, st->source(), gz);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    if (!failure.empty()) {
        ++st->counters.render_failures;
        spdlog::error("metrics: a scrape found no answer ({}); the SM keeps running", failure);
        auto res = plain(http::status::internal_server_error, req.version(), false, "rendering failed\n");
        co_await send(*st, stream, res);
        co_return false;
    }
    if (!st->running) co_return false;
    ++st->counters.scrapes;
    st->counters.gzipped += out.gzipped;
    const auto size = out.body.size();
    auto headers = [&](auto& res) {
        common_headers(res, keep);
        res.set(http::field::content_type, content_type);
        res.set(http::field::vary, "Accept-Encoding");
        if (out.gzipped) res.set(http::field::content_encoding, "gzip");
        res.content_length(size);
    };
    if (r.head) {
        http::response<http::empty_body> res{http::status::ok, req.version()};
        headers(res);
        co_return co_await send(*st, stream, res) && keep;
    }
    http::response<http::string_body> res{http::status::ok, req.version()};
    headers(res);
    res.body() = std::move(out.body);
    const bool sent = co_await send(*st, stream, res);
    if (sent) st->counters.bytes_sent += size;
    co_return sent && keep;
}

asio::awaitable<void> session(std::shared_ptr<State> st, std::uint64_t id, tcp::socket socket)
{
    beast::tcp_stream stream(std::move(socket));
    st->sessions[id] = &stream;
    struct Leave {
        State& st;
        std::uint64_t id;
        ~Leave() { st.sessions.erase(id); }
    } leave{*st, id};
    // The header limit bounds the buffer too: a request line and headers
    // that do not fit are a 400, whatever the client sends after.
    beast::flat_buffer buffer(st->limits.max_header);
    for (;;) {
        http::request_parser<http::empty_body> parser;
        parser.header_limit(static_cast<std::uint32_t>(st->limits.max_header));
        stream.expires_after(st->limits.read_timeout);
        auto [ec, n] = co_await http::async_read(stream, buffer, parser, use);
        if (!st->running) break;
        if (ec == http::error::end_of_stream || ec == asio::error::eof || ec == asio::error::connection_reset) break;
        if (ec == beast::error::timeout) {
            ++st->counters.timeouts; // idle keep-alive connections end so too
            if (buffer.size() > 0 || parser.got_some())
                spdlog::info("metrics: {} sent no whole request in {} ms; closed", peer_of(stream.socket()),
                             st->limits.read_timeout.count());
            break;
        }
        if (ec) {
            ++st->counters.bad_requests;
            if (const auto held = st->bad_log.allow())
                spdlog::warn("metrics: malformed request from {} ({}); answered 400{}", peer_of(stream.socket()),
                             ec.message(), held_text(*held));
            auto res = plain(http::status::bad_request, 11, false, "bad request: " + ec.message() + "\n");
            co_await send(*st, stream, res);
            break;
        }
        if (!co_await answer(st, stream, parser.get())) break;
    }
    boost::system::error_code ignored;
    stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream.close();
}

asio::awaitable<void> accept_loop(std::shared_ptr<State> st)
{
    while (st->running) {
        auto [ec, socket] = co_await st->acceptor->async_accept(use);
        if (!st->running || ec == asio::error::operation_aborted) co_return;
        if (ec) {
            // Out of descriptors, say: wait a little rather than spin.
            if (const auto held = st->accept_log.allow())
                spdlog::warn("metrics: accept failed: {}{}", ec.message(), held_text(*held));
            asio::steady_timer pause(st->io, std::chrono::milliseconds(100));
            co_await pause.async_wait(use);
            continue;
        }
        ++st->counters.connections;
        if (st->sessions.size() >= st->limits.max_clients) {
            ++st->counters.refused;
            if (const auto held = st->refused_log.allow())
                spdlog::warn("metrics: {} closed at once: {} scrapes are being served already (a scraper that "
                             "does not read its answers, or too many scrapers){}",
                             peer_of(socket), st->limits.max_clients, held_text(*held));
            boost::system::error_code ignored;
            socket.close(ignored);
            continue;
        }
        const auto id = ++st->next_id;
        asio::co_spawn(st->io, session(st, id, std::move(socket)), asio::detached);
    }
}

} // namespace

MetricsServer::MetricsServer(asio::io_context& io, config::MetricsListen where, Source source, ServerLimits limits)
    : state_(std::make_shared<State>(io, std::move(where), std::move(source), limits))
{
}

MetricsServer::~MetricsServer()
{
    stop();
    state_->render.join(); // no render may outlive what it reads
}

void MetricsServer::start()
{
    auto& st = *state_;
    const std::string where = config::to_string(st.where);
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(st.where.address, ec);
    if (ec) throw std::runtime_error("metrics.listen " + where + ": not an address: " + ec.message());
    const tcp::endpoint ep(address, st.where.port);
    auto acceptor = std::make_unique<tcp::acceptor>(st.io);
    auto fail = [&](const char* step, const std::string& fix) {
        throw std::runtime_error("metrics.listen " + where + ": cannot " + step + ": " + ec.message() + " (" + fix +
                                 ")");
    };
    if (acceptor->open(ep.protocol(), ec))
        fail("open a socket", "the unit's RestrictAddressFamilies= must allow AF_INET and AF_INET6");
    acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
    if (acceptor->bind(ep, ec))
        fail("bind", ec == asio::error::address_in_use ? "another process listens there; choose another port"
                                                       : "use an address of this host, or leave metrics.listen out");
    if (acceptor->listen(asio::socket_base::max_listen_connections, ec)) fail("listen", "see the error");
    st.bound_port = acceptor->local_endpoint().port();
    st.acceptor = std::move(acceptor);
    st.running = true;
    asio::co_spawn(st.io, accept_loop(state_), asio::detached);
    spdlog::info("metrics: serving {}", url());
}

void MetricsServer::stop()
{
    auto& st = *state_;
    if (!st.running) return;
    st.running = false;
    boost::system::error_code ignored;
    if (st.acceptor) st.acceptor->close(ignored);
    for (auto& [id, stream] : st.sessions) stream->socket().close(ignored);
}

std::string MetricsServer::url() const
{
    config::MetricsListen l = state_->where;
    if (state_->bound_port) l.port = state_->bound_port;
    return "http://" + config::to_string(l) + "/metrics";
}

std::uint16_t MetricsServer::port() const { return state_->bound_port; }
const ServerCounters& MetricsServer::counters() const { return state_->counters; }
std::size_t MetricsServer::clients() const { return state_->sessions.size(); }

} // namespace ibsm::daemon::metrics
