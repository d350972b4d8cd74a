// A progress line on the terminal for long `ibsm` work: "ibsm analyze:
// trace 45% (3.2 s)", redrawn in place on stderr.
//
// Why: `ibsm analyze` on 11 664 hosts was silent for 9 s. The line appears
// only when stderr is a terminal (never in a pipe, a log or --json output,
// which goes to stdout or a file) and only once the work has lasted a
// second, so short runs and scripts see nothing new.
//
// Data structures: the current stage and its counts under a mutex (the
// analysis reports from worker threads), and a drawing thread.
//
// Algorithm: update() only records; the drawing thread wakes every 100 ms
// and, after the first second, redraws the line when it changed (the
// elapsed time changes it every second even in a stage without counts).
// stop() (or the destructor) erases the line so the tool's own output
// starts on a clean line; message() prints a line of the tool's own above it.
//
// ProgressFileStream reads a file through a buffer that reports the bytes
// consumed, so parsing a 1.5 GB lfts.dump shows a percentage without the
// parsers knowing about it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <fstream>
#include <istream>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace ibsm::tools {

class ProgressLine {
public:
    // `prefix` starts the line ("ibsm analyze"). Enabled when stderr is a
    // terminal, unless `force` says otherwise (tests).
    explicit ProgressLine(std::string prefix);
    ProgressLine(std::string prefix, bool enabled, std::chrono::milliseconds delay = std::chrono::seconds(1));
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    // Any thread. total 0: a stage without counts (no percentage shown).
    void update(std::string_view stage, std::size_t done = 0, std::size_t total = 0);
    // Erases the line and stops drawing.
    void stop();
    // Any thread: `text` (one line, no newline) on stderr, the progress line
    // drawn again below it on the next tick.
    void message(const std::string& text);

    bool enabled() const { return enabled_; }
    // The text the line shows now ("trace 45% (3.2 s)"); for tests.
    std::string text() const;

private:
    void run();
    std::string text_locked() const;

    const std::string prefix_;
    const bool enabled_;
    const std::chrono::milliseconds delay_;
    const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::string stage_;
    std::size_t done_ = 0, total_ = 0;
    std::chrono::steady_clock::time_point stage_start_ = start_;
    bool stopping_ = false;
    std::size_t drawn_width_ = 0;
    std::string last_;
    std::thread drawer_;
};

// An input stream over the file at `path` that reports progress as
// `stage` to `line` while it is read. Throws std::runtime_error when the
// file cannot be opened.
class ProgressFileStream : public std::istream {
public:
    ProgressFileStream(const std::string& path, ProgressLine& line, std::string stage);

private:
    class Buffer : public std::streambuf {
    public:
        Buffer(const std::string& path, ProgressLine& line, std::string stage);
        bool is_open() const { return file_.is_open(); }

    protected:
        int_type underflow() override;

    private:
        std::filebuf file_;
        ProgressLine& line_;
        std::string stage_;
        std::size_t size_ = 0, consumed_ = 0;
        char data_[1 << 16];
    };
    Buffer buffer_;
};

} // namespace ibsm::tools
