// The signals ibsmd answers (ibsmd(8)): SIGHUP re-reads the configuration,
// SIGUSR1 reopens the log file (logrotate's postrotate), SIGINT and SIGTERM
// stop the SM.
//
// Why a class: asio delivers one signal per wait, so the handler waits again
// after each, except after a stop, so that the loop can end. The log line
// each signal gets and the log file's reopen are the service's own; what a
// reload and a stop do to the other wings is the composition root's
// (main.cpp), given as actions.
//
// Data structures: the signal set on the SM's loop, the two actions, the log
// file sink (null when logging to the console) and its path, and whether a
// stop signal came.
#pragma once

#include "daemon/service/log_file_sink.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <functional>
#include <memory>
#include <string>

namespace ibsm::daemon {

class SignalHandler {
public:
    SignalHandler(boost::asio::io_context& io, std::shared_ptr<LogFileSink> log_file, std::string log_path);

    // SIGHUP, after its log line.
    void on_reload(std::function<void()> f) { reload_ = std::move(f); }
    // SIGINT or SIGTERM, after its log line; no signal is waited for after it.
    void on_stop(std::function<void()> f) { stop_ = std::move(f); }

    void start() { wait(); }
    // Ends the wait, so the loop can end without a signal (--once, a failure).
    void cancel() { signals_.cancel(); }
    // A SIGINT or SIGTERM stopped the SM.
    bool stopped() const { return stopped_; }

private:
    void wait();

    boost::asio::signal_set signals_;
    std::shared_ptr<LogFileSink> log_file_;
    std::string log_path_;
    std::function<void()> reload_, stop_;
    bool stopped_ = false;
};

} // namespace ibsm::daemon
