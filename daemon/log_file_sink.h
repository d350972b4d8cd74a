// The log file sink of the service: spdlog's file sink plus reopen(), so
// SIGUSR1 after logrotate moved the file makes the daemon write to a new
// one at the same path (what logrotate's postrotate sends OpenSM too).
//
// Why not swap loggers: worker threads (routing, dumps) may be logging at
// the moment of the swap; reopening inside the sink under its own mutex is
// safe for them.
#pragma once

#include <spdlog/details/file_helper.h>
#include <spdlog/sinks/base_sink.h>

#include <mutex>
#include <string>

namespace ibsm::daemon {

class LogFileSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit LogFileSink(const std::string& path) { file_.open(path, false); }

    // Closes the file and opens the same path again (appending).
    void reopen()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        file_.reopen(false);
    }

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override
    {
        spdlog::memory_buf_t formatted;
        formatter_->format(msg, formatted);
        file_.write(formatted);
    }
    void flush_() override { file_.flush(); }

private:
    spdlog::details::file_helper file_;
};

} // namespace ibsm::daemon
