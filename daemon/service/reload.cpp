#include "daemon/service/reload.h"

#include "config/reload.h"
#include "daemon/service/settings.h"

#include <spdlog/spdlog.h>

#include <exception>

namespace ibsm::daemon {

Reread reread(const Options& opts)
{
    Reread r;
    try {
        auto next = effective_config(opts);
        r.bringup = bringup_settings(next); // reads routing.root_guid_file
        r.config = std::move(next);
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
}

ReloadDecision decide_reload(const config::Config& running, const Reread& next)
{
    ReloadDecision d;
    if (!next.config) {
        d.action = ReloadAction::unreadable;
        d.reasons.push_back(next.error);
    } else if (!config::reload_compatible(running, *next.config, &d.reasons)) {
        d.action = ReloadAction::refuse;
    } else {
        d.action = *next.config == running ? ReloadAction::unchanged : ReloadAction::apply;
    }
    return d;
}

void Reloader::reload()
{
    const Reread next = reread(opts_);
    const ReloadDecision d = decide_reload(running_, next);
    switch (d.action) {
    case ReloadAction::unreadable:
        spdlog::error("reload refused, keeping the running configuration: {}", d.reasons.front());
        return;
    case ReloadAction::refuse:
        for (const auto& why : d.reasons) spdlog::error("reload refused: {}", why);
        return;
    case ReloadAction::unchanged:
        spdlog::info("reload: configuration unchanged, re-sweeping");
        return;
    case ReloadAction::apply:
        apply(*next.config, next.bringup);
        // Logged at the new log.level, already set.
        spdlog::info("reload: new configuration applied (engines {}), re-sweeping",
                     fmt::join(running_.routing.engines, ","));
        return;
    }
}

void Reloader::apply(const config::Config& next, const BringupSettings& bringup)
{
    running_ = next;
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(running_.log.level)));
    wings_.bringup.reconfigure(bringup);
    wings_.scheduler.set_settings(scheduler_settings(running_));
    wings_.dumps.set_config(running_.dump);
    wings_.election.set_priority(static_cast<std::uint8_t>(running_.sm.priority & 0xf));
    wings_.election.set_polling(running_.sm.polling_interval, running_.sm.polling_retries);
    if (wings_.perf) wings_.perf->apply(perf_settings(running_));
    wings_.health.set_policy(health_policy(running_));
}

} // namespace ibsm::daemon
