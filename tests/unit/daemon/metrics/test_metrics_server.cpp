// The metrics endpoint over real TCP on the loopback: the loop runs on a
// thread of its own, as in the daemon, and the clients are plain blocking
// sockets on the test's thread (with receive timeouts, so a test that
// would hang fails instead). Checks the answers (200 with the rendered
// text, gzip, HEAD, 404, 405, 400 for malformed and overlong requests,
// 500 when rendering throws), keep-alive, concurrent clients, the client
// limit, the read timeout, and that rendering runs off the loop's thread.
#include "daemon/metrics/metrics_server.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <thread>

using namespace ibsm;
using namespace ibsm::daemon::metrics;

namespace {

const std::string body_text = "# HELP ibsmd_generation Generation.\n# TYPE ibsmd_generation gauge\nibsmd_generation 7\n";

// The server on a loop thread; stopped and joined on destruction.
struct Running {
    boost::asio::io_context io;
    std::atomic<std::thread::id> render_thread{};
    std::atomic<int> renders{0};
    std::atomic<bool> throw_in_render{false};
    MetricsServer server;
    std::thread loop;

    explicit Running(ServerLimits limits = {})
        : server(io, config::MetricsListen{"127.0.0.1", 0},
                 [this] {
                     // Captures too large for std::function's own buffer,
                     // as the daemon's renderer's (shared rows): held on the
                     // heap, freed once (ASan caught a double destruction).
                     return [this, text = std::make_shared<const std::string>(body_text)] {
                         render_thread = std::this_thread::get_id();
                         ++renders;
                         if (throw_in_render) throw std::runtime_error("no rows");
                         return *text;
                     };
                 },
                 limits)
    {
        server.start();
        loop = std::thread([this] {
            auto guard = boost::asio::make_work_guard(io);
            io.run();
        });
    }
    ~Running() { stop(); }
    void stop()
    {
        if (!loop.joinable()) return;
        boost::asio::post(io, [this] {
            server.stop();
            io.stop();
        });
        loop.join();
    }
    std::uint16_t port() const { return server.port(); }
};

// -1 when it cannot connect (no Catch2 macro: clients also run on other threads).
int connect_raw(std::uint16_t port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

int connect_to(std::uint16_t port)
{
    const int fd = connect_raw(port);
    REQUIRE(fd >= 0);
    return fd;
}

void send_all(int fd, const std::string& s)
{
    std::size_t off = 0;
    while (off < s.size()) {
        const auto n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return; // the server closed: what it answered is read next
        off += static_cast<std::size_t>(n);
    }
}

// Everything until the server closes (or 5 s pass: then "TIMEOUT").
std::string read_to_close(int fd)
{
    std::string out;
    char buf[65536];
    for (;;) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return out + "TIMEOUT";
            break; // reset: the server closed without reading everything
        }
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

struct Response {
    std::string head, body;
    int status = 0;
    std::string header(const std::string& name) const
    {
        const auto at = head.find("\r\n" + name + ": ");
        if (at == std::string::npos) return "";
        const auto from = at + name.size() + 4;
        return head.substr(from, head.find("\r\n", from) - from);
    }
};

// One response off the connection: headers, then Content-Length bytes
// (HEAD: none).
Response read_response(int fd, std::string& pending, bool head_request = false)
{
    char buf[65536];
    while (pending.find("\r\n\r\n") == std::string::npos) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return {};
        pending.append(buf, static_cast<std::size_t>(n));
    }
    Response r;
    const auto end = pending.find("\r\n\r\n");
    r.head = pending.substr(0, end);
    pending.erase(0, end + 4);
    if (r.head.size() < 12) return {};
    r.status = std::atoi(r.head.substr(9, 3).c_str());
    const std::size_t length = head_request ? 0 : std::strtoul(r.header("Content-Length").c_str(), nullptr, 10);
    while (pending.size() < length) {
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        pending.append(buf, static_cast<std::size_t>(n));
    }
    r.body = pending.substr(0, length);
    pending.erase(0, length);
    return r;
}

Response exchange(std::uint16_t port, const std::string& request, bool head_request = false)
{
    const int fd = connect_raw(port);
    if (fd < 0) return {};
    send_all(fd, request);
    std::string pending;
    Response r = read_response(fd, pending, head_request);
    ::close(fd);
    return r;
}

std::string gunzip(const std::string& z)
{
    z_stream s{};
    REQUIRE(inflateInit2(&s, 15 + 16) == Z_OK);
    std::string out(1 << 20, '\0');
    s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
    s.avail_in = static_cast<uInt>(z.size());
    s.next_out = reinterpret_cast<Bytef*>(out.data());
    s.avail_out = static_cast<uInt>(out.size());
    CHECK(inflate(&s, Z_FINISH) == Z_STREAM_END);
    out.resize(s.total_out);
    inflateEnd(&s);
    return out;
}

const std::string get = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

} // namespace

TEST_CASE("GET /metrics: the rendered text, rendered off the loop's thread")
{
    Running r;
    CHECK(r.server.url() == "http://127.0.0.1:" + std::to_string(r.port()) + "/metrics");
    const auto res = exchange(r.port(), get);
    CHECK(res.status == 200);
    CHECK(res.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8");
    CHECK(res.header("Content-Encoding").empty());
    CHECK(res.body == body_text);
    const auto loop_id = r.loop.get_id();
    r.stop();
    CHECK(r.renders == 1);
    CHECK(r.render_thread.load() != loop_id);
    CHECK(r.render_thread.load() != std::this_thread::get_id());
    CHECK(r.server.counters().scrapes == 1);
}

TEST_CASE("Accept-Encoding gzip gets a gzipped body; HEAD gets the headers alone")
{
    Running r;
    const auto z = exchange(r.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: deflate, gzip\r\n"
                                      "Connection: close\r\n\r\n");
    CHECK(z.status == 200);
    CHECK(z.header("Content-Encoding") == "gzip");
    CHECK(z.header("Vary") == "Accept-Encoding");
    CHECK(gunzip(z.body) == body_text);
    const auto refused = exchange(r.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip;q=0\r\n"
                                            "Connection: close\r\n\r\n");
    CHECK(refused.header("Content-Encoding").empty());
    CHECK(refused.body == body_text);
    const int fd = connect_to(r.port());
    send_all(fd, "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string raw = read_to_close(fd);
    ::close(fd);
    CHECK(raw.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
    CHECK(raw.find("Content-Length: " + std::to_string(body_text.size()) + "\r\n") != std::string::npos);
    CHECK(raw.substr(raw.find("\r\n\r\n") + 4).empty());
}

TEST_CASE("other paths get 404, other methods 405, and nothing is rendered for them")
{
    Running r;
    CHECK(exchange(r.port(), "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status == 404);
    CHECK(exchange(r.port(), "GET /metrics/x HTTP/1.0\r\n\r\n").status == 404);
    const auto post = exchange(r.port(), "POST /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CHECK(post.status == 405);
    CHECK(post.header("Allow") == "GET, HEAD");
    r.stop();
    CHECK(r.renders == 0);
    CHECK(r.server.counters().not_found == 2);
}

TEST_CASE("malformed and overlong requests get 400 and the connection closes; the server serves on")
{
    Running r;
    for (const std::string& bad : {std::string("GARBAGE\r\n\r\n"), std::string("GET /metrics HTTP/9.9\r\n\r\n"),
                                  std::string("GET /metrics HTTP/1.1\r\nNo colon here\r\n\r\n"),
                                  std::string("GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello"),
                                  "GET /metrics HTTP/1.1\r\nX-Long: " + std::string(20000, 'a') + "\r\n\r\n"}) {
        INFO(bad.substr(0, 40));
        const int fd = connect_to(r.port());
        send_all(fd, bad);
        const std::string raw = read_to_close(fd);
        ::close(fd);
        CHECK(raw.rfind("HTTP/1.1 400 Bad Request\r\n", 0) == 0);
        CHECK(raw.find("TIMEOUT") == std::string::npos);
    }
    CHECK(exchange(r.port(), get).status == 200);
    r.stop();
    CHECK(r.server.counters().bad_requests == 5);
    CHECK(r.renders == 1);
}

TEST_CASE("a renderer that throws gets 500; the next scrape is served")
{
    Running r;
    r.throw_in_render = true;
    CHECK(exchange(r.port(), get).status == 500);
    r.throw_in_render = false;
    CHECK(exchange(r.port(), get).status == 200);
    r.stop();
    CHECK(r.server.counters().render_failures == 1);
}

TEST_CASE("keep-alive: several scrapes on one connection")
{
    Running r;
    const int fd = connect_to(r.port());
    std::string pending;
    for (int i = 0; i < 3; ++i) {
        send_all(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        const auto res = read_response(fd, pending);
        CHECK(res.status == 200);
        CHECK(res.body == body_text);
    }
    ::close(fd);
    r.stop();
    CHECK(r.server.counters().connections == 1);
    CHECK(r.server.counters().scrapes == 3);
}

TEST_CASE("concurrent clients are all served")
{
    Running r;
    std::vector<std::future<Response>> clients;
    for (int i = 0; i < 6; ++i)
        clients.push_back(std::async(std::launch::async, [port = r.port()] {
            return exchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                                  "Connection: close\r\n\r\n");
        }));
    for (auto& c : clients) {
        const auto res = c.get();
        CHECK(res.status == 200);
        CHECK(gunzip(res.body) == body_text);
    }
    r.stop();
    CHECK(r.server.counters().scrapes == 6);
    CHECK(r.server.counters().gzipped == 6);
}

TEST_CASE("beyond max_clients a connection is closed at once; a silent client is dropped after read_timeout")
{
    ServerLimits limits;
    limits.max_clients = 2;
    limits.read_timeout = std::chrono::milliseconds(300);
    Running r(limits);
    // Two connections held open (each has had an answer, so each is served).
    int held[2];
    std::string pending[2];
    for (int i = 0; i < 2; ++i) {
        held[i] = connect_to(r.port());
        send_all(held[i], "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        CHECK(read_response(held[i], pending[i]).status == 200);
    }
    const int third = connect_to(r.port());
    send_all(third, get);
    CHECK(read_to_close(third).empty()); // closed unanswered, well before its 5 s receive timeout
    ::close(third);
    // The held ones send nothing more: after read_timeout they are closed.
    for (int fd : held) {
        CHECK(read_to_close(fd).empty());
        ::close(fd);
    }
    // A client that sends half a request and stalls is closed too.
    const int slow = connect_to(r.port());
    send_all(slow, "GET /met");
    CHECK(read_to_close(slow).empty());
    ::close(slow);
    CHECK(exchange(r.port(), get).status == 200); // room again
    r.stop();
    CHECK(r.server.counters().refused == 1);
    CHECK(r.server.counters().timeouts >= 3);
}

TEST_CASE("an address in use is refused at start, naming it")
{
    Running r;
    boost::asio::io_context io;
    MetricsServer second(io, config::MetricsListen{"127.0.0.1", r.port()}, [] { return [] { return std::string(); }; });
    try {
        second.start();
        FAIL("started twice on one port");
    } catch (const std::runtime_error& e) {
        CHECK(std::string(e.what()).find("metrics.listen 127.0.0.1:" + std::to_string(r.port()) + ": cannot bind") !=
              std::string::npos);
        CHECK(std::string(e.what()).find("choose another port") != std::string::npos);
    }
}
