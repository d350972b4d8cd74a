// Logging to journald's stream: the console sink of a daemon whose stderr
// systemd connected to the journal.
//
// Why: journald stamps every line with its own time and reads a leading
// "<N>" as the line's syslog priority (sd-daemon.h: <3> error, <4> warning,
// <6> info, <7> debug). Our console pattern's timestamp showed twice in
// `journalctl`, and without the prefix every line was "info", so
// `journalctl -p err` found nothing.
//
// Detection: systemd sets JOURNAL_STREAM to "<st_dev>:<st_ino>" of the
// stream it connected; a child whose stderr was redirected elsewhere
// inherits the variable, so it counts only when fd 2 is that stream
// (systemd.exec(5), "$JOURNAL_STREAM").
#pragma once

#include <spdlog/sinks/base_sink.h>

#include <cstdio>
#include <mutex>
#include <optional>
#include <string>

namespace ibsm::daemon {

// True when fd 2 is the stream that `journal_stream` (the value of
// JOURNAL_STREAM, null when unset) names.
bool stderr_is_journal(const char* journal_stream);

// The sd-daemon.h priority of a spdlog level (trace and debug: 7).
int journal_priority(spdlog::level::level_enum level);

// Writes each message as "<N>text\n", every line of a multi-line message
// with the same prefix, and no timestamp (the default pattern is "%v").
class JournalStreamSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit JournalStreamSink(std::FILE* out = stderr);

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override;
    void flush_() override { std::fflush(out_); }

private:
    std::FILE* out_;
};

} // namespace ibsm::daemon
