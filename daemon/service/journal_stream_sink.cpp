#include "daemon/service/journal_stream_sink.h"

#include <spdlog/pattern_formatter.h>

#include <sys/stat.h>

#include <charconv>
#include <cstring>
#include <string_view>

namespace ibsm::daemon {

bool stderr_is_journal(const char* journal_stream)
{
    if (!journal_stream) return false;
    const std::string_view v(journal_stream);
    const auto colon = v.find(':');
    if (colon == std::string_view::npos) return false;
    unsigned long long dev = 0, ino = 0;
    auto [p1, e1] = std::from_chars(v.data(), v.data() + colon, dev);
    auto [p2, e2] = std::from_chars(v.data() + colon + 1, v.data() + v.size(), ino);
    if (e1 != std::errc{} || p1 != v.data() + colon || e2 != std::errc{} || p2 != v.data() + v.size()) return false;
    struct stat st {};
    if (fstat(2, &st) != 0) return false;
    return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

int journal_priority(spdlog::level::level_enum level)
{
    switch (level) {
    case spdlog::level::critical: return 2; // SD_CRIT
    case spdlog::level::err: return 3;      // SD_ERR
    case spdlog::level::warn: return 4;     // SD_WARNING
    case spdlog::level::info: return 6;     // SD_INFO
    default: return 7;                      // SD_DEBUG: debug, trace
    }
}

JournalStreamSink::JournalStreamSink(std::FILE* out) : out_(out)
{
    set_formatter_(std::make_unique<spdlog::pattern_formatter>("%v", spdlog::pattern_time_type::local, ""));
}

void JournalStreamSink::sink_it_(const spdlog::details::log_msg& msg)
{
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    const std::string prefix = "<" + std::to_string(journal_priority(msg.level)) + ">";
    std::string out;
    out.reserve(formatted.size() + prefix.size() + 1);
    std::string_view text(formatted.data(), formatted.size());
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    // One prefix per line: journald splits the stream at newlines and reads
    // the priority of each line on its own.
    for (;;) {
        const auto nl = text.find('\n');
        out += prefix;
        out += text.substr(0, nl);
        out += '\n';
        if (nl == std::string_view::npos) break;
        text.remove_prefix(nl + 1);
    }
    std::fwrite(out.data(), 1, out.size(), out_);
    std::fflush(out_); // one line per write as it happens: the journal has no other buffer to flush
}

} // namespace ibsm::daemon
