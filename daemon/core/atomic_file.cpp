#include "daemon/core/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace ibsm::daemon {

namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p, int err)
{
    throw std::runtime_error("cannot " + what + " " + p.string() + ": " + std::strerror(err));
}

std::filesystem::path prepare_dir(const std::filesystem::path& target)
{
    namespace fs = std::filesystem;
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create directory " + dir.string() + ": " + ec.message());
    return dir;
}

std::filesystem::path temp_name(const std::filesystem::path& dir, const std::filesystem::path& target)
{
    return dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
}

// fsync the finished temporary file, rename it over the target, and sync
// the directory so the rename itself survives a crash.
void commit(const std::filesystem::path& tmp, const std::filesystem::path& target, const std::filesystem::path& dir)
{
    int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        fail("reopen", tmp, err);
    }
    if (::fsync(fd) != 0) {
        int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        fail("fsync", tmp, err);
    }
    ::close(fd);
    if (::rename(tmp.c_str(), target.c_str()) != 0) {
        int err = errno;
        ::unlink(tmp.c_str());
        fail("rename into place", target, err);
    }
    int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
}

} // namespace

void write_file_atomically(const std::filesystem::path& target, std::string_view content)
{
    write_file_atomically(target, [&](std::ostream& out) { out.write(content.data(), static_cast<std::streamsize>(content.size())); });
}

void write_file_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write)
{
    const auto dir = prepare_dir(target);
    const auto tmp = temp_name(dir, target);
    {
        std::ofstream out;
        // A large buffer: the writers emit many short lines.
        auto buffer = std::make_unique<char[]>(1 << 20);
        out.rdbuf()->pubsetbuf(buffer.get(), 1 << 20);
        out.open(tmp, std::ios::binary | std::ios::trunc);
        if (!out) fail("create", tmp, errno);
        try {
            write(out);
        } catch (...) {
            out.close();
            ::unlink(tmp.c_str());
            throw;
        }
        out.flush();
        if (!out) {
            int err = errno;
            out.close();
            ::unlink(tmp.c_str());
            fail("write", tmp, err);
        }
        out.close();
        if (out.fail()) {
            ::unlink(tmp.c_str());
            fail("close", tmp, errno);
        }
    }
    commit(tmp, target, dir);
}

std::string load_or_set_aside(const std::filesystem::path& file, const std::function<void(const std::string&)>& parse,
                              const std::string& what_to_do)
{
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return {};
    try {
        std::ifstream in(file, std::ios::binary);
        if (!in) throw std::runtime_error("cannot open");
        std::ostringstream text;
        text << in.rdbuf();
        parse(text.str());
        return {};
    } catch (const std::exception& e) {
        const auto aside = file.string() + ".corrupt-" + std::to_string(std::time(nullptr));
        std::filesystem::rename(file, aside, ec);
        return file.string() + " unreadable (" + e.what() + "); " +
               (ec ? "could not move it aside: " + ec.message() : "moved to " + aside) + "; " + what_to_do;
    }
}

} // namespace ibsm::daemon
