#include "daemon/sweep/mkey_recovery.h"

#include <spdlog/spdlog.h>

#include <chrono>

namespace ibsm::daemon {

void MkeyRecovery::handle_incidents(MkeyBook& book, IncidentSeen seen)
{
    book.set_incident_handler([this, seen = std::move(seen)](const MkeyIncident& i) {
        on_incident(i);
        if (seen) seen(i, waiting_for(i.port));
    });
}

void MkeyRecovery::on_incident(const MkeyIncident& incident)
{
    ++incidents_;
    if (waiting_.count(incident.port)) return;
    const auto lease = book_.settings().lease_period_s;
    spdlog::warn("M_Key: {} {} at {} went unanswered: it holds a key this SM does not know (another SM, or an old "
                 "secret)",
                 incident.is_switch ? "switch" : "port", incident.port.str(), incident.where);
    if (lease == 0) {
        spdlog::error("M_Key: {} cannot be recovered: M_KeyLeasePeriod 0 never expires; reset the port or restore "
                      "the secret",
                      incident.port.str());
        return;
    }
    spdlog::warn("M_Key: waiting {} s for {}'s M_Key lease", lease, incident.port.str());
    auto timer = std::make_unique<boost::asio::steady_timer>(events_.executor(), std::chrono::seconds(lease + 1));
    timer->async_wait([this, port = incident.port](boost::system::error_code ec) {
        if (ec) return;
        waiting_.erase(port);
        events_.push(HeavySweepEvent{"re-key " + port.str() + " after its M_Key lease"});
    });
    waiting_.emplace(incident.port, std::move(timer));
}

} // namespace ibsm::daemon
