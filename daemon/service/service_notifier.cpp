#include "daemon/service/service_notifier.h"

#include <systemd/sd-daemon.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace ibsm::daemon {
namespace {

// STATUS= is one line: a reason may hold newlines (engine refusals).
std::string one_line(std::string s, std::size_t max = 200)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    if (s.size() > max) s = s.substr(0, max - 3) + "...";
    return s;
}

std::chrono::microseconds watchdog_from_env()
{
    std::uint64_t usec = 0;
    return sd_watchdog_enabled(0, &usec) > 0 ? std::chrono::microseconds(usec) : std::chrono::microseconds(0);
}

} // namespace

std::string status_line(const SweepOutcome& o, const SubnetSnapshot* snap)
{
    if (o.standby) return one_line("standby: " + o.reason);
    if (!o.up) return one_line("not up: " + (o.reason.empty() ? std::string("no sweep has configured it") : o.reason));
    std::string s = o.degraded ? "degraded" : "up";
    if (snap) {
        s += fmt::format(", gen {}, {} LIDs, {}", snap->generation, snap->lids.lids.lid_count(), snap->engine.empty() ? o.engine : snap->engine);
    }
    s += fmt::format(", last {} {:.2f} s", o.kind == SweepKind::heavy ? "heavy sweep" : "re-route", o.seconds);
    if (o.degraded) s += ": " + o.reason;
    return one_line(s);
}

ServiceNotifier::ServiceNotifier(boost::asio::any_io_executor ex)
    : ServiceNotifier(
          ex, [](const std::string& m) { sd_notify(0, m.c_str()); }, watchdog_from_env())
{
}

ServiceNotifier::ServiceNotifier(boost::asio::any_io_executor ex, Send send, std::chrono::microseconds watchdog)
    : send_(std::move(send)), watchdog_(watchdog), timer_(ex)
{
}

void ServiceNotifier::start()
{
    if (watchdog_.count() > 0) arm_watchdog();
}

void ServiceNotifier::arm_watchdog()
{
    timer_.expires_after(watchdog_period());
    timer_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || stopped_) return;
        send_("WATCHDOG=1");
        arm_watchdog();
    });
}

void ServiceNotifier::on_outcome(const SweepOutcome& o, const SnapshotPtr& snap)
{
    if (stopped_) return;
    std::string msg;
    if (!ready_ || (reloading_ && o.reload)) {
        msg = "READY=1\n";
        ready_ = true;
        reloading_ = false;
    }
    send_(msg + "STATUS=" + status_line(o, snap.get()));
}

void ServiceNotifier::reloading()
{
    if (stopped_) return;
    reloading_ = true;
    // MONOTONIC_USEC: systemd >= 253 (Type=notify-reload) matches the
    // reload by it; older ones ignore it.
    const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now().time_since_epoch());
    send_(fmt::format("RELOADING=1\nMONOTONIC_USEC={}\nSTATUS=reloading the configuration", now.count()));
}

void ServiceNotifier::stopping()
{
    if (stopped_) return;
    stopped_ = true;
    timer_.cancel();
    send_("STOPPING=1\nSTATUS=stopping");
}

} // namespace ibsm::daemon
