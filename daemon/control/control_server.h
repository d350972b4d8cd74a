// The control socket's server: a Unix stream socket on the daemon's
// io_context that reads requests (protocol.h), answers them through the
// dispatcher (dispatcher.h) and streams the events feed to followers.
//
// Why bounded everywhere: whoever connects must not be able to stop or slow
// the SM. A line has at most max_line bytes (longer: an error and the
// connection closes), at most max_clients are served at once (the next is
// told so and closed), and a follower whose unsent output passes
// max_queued bytes is dropped with a log line: the loop never waits for a
// client.
//
// Data structures: the acceptor, and the sessions by id; each session owns
// its socket, a LineReader, the queue of unsent lines with its size, and
// its feed subscription while it follows.
//
// Algorithm: start() makes the socket's directory (0700) when missing,
// removes a stale socket a dead daemon left (a live one is an error), binds
// under umask 077 and sets mode 0600, listens and accepts on a coroutine.
// A connection is served only when SO_PEERCRED says uid 0 (socket_rules.h);
// the socket's mode already keeps others out, the check holds if the mode
// is loosened. Each session reads on its own coroutine and writes on
// another that runs while its queue is not empty; a session that is
// closing flushes its queue, then shuts down.
#pragma once

#include "daemon/control/dispatcher.h"
#include "daemon/core/event_feed.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace ibsm::daemon::control {

struct ServerLimits {
    std::size_t max_line = control::max_line;
    std::size_t max_clients = 16;
    std::size_t max_queued = 4 << 20; // bytes a follower may have unsent
};

struct ServerCounters {
    std::uint64_t connections = 0, refused = 0, requests = 0, errors = 0, dropped_followers = 0;
};

class ControlServer {
public:
    ControlServer(boost::asio::io_context& io, std::string path, ControlHandlers handlers, EventFeed& feed,
                  ServerLimits limits = {});
    ~ControlServer();
    ControlServer(const ControlServer&) = delete;
    ControlServer& operator=(const ControlServer&) = delete;

    // Creates the socket and starts accepting. Throws std::runtime_error
    // naming the path and the fix when it cannot (another daemon serves it,
    // the path is not a socket, the directory cannot be made).
    void start();
    // Closes the socket and every connection and removes the socket file.
    void stop();

    const std::string& path() const { return path_; }
    const ServerCounters& counters() const { return counters_; }
    std::size_t clients() const;

    class Session;

private:
    void accept_loop();
    void remove(std::uint64_t id);

    boost::asio::io_context& io_;
    std::string path_;
    ControlHandlers handlers_;
    EventFeed& feed_;
    ServerLimits limits_;
    ServerCounters counters_;
    std::unique_ptr<boost::asio::local::stream_protocol::acceptor> acceptor_;
    std::map<std::uint64_t, std::shared_ptr<Session>> sessions_;
    std::uint64_t next_id_ = 1;
    bool bound_ = false;
};

} // namespace ibsm::daemon::control
