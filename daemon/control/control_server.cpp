#include "daemon/control/control_server.h"

#include "daemon/control/socket_rules.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <stdexcept>

namespace ibsm::daemon::control {

namespace {

namespace asio = boost::asio;
using Socket = asio::local::stream_protocol::socket;
using Endpoint = asio::local::stream_protocol::endpoint;

std::optional<uid_t> peer_uid(Socket& s)
{
    ucred cred{};
    socklen_t len = sizeof cred;
    if (getsockopt(s.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
        return std::nullopt;
    return cred.uid;
}

// The socket's directory, 0700 when this makes it (an existing one is the
// operator's: systemd's RuntimeDirectoryMode, or a test's).
void make_directory(const std::filesystem::path& dir)
{
    if (dir.empty() || std::filesystem::exists(dir)) return;
    make_directory(dir.parent_path());
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("control socket directory " + dir.string() + ": cannot create: " +
                                 std::strerror(errno) + " (set control.socket to a path ibsmd may create)");
}

// A socket file left behind: removed when no process answers on it.
void clear_stale(asio::io_context& io, const std::string& path)
{
    struct stat st{};
    if (::lstat(path.c_str(), &st) != 0) return;
    if (!S_ISSOCK(st.st_mode))
        throw std::runtime_error("control socket " + path + " exists and is not a socket; remove it or set "
                                 "control.socket");
    Socket probe(io);
    boost::system::error_code ec;
    probe.connect(Endpoint(path), ec);
    if (!ec)
        throw std::runtime_error("control socket " + path + " is served by a running process (another ibsmd?); "
                                 "stop it or give this one another control.socket");
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw std::runtime_error("control socket " + path + ": cannot remove the stale socket: " +
                                 std::strerror(errno));
    spdlog::info("control: removed stale socket {}", path);
}

} // namespace

class ControlServer::Session : public std::enable_shared_from_this<ControlServer::Session> {
public:
    Session(ControlServer& server, std::uint64_t id, Socket socket)
        : server_(server), id_(id), socket_(std::move(socket)), reader_(server.limits_.max_line)
    {
    }

    void start()
    {
        asio::co_spawn(socket_.get_executor(), [self = shared_from_this()] { return self->read_loop(); },
                       asio::detached);
    }

    Socket& socket() { return socket_; }

    // Sends `line`, then closes (refusals).
    void refuse(std::string line)
    {
        send(std::move(line));
        close_after_flush();
    }

    // Immediately: the server stops, or the follower fell behind.
    void close()
    {
        if (closed_) return;
        closed_ = true;
        unfollow();
        boost::system::error_code ec;
        socket_.shutdown(Socket::shutdown_both, ec);
        socket_.close(ec);
        server_.remove(id_);
    }

private:
    asio::awaitable<void> read_loop()
    {
        auto self = shared_from_this();
        char buf[4096];
        while (!closed_ && !closing_) {
            boost::system::error_code ec;
            const std::size_t n =
                co_await socket_.async_read_some(asio::buffer(buf), asio::redirect_error(asio::use_awaitable, ec));
            if (ec || closed_) break;
            for (auto& line : reader_.feed(std::string_view(buf, n))) handle(line);
            if (reader_.overlong()) {
                ++server_.counters_.errors;
                spdlog::warn("control: a client sent a line longer than {} bytes; closing it", server_.limits_.max_line);
                send(to_line(error_response(nullptr, overlong_error(server_.limits_.max_line))));
                close_after_flush();
            }
        }
        // The peer closed (or the socket failed): nothing more to send it.
        if (!closing_) close();
    }

    void handle(const std::string& line)
    {
        if (closing_ || closed_) return;
        ++server_.counters_.requests;
        Parsed p = parse_request(line);
        if (auto* err = std::get_if<RequestError>(&p)) {
            ++server_.counters_.errors;
            spdlog::debug("control: bad request: {}", err->error);
            send(to_line(error_response(err->id, err->error)));
            return;
        }
        const auto& req = std::get<Request>(p);
        spdlog::debug("control: {}", command_name(req.cmd));
        Dispatched d = dispatch(req, server_.handlers_);
        send(to_line(d.response));
        if (d.follow && !follow_id_) {
            std::weak_ptr<Session> weak = weak_from_this();
            follow_id_ = server_.feed_.follow([weak](const nlohmann::json& event) {
                if (auto s = weak.lock()) s->on_event(event);
            });
        }
    }

    void on_event(const nlohmann::json& event)
    {
        if (closed_ || closing_) return;
        if (queued_ > server_.limits_.max_queued) {
            ++server_.counters_.dropped_followers;
            spdlog::warn("control: dropping an events follower: {} bytes unsent (it does not read fast enough)",
                         queued_);
            close();
            return;
        }
        send(to_line(event));
    }

    void send(std::string line)
    {
        if (closed_) return;
        queued_ += line.size();
        out_.push_back(std::move(line));
        if (!writing_) {
            writing_ = true;
            asio::co_spawn(socket_.get_executor(), [self = shared_from_this()] { return self->write_loop(); },
                           asio::detached);
        }
    }

    asio::awaitable<void> write_loop()
    {
        auto self = shared_from_this();
        while (!out_.empty() && !closed_) {
            boost::system::error_code ec;
            co_await asio::async_write(socket_, asio::buffer(out_.front()), asio::redirect_error(asio::use_awaitable, ec));
            if (ec || closed_) {
                writing_ = false;
                close();
                co_return;
            }
            queued_ -= out_.front().size();
            out_.pop_front();
        }
        writing_ = false;
        if (closing_) close();
    }

    void close_after_flush()
    {
        closing_ = true;
        unfollow();
        if (!writing_) close();
    }

    void unfollow()
    {
        if (follow_id_) server_.feed_.unfollow(*follow_id_);
        follow_id_.reset();
    }

    ControlServer& server_;
    std::uint64_t id_;
    Socket socket_;
    LineReader reader_;
    std::deque<std::string> out_;
    std::size_t queued_ = 0;
    std::optional<std::uint64_t> follow_id_;
    bool writing_ = false;
    bool closing_ = false; // flush what is queued, then close
    bool closed_ = false;
};

ControlServer::ControlServer(asio::io_context& io, std::string path, ControlHandlers handlers, EventFeed& feed,
                             ServerLimits limits)
    : io_(io), path_(std::move(path)), handlers_(std::move(handlers)), feed_(feed), limits_(limits)
{
}

ControlServer::~ControlServer() { stop(); }

std::size_t ControlServer::clients() const { return sessions_.size(); }

void ControlServer::start()
{
    make_directory(std::filesystem::path(path_).parent_path());
    clear_stale(io_, path_);
    acceptor_ = std::make_unique<asio::local::stream_protocol::acceptor>(io_);
    boost::system::error_code ec;
    acceptor_->open(asio::local::stream_protocol(), ec);
    if (!ec) {
        // Never reachable by others, not even between bind and chmod.
        const mode_t old = ::umask(077);
        acceptor_->bind(Endpoint(path_), ec);
        ::umask(old);
    }
    if (!ec) bound_ = true;
    if (!ec && ::chmod(path_.c_str(), 0600) != 0) ec.assign(errno, boost::system::system_category());
    if (!ec) acceptor_->listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        stop();
        throw std::runtime_error("control socket " + path_ + ": " + ec.message());
    }
    spdlog::info("control: serving {} (root only)", path_);
    accept_loop();
}

void ControlServer::accept_loop()
{
    asio::co_spawn(
        io_,
        [this]() -> asio::awaitable<void> {
            while (acceptor_ && acceptor_->is_open()) {
                boost::system::error_code ec;
                Socket s = co_await acceptor_->async_accept(asio::redirect_error(asio::use_awaitable, ec));
                if (ec == asio::error::operation_aborted || !acceptor_ || !acceptor_->is_open()) co_return;
                if (ec) {
                    spdlog::warn("control: accept failed: {}", ec.message());
                    continue;
                }
                ++counters_.connections;
                const auto id = next_id_++;
                auto session = std::make_shared<Session>(*this, id, std::move(s));
                sessions_.emplace(id, session);
                std::optional<std::string> refusal = refuse_peer(peer_uid(session->socket()));
                if (!refusal && sessions_.size() > limits_.max_clients)
                    refusal = "too many control connections (at most " + std::to_string(limits_.max_clients) +
                              "); try again";
                if (refusal) {
                    ++counters_.refused;
                    spdlog::warn("control: refused a client: {}", *refusal);
                    session->refuse(to_line(error_response(nullptr, *refusal)));
                } else {
                    session->start();
                }
            }
        },
        asio::detached);
}

void ControlServer::remove(std::uint64_t id) { sessions_.erase(id); }

void ControlServer::stop()
{
    if (acceptor_) {
        boost::system::error_code ec;
        acceptor_->close(ec);
        acceptor_.reset();
    }
    auto sessions = std::move(sessions_);
    sessions_.clear();
    for (auto& [id, s] : sessions) s->close();
    if (bound_) {
        ::unlink(path_.c_str());
        bound_ = false;
    }
}

} // namespace ibsm::daemon::control
