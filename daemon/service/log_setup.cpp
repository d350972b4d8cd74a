#include "daemon/service/log_setup.h"

#include "daemon/service/journal_stream_sink.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>
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

void setup_startup_logging(const Options& opts)
{
    config::LogConfig startup;
    startup.level = config::parse_log_level(opts.log_level).value_or(config::LogLevel::info);
    setup_logging("ibsmd", /*console=*/true, startup);
}

std::shared_ptr<LogFileSink> setup_sm_logging(const Options& opts, const config::Config& cfg)
{
    try {
        return setup_logging("ibsmd-sm", opts.once || opts.foreground, cfg.log);
    } catch (const std::exception& e) {
        throw std::runtime_error("cannot open log.file " + cfg.log.file + " (" + e.what() +
                                 "): fix log.file or its directory's permissions, or run with --foreground to "
                                 "log to the console");
    }
}

config::LogLevel set_log_level(config::LogLevel level)
{
    const auto old = static_cast<config::LogLevel>(static_cast<int>(spdlog::default_logger()->level()));
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(level)));
    return old;
}

void log_fatal(const std::string& what)
{
    if (spdlog::default_logger()->should_log(spdlog::level::err))
        spdlog::error("{}", what);
    else
        std::cerr << "ibsmd: " << what << '\n';
}

} // namespace ibsm::daemon
