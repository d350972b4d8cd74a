// Captures what the daemon logs at warn level and above while a test runs
// (the default logger is swapped for one writing to a string), so a test
// can check the lines an operator would read.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace ibsm::test {

class LogCapture {
public:
    LogCapture() : previous_(spdlog::default_logger())
    {
        auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
        auto logger = std::make_shared<spdlog::logger>("capture", sink);
        logger->set_level(spdlog::level::warn);
        spdlog::set_default_logger(logger);
    }
    ~LogCapture() { spdlog::set_default_logger(previous_); }
    LogCapture(const LogCapture&) = delete;
    LogCapture& operator=(const LogCapture&) = delete;

    std::string text()
    {
        spdlog::default_logger()->flush();
        return out_.str();
    }
    // Lines containing `what`.
    std::size_t count(const std::string& what)
    {
        std::istringstream in(text());
        std::size_t n = 0;
        for (std::string line; std::getline(in, line);)
            if (line.find(what) != std::string::npos) ++n;
        return n;
    }

private:
    std::ostringstream out_;
    std::shared_ptr<spdlog::logger> previous_;
};

} // namespace ibsm::test
