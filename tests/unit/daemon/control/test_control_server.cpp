// The control socket's server over a real Unix socket, driven on one thread:
// the client's I/O is non-blocking and the io_context runs between its
// steps. Checks the socket's place and modes, framing of split and joined
// lines, errors that keep the connection and the one that closes it, the
// client limit, the events feed and a follower that falls behind, stale
// and live sockets at start, and the peer check for non-root clients.
#include "daemon/control/control_server.h"

#include <catch2/catch.hpp>

#include <boost/asio/io_context.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

using namespace ibsm;
using namespace ibsm::daemon::control;
namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path = fs::temp_directory_path() / ("ibsm-control-" + std::to_string(::getpid()));
    Dir() { fs::remove_all(path); }
    ~Dir() { fs::remove_all(path); }
};

int connect_to(const std::string& path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof a.sun_path);
    std::copy(path.begin(), path.end(), a.sun_path);
    REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    return fd;
}

// A client on the test's thread: writes block (they are small), reads poll
// the socket and run the server's loop in between.
struct Client {
    boost::asio::io_context& io;
    int fd;
    std::string buffer;
    bool eof = false;

    Client(boost::asio::io_context& io_, const std::string& path) : io(io_), fd(connect_to(path)) {}
    ~Client()
    {
        if (fd >= 0) ::close(fd);
    }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    void send(const std::string& bytes)
    {
        REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
    }

    // Reads what is there; false when nothing came.
    bool pump()
    {
        char buf[65536];
        const auto n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) buffer.append(buf, static_cast<std::size_t>(n));
        // A reset is the end too: the server closed with bytes of ours unread.
        if (n == 0 || (n < 0 && errno == ECONNRESET)) eof = true;
        return n > 0;
    }

    // The next line, or nullopt at end of stream or after 5 s.
    std::optional<nlohmann::json> line()
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (std::chrono::steady_clock::now() < deadline) {
            if (auto nl = buffer.find('\n'); nl != std::string::npos) {
                auto j = nlohmann::json::parse(buffer.substr(0, nl));
                buffer.erase(0, nl + 1);
                return j;
            }
            if (eof) return std::nullopt;
            if (!pump()) io.run_for(std::chrono::milliseconds(2));
        }
        FAIL("no line from the server within 5 s");
        return std::nullopt;
    }

    // True once the server closed the connection (within 5 s).
    bool closed()
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (!eof && std::chrono::steady_clock::now() < deadline)
            if (!pump()) io.run_for(std::chrono::milliseconds(2));
        return eof;
    }

    nlohmann::json ask(const std::string& request)
    {
        send(request + "\n");
        auto j = line();
        REQUIRE(j);
        return *j;
    }
};

// Runs the loop until `done` or 5 s.
template <class F>
bool run_until(boost::asio::io_context& io, F done)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!done() && std::chrono::steady_clock::now() < deadline) io.run_for(std::chrono::milliseconds(2));
    return done();
}

ControlHandlers handlers(int& sweeps)
{
    ControlHandlers h;
    h.status = [] { return nlohmann::json{{"subnet", "up"}, {"generation", 3}}; };
    h.resweep = [&sweeps](bool heavy) {
        ++sweeps;
        return std::string(heavy ? "heavy sweep" : "light sweep");
    };
    return h;
}

} // namespace

TEST_CASE("the server makes its directory 0700 and socket 0600, answers, and removes the socket when it stops",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "run" / "control.sock").string();
    ControlServer server(io, path, handlers(sweeps), feed);
    server.start();
    struct stat st{};
    REQUIRE(::stat((d.path / "run").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    CHECK(S_ISSOCK(st.st_mode));
    CHECK((st.st_mode & 0777) == 0600);

    {
        Client c(io, path);
        auto a = c.ask(R"({"id": 7, "cmd": "status"})");
        CHECK(a["id"] == 7);
        CHECK(a["ok"] == true);
        CHECK(a["status"] == nlohmann::json{{"subnet", "up"}, {"generation", 3}});
        CHECK(server.clients() == 1);
        auto r = c.ask(R"({"id": "x", "cmd": "resweep", "heavy": true})");
        CHECK(r["id"] == "x");
        CHECK(r["ok"] == true);
        CHECK(r["result"] == "heavy sweep");
        CHECK(sweeps == 1);
    }
    // The client left: its session goes.
    CHECK(run_until(io, [&] { return server.clients() == 0; }));
    CHECK(server.counters().connections == 1);
    CHECK(server.counters().requests == 2);

    server.stop();
    CHECK_FALSE(fs::exists(path));
}

TEST_CASE("lines split across writes and joined in one are answered in order; blank lines and CRs are skipped",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ControlServer server(io, path, handlers(sweeps), feed);
    server.start();
    Client c(io, path);
    c.send(R"({"id": 1, "cm)");
    io.run_for(std::chrono::milliseconds(20));
    c.send("d\": \"status\"}\r\n\n{\"id\": 2, \"cmd\": \"resweep\"}\n{\"id\": 3, \"cmd\": \"status\"}\n");
    for (int id = 1; id <= 3; ++id) {
        auto a = c.line();
        REQUIRE(a);
        CHECK((*a)["id"] == id);
        CHECK((*a)["ok"] == true);
    }
    CHECK(sweeps == 1);
}

TEST_CASE("a bad request gets a precise error and the connection goes on; a command without a handler too",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ControlServer server(io, path, handlers(sweeps), feed);
    server.start();
    Client c(io, path);
    auto bad = c.ask(R"({"id": 1, "cmd": "status", "verbose": true})");
    CHECK(bad["ok"] == false);
    CHECK(bad["id"] == 1);
    CHECK_THAT(bad["error"].get<std::string>(), Catch::Contains("verbose"));
    auto garbage = c.ask("this is not json");
    CHECK(garbage["ok"] == false);
    CHECK(garbage["id"] == nullptr);
    auto unoffered = c.ask(R"({"id": 2, "cmd": "ports"})");
    CHECK(unoffered["ok"] == false);
    CHECK(c.ask(R"({"id": 3, "cmd": "status"})")["ok"] == true);
    CHECK(server.counters().errors == 2);
    CHECK(server.counters().requests == 4);
}

TEST_CASE("a line longer than the limit gets an error and the connection closes; others are served",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ServerLimits limits;
    limits.max_line = 64;
    ControlServer server(io, path, handlers(sweeps), feed, limits);
    server.start();
    Client other(io, path);
    Client c(io, path);
    c.send(std::string(100, 'x'));
    auto a = c.line();
    REQUIRE(a);
    CHECK(a->at("ok") == false);
    CHECK(a->at("error") == overlong_error(64));
    CHECK(c.closed());
    CHECK(server.counters().errors == 1);
    CHECK(other.ask(R"({"cmd": "status"})")["ok"] == true);
}

TEST_CASE("past max_clients a connection is told so and closed; when one leaves, the next is served",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ServerLimits limits;
    limits.max_clients = 2;
    ControlServer server(io, path, handlers(sweeps), feed, limits);
    server.start();
    auto a = std::make_unique<Client>(io, path);
    Client b(io, path);
    CHECK(a->ask(R"({"cmd": "status"})")["ok"] == true);
    CHECK(b.ask(R"({"cmd": "status"})")["ok"] == true);
    Client c(io, path);
    auto refused = c.line();
    REQUIRE(refused);
    CHECK(refused->at("ok") == false);
    CHECK(refused->at("error") == "too many control connections (at most 2); try again");
    CHECK(c.closed());
    CHECK(server.counters().refused == 1);
    a.reset();
    CHECK(run_until(io, [&] { return server.clients() == 1; }));
    Client d2(io, path);
    CHECK(d2.ask(R"({"cmd": "status"})")["ok"] == true);
}

TEST_CASE("a follower receives the events feed; one that falls behind is dropped, one that leaves unfollows",
          "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed([] { return 5.0; });
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ServerLimits limits;
    limits.max_queued = 1000;
    ControlServer server(io, path, handlers(sweeps), feed, limits);
    server.start();

    auto follower = std::make_unique<Client>(io, path);
    auto ok = follower->ask(R"({"id": 1, "cmd": "events", "follow": true})");
    CHECK(ok["ok"] == true);
    REQUIRE(feed.followers() == 1);
    feed.publish("trap", {{"number", 128}});
    auto e = follower->line();
    REQUIRE(e);
    CHECK(*e == nlohmann::json{{"time", 5.0}, {"event", "trap"}, {"number", 128}});
    follower.reset();
    CHECK(run_until(io, [&] { return feed.followers() == 0 && server.clients() == 0; }));

    // Events published faster than the loop can write them: once more than
    // max_queued bytes wait, the follower is dropped, the loop never waits.
    Client slow(io, path);
    CHECK(slow.ask(R"({"cmd": "events", "follow": true})")["ok"] == true);
    REQUIRE(feed.followers() == 1);
    for (int i = 0; i < 20; ++i) feed.publish("sweep", {{"padding", std::string(200, 'p')}});
    CHECK(server.counters().dropped_followers == 1);
    CHECK(feed.followers() == 0);
    CHECK(slow.closed());
    CHECK(server.clients() == 0);
}

TEST_CASE("start removes a stale socket, refuses a live one and a path that is not a socket", "[control][server]")
{
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    fs::create_directories(d.path);
    const auto path = (d.path / "control.sock").string();
    {
        // A socket file nobody serves any more (a daemon that died).
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::copy(path.begin(), path.end(), a.sun_path);
        REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        ::close(fd);
    }
    ControlServer first(io, path, handlers(sweeps), feed);
    first.start();
    {
        Client c(io, path);
        CHECK(c.ask(R"({"cmd": "status"})")["ok"] == true);
    }
    ControlServer second(io, path, handlers(sweeps), feed);
    CHECK_THROWS_WITH(second.start(), Catch::Contains("control socket " + path +
                                                      " is served by a running process"));
    // The failed start did not take the socket from the first.
    Client still(io, path);
    CHECK(still.ask(R"({"cmd": "status"})")["ok"] == true);

    const auto file = (d.path / "not-a-socket").string();
    std::ofstream(file) << "x";
    ControlServer third(io, file, handlers(sweeps), feed);
    CHECK_THROWS_WITH(third.start(), "control socket " + file + " exists and is not a socket; remove it or set "
                                                                "control.socket");
    CHECK(fs::is_regular_file(file));
}

TEST_CASE("a client that is not root is refused by the peer check when the socket's mode lets it connect",
          "[control][server]")
{
    REQUIRE(::geteuid() == 0); // the suite runs as root (scripts/test); the server serves root only
    Dir d;
    boost::asio::io_context io;
    daemon::EventFeed feed;
    int sweeps = 0;
    const auto path = (d.path / "control.sock").string();
    ControlServer server(io, path, handlers(sweeps), feed);
    server.start();
    // Loosened by hand: the mode no longer keeps others out.
    fs::permissions(d.path, fs::perms::all);
    fs::permissions(path, fs::perms::all);

    int out[2];
    REQUIRE(::pipe(out) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // Async-signal-safe calls only: the child reports what it read.
        ::close(out[0]);
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(2);
        const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        for (std::size_t i = 0; i < path.size(); ++i) a.sun_path[i] = path[i];
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) ::_exit(3);
        char buf[512];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof buf)) > 0)
            if (::write(out[1], buf, static_cast<std::size_t>(n)) != n) ::_exit(4);
        ::_exit(n == 0 ? 0 : 5);
    }
    ::close(out[1]);
    int status = -1;
    bool reaped = false;
    CHECK(run_until(io, [&] { return reaped || (reaped = ::waitpid(child, &status, WNOHANG) == child); }));
    std::string got;
    char buf[512];
    ssize_t n;
    while ((n = ::read(out[0], buf, sizeof buf)) > 0) got.append(buf, static_cast<std::size_t>(n));
    ::close(out[0]);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    REQUIRE(got.ends_with("\n"));
    auto j = nlohmann::json::parse(got.substr(0, got.size() - 1));
    CHECK(j["ok"] == false);
    CHECK(j["error"] == "permission denied: the control socket serves root only");
    CHECK(server.counters().refused == 1);
    CHECK(server.counters().requests == 0);
}
