#include "daemon/service/startup_checks.h"

#include "daemon/service/settings.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace ibsm::daemon {

void check_state_dir(const std::string& dir)
{
    const std::string fix = ": fix its permissions, or set state_dir (--state-dir) to a writable directory";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw std::runtime_error("state directory " + dir + " cannot be created (" + ec.message() + ")" + fix);
    const std::string probe = (std::filesystem::path(dir) / ".ibsmd-write-test").string();
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        throw std::runtime_error("state directory " + dir + " is not writable (" + std::strerror(errno) + ")" + fix);
    ::close(fd);
    ::unlink(probe.c_str());
}

MkeySettings checked_mkey_settings(const config::Config& cfg)
{
    auto mkeys = mkey_settings(cfg);
    if (auto* why = std::get_if<std::string>(&mkeys)) throw std::runtime_error(*why);
    return std::get<MkeySettings>(std::move(mkeys));
}

} // namespace ibsm::daemon
