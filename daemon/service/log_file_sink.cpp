#include "daemon/service/log_file_sink.h"

#include <cstdio>

namespace ibsm::daemon {

LogFileSink::LogFileSink(const std::string& path, std::uint64_t max_bytes) : path_(path), max_bytes_(max_bytes)
{
    file_.open(path_, false);
    size_ = file_.size();
}

void LogFileSink::reopen()
{
    std::lock_guard<std::mutex> lock(mutex_);
    file_.reopen(false);
    size_ = file_.size();
}

void LogFileSink::sink_it_(const spdlog::details::log_msg& msg)
{
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    if (max_bytes_ > 0 && size_ > 0 && size_ + formatted.size() > max_bytes_) rotate();
    file_.write(formatted);
    size_ += formatted.size();
}

void LogFileSink::rotate()
{
    file_.flush();
    file_.close();
    const std::string old = path_ + ".1";
    // rename() replaces an older FILE.1 in one step. When it fails (a
    // read-only directory entry, FILE.1 a directory) the log goes on in the
    // same file rather than losing lines: the cap is retried after another
    // cap's worth.
    const bool moved = std::rename(path_.c_str(), old.c_str()) == 0;
    file_.open(path_, false);
    size_ = moved ? file_.size() : 0;
    if (moved) ++rotations_;
}

} // namespace ibsm::daemon
