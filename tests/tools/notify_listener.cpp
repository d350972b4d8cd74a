// notify_listener: a stand-in for systemd's notify socket, so an
// integration test can see what ibsmd tells systemd (sd_notify(3)).
//
//   notify_listener SOCKET OUT
//
// Binds an AF_UNIX datagram socket at the path SOCKET (the test exports
// NOTIFY_SOCKET=SOCKET to ibsmd) and appends every datagram to OUT as one
// line: milliseconds since start, a space, the datagram with its
// newline-separated assignments joined by " | ". Exits 0 after a datagram
// holding STOPPING=1, or on SIGTERM/SIGINT.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

namespace {

volatile std::sig_atomic_t stop = 0;
void on_signal(int) { stop = 1; }

} // namespace

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::cerr << "usage: notify_listener SOCKET OUT\n";
        return 64;
    }
    const std::string path = argv[1];
    std::ofstream out(argv[2], std::ios::app);
    if (!out) {
        std::cerr << "notify_listener: cannot write " << argv[2] << "\n";
        return 1;
    }
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) {
        std::cerr << "notify_listener: socket path too long\n";
        return 64;
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    unlink(path.c_str());
    if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        std::perror("notify_listener: bind");
        return 1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal; // no SA_RESTART: recv() returns EINTR
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);

    const auto start = std::chrono::steady_clock::now();
    char buf[4096];
    while (!stop) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0) continue; // EINTR: the loop condition decides
        std::string msg(buf, static_cast<std::size_t>(n));
        while (!msg.empty() && msg.back() == '\n') msg.pop_back();
        for (std::size_t i = 0; (i = msg.find('\n', i)) != std::string::npos;) msg.replace(i, 1, " | ");
        const auto ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        out << ms << ' ' << msg << std::endl;
        if (msg.starts_with("STOPPING=1") || msg.find(" | STOPPING=1") != std::string::npos) break;
    }
    close(fd);
    unlink(path.c_str());
    return 0;
}
