#include "daemon/service/signals.h"

#include <spdlog/spdlog.h>

#include <csignal>

namespace ibsm::daemon {

SignalHandler::SignalHandler(boost::asio::io_context& io, std::shared_ptr<LogFileSink> log_file,
                             std::string log_path)
    : signals_(io, SIGINT, SIGTERM, SIGHUP), log_file_(std::move(log_file)), log_path_(std::move(log_path))
{
    signals_.add(SIGUSR1);
}

void SignalHandler::wait()
{
    signals_.async_wait([this](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        if (sig == SIGHUP) {
            spdlog::info("SIGHUP: reloading the configuration");
            if (reload_) reload_();
        } else if (sig == SIGUSR1) {
            if (log_file_) {
                log_file_->reopen();
                spdlog::info("SIGUSR1: log file {} reopened", log_path_);
            } else {
                spdlog::info("SIGUSR1: logging to the console, no log file to reopen");
            }
        } else {
            spdlog::info("signal {} received: stopping", sig);
            stopped_ = true;
            if (stop_) stop_();
            return;
        }
        wait();
    });
}

} // namespace ibsm::daemon
