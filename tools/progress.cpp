#include "tools/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace ibsm::tools {

ProgressLine::ProgressLine(std::string prefix) : ProgressLine(std::move(prefix), ::isatty(STDERR_FILENO) == 1) {}

ProgressLine::ProgressLine(std::string prefix, bool enabled, std::chrono::milliseconds delay)
    : prefix_(std::move(prefix)), enabled_(enabled), delay_(delay)
{
    if (enabled_) drawer_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine()
{
    stop();
}

void ProgressLine::update(std::string_view stage, std::size_t done, std::size_t total)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (stage != stage_) {
        stage_ = stage;
        stage_start_ = std::chrono::steady_clock::now();
    }
    done_ = done;
    total_ = total;
}

std::string ProgressLine::text() const
{
    std::lock_guard<std::mutex> lock(mutex_);
    return text_locked();
}

std::string ProgressLine::text_locked() const
{
    std::string t = stage_;
    char buf[64];
    if (total_ > 0) {
        std::snprintf(buf, sizeof buf, " %zu%%", done_ * 100 / total_);
        t += buf;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - stage_start_).count();
    std::snprintf(buf, sizeof buf, " (%.0f s)", secs);
    return t + buf;
}

void ProgressLine::run()
{
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
        wake_.wait_for(lock, std::chrono::milliseconds(100));
        if (stopping_ || std::chrono::steady_clock::now() - start_ < delay_ || stage_.empty()) continue;
        const std::string plain = prefix_ + ": " + text_locked();
        if (plain == last_) continue;
        last_ = plain;
        // Pad over the rest of a longer previous line.
        std::string line = plain;
        if (line.size() < drawn_width_) line.append(drawn_width_ - line.size(), ' ');
        std::fprintf(stderr, "\r%s", line.c_str());
        std::fflush(stderr);
        drawn_width_ = plain.size();
    }
    if (drawn_width_) {
        std::fprintf(stderr, "\r%s\r", std::string(drawn_width_, ' ').c_str());
        std::fflush(stderr);
        drawn_width_ = 0;
    }
}

void ProgressLine::message(const std::string& text)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (drawn_width_) std::fprintf(stderr, "\r%s\r", std::string(drawn_width_, ' ').c_str());
    std::fprintf(stderr, "%s\n", text.c_str());
    std::fflush(stderr);
    drawn_width_ = 0;
    last_.clear();
}

void ProgressLine::stop()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopping_) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (drawer_.joinable()) drawer_.join();
}


ProgressFileStream::Buffer::Buffer(const std::string& path, ProgressLine& line, std::string stage)
    : line_(line), stage_(std::move(stage))
{
    if (!file_.open(path, std::ios::in | std::ios::binary)) return;
    const auto end = file_.pubseekoff(0, std::ios::end, std::ios::in);
    size_ = end < 0 ? 0 : static_cast<std::size_t>(end);
    file_.pubseekpos(0, std::ios::in);
    line_.update(stage_, 0, size_);
}

ProgressFileStream::Buffer::int_type ProgressFileStream::Buffer::underflow()
{
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::streamsize n = file_.sgetn(data_, sizeof data_);
    if (n <= 0) return traits_type::eof();
    consumed_ += static_cast<std::size_t>(n);
    line_.update(stage_, std::min(consumed_, size_), size_);
    setg(data_, data_, data_ + n);
    return traits_type::to_int_type(*gptr());
}

ProgressFileStream::ProgressFileStream(const std::string& path, ProgressLine& line, std::string stage)
    : std::istream(nullptr), buffer_(path, line, std::move(stage))
{
    if (!buffer_.is_open()) throw std::runtime_error(path + ": cannot open");
    rdbuf(&buffer_);
}

} // namespace ibsm::tools
