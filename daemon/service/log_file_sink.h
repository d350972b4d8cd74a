// The log file sink of the service: spdlog's file sink plus reopen(), so
// SIGUSR1 after logrotate moved the file makes the daemon write to a new
// one at the same path (what logrotate's postrotate sends OpenSM too), and
// an optional size cap (log.max_size_mb).
//
// Why not swap loggers: worker threads (routing, dumps) may be logging at
// the moment of the swap; reopening inside the sink under its own mutex is
// safe for them.
//
// Why our own cap rather than spdlog's rotating_file_sink: that sink cannot
// reopen, and logrotate and the cap must work on the same file. At the cap
// the file becomes FILE.1 (replacing an older FILE.1) and a new FILE starts,
// so the log never takes more than twice the cap; the size is counted as
// lines are written (no stat per line) and re-read at every (re)open.
#pragma once

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

#include <cstdint>
#include <mutex>
#include <string>

namespace ibsm::daemon {

class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    // max_bytes 0: no cap.
    explicit LogFileSink(const std::string& path, std::uint64_t max_bytes = 0);

    // Closes the file and opens the same path again (appending).
    void reopen();
    // Times the cap moved the file to FILE.1.
    std::uint64_t rotations() const { return rotations_; }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override;
    void flush_() override { file_.flush(); }

private:
    void rotate();

    std::string path_;
    std::uint64_t max_bytes_;
    std::uint64_t size_ = 0;
    std::uint64_t rotations_ = 0;
    spdlog::details::file_helper file_;
};

} // namespace ibsm::daemon
