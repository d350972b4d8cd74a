#include "daemon/service/log_setup.h"

#include "daemon/service/journal_stream_sink.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <vector>

namespace ibsm::daemon {

std::shared_ptr<LogFileSink> setup_logging(const char* name, bool console, const config::LogConfig& log)
{
    const bool journal = stderr_is_journal(std::getenv("JOURNAL_STREAM"));
    std::vector<spdlog::sink_ptr> sinks;
    std::shared_ptr<LogFileSink> file;
    if (!console) {
        file = std::make_shared<LogFileSink>(log.file, std::uint64_t{log.max_size_mb} << 20);
        file->set_pattern(file_log_pattern);
        sinks.push_back(file);
    }
    if (journal) {
        sinks.push_back(std::make_shared<JournalStreamSink>());
    } else if (console) {
        auto err = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        err->set_pattern(file_log_pattern);
        sinks.push_back(err);
    }
    auto logger = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
    if (file) logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(log.level)));
    return file;
}

} // namespace ibsm::daemon
