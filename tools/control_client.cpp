#include "tools/control_client.h"

#include "config/config.h"
#include "daemon/control/protocol.h"
#include "daemon/control/socket_rules.h"
#include "daemon/publish/status.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ibsm::tools {

std::vector<OptionSpec> control_options()
{
    return {
        {"socket", "PATH",
         "the daemon's control socket (default: the one state.json names, else control.sock in the state "
         "directory, as ibsmd outside systemd)"},
        {"state-dir", "DIR",
         "find the socket through DIR/state.json (default: the configuration's state_dir, " +
             config::Config{}.state_dir + ")"},
        {"config", "FILE", "read state_dir (and control.socket) from the daemon's configuration file"},
    };
}

std::string state_dir_of(const Args& args)
{
    if (args.has("state-dir") && args.has("config")) throw UsageError("give --state-dir or --config, not both");
    if (auto d = args.value("state-dir")) return *d;
    if (auto c = args.value("config")) return config::load_config_file(*c).state_dir;
    return config::Config{}.state_dir;
}

std::string control_socket_of(const Args& args)
{
    if (auto s = args.value("socket")) {
        if (args.has("state-dir") || args.has("config")) throw UsageError("give --socket alone, or --state-dir or --config");
        return *s;
    }
    std::string configured;
    if (auto c = args.value("config")) configured = config::load_config_file(*c).control.socket;
    if (!configured.empty()) return configured;
    // The path the running (or last) daemon wrote into its state.json.
    std::ifstream in(std::filesystem::path(state_dir_of(args)) / "state.json");
    if (in) {
        std::stringstream text;
        text << in.rdbuf();
        try {
            auto s = daemon::status_from_json(text.str());
            if (!s.control_socket.empty()) return s.control_socket;
        } catch (const daemon::StatusFormatError&) {
            // `ibsm status` reports a bad state.json; here the default path is tried.
        }
    }
    // ibsmd's own default for that state directory (socket_rules.h).
    return daemon::control::socket_path("", std::getenv("RUNTIME_DIRECTORY"),
                                        std::filesystem::absolute(state_dir_of(args)).string());
}

ControlClient::ControlClient(std::string path) : path_(std::move(path))
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path_.size() >= sizeof addr.sun_path) throw ControlUnavailable(path_ + ": path too long for a Unix socket");
    std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
    fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw ControlUnavailable(std::string("socket: ") + std::strerror(errno));
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        const int err = errno;
        ::close(fd_);
        fd_ = -1;
        if (err == ENOENT || err == ECONNREFUSED)
            throw ControlUnavailable("ibsmd is not running (no control socket at " + path_ + ")");
        if (err == EACCES || err == EPERM)
            throw ControlUnavailable("permission denied: " + path_ + " (the control socket serves root only)");
        throw ControlUnavailable(path_ + ": " + std::strerror(err));
    }
}

ControlClient::~ControlClient()
{
    if (fd_ >= 0) ::close(fd_);
}

std::optional<std::string> ControlClient::read_line()
{
    for (;;) {
        if (auto nl = buffered_.find('\n'); nl != std::string::npos) {
            std::string line = buffered_.substr(0, nl);
            buffered_.erase(0, nl + 1);
            return line;
        }
        char buf[65536];
        const ssize_t n = ::read(fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return std::nullopt;
        buffered_.append(buf, static_cast<std::size_t>(n));
    }
}

nlohmann::json ControlClient::call(const nlohmann::json& request)
{
    const std::string line = daemon::control::to_line(request);
    int send_error = 0;
    for (std::size_t sent = 0; sent < line.size();) {
        const ssize_t n = ::send(fd_, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            send_error = errno; // a refused peer is closed at once: its error line may still be there
            break;
        }
        sent += static_cast<std::size_t>(n);
    }
    auto answer = read_line();
    if (!answer)
        throw ControlUnavailable(path_ + ": " +
                                 (send_error ? std::string(std::strerror(send_error))
                                             : std::string("ibsmd closed the connection without an answer")));
    auto j = nlohmann::json::parse(*answer, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw ControlUnavailable(path_ + ": not a control socket answer");
    if (!j.value("ok", false)) {
        const std::string error = j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
                                                                                : std::string("unknown error");
        if (error.starts_with("permission denied")) throw ControlUnavailable(error);
        throw ControlRefused(error);
    }
    return j;
}

void ControlClient::follow(const std::function<bool(const std::string&)>& line)
{
    while (auto l = read_line())
        if (!line(*l)) return;
}

} // namespace ibsm::tools
