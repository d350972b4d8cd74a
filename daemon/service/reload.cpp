#include "daemon/service/reload.h"

#include "config/reload.h"
#include "daemon/service/mkey_rotation.h"
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
        auto mkeys = mkey_settings(next);    // reads security.mkey.secret_file
        if (auto* why = std::get_if<std::string>(&mkeys)) {
            r.error = *why;
            return r;
        }
        r.mkeys = std::get<MkeySettings>(std::move(mkeys));
        r.config = std::move(next);
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
}

ReloadDecision decide_reload(const config::Config& running, const Reread& next, const MkeySettings* running_mkeys)
{
    ReloadDecision d;
    if (!next.config) {
        d.action = ReloadAction::unreadable;
        d.reasons.push_back(next.error);
    } else if (!config::reload_compatible(running, *next.config, &d.reasons)) {
        d.action = ReloadAction::refuse;
    } else {
        d.action = *next.config == running ? ReloadAction::unchanged : ReloadAction::apply;
        if (d.action == ReloadAction::unchanged && running_mkeys && *running_mkeys != next.mkeys) {
            d.action = ReloadAction::apply;
            d.reasons.push_back("security.mkey.secret_file: the " +
                                std::string(next.mkeys.ring.is_fixed() ? "key" : "secret") + " changed");
        }
    }
    return d;
}

void Reloader::reload()
{
    const Reread next = reread(opts_);
    const ReloadDecision d = decide_reload(running_, next, wings_.mkeys ? &wings_.mkeys->settings() : nullptr);
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
        for (const auto& why : d.reasons) spdlog::info("reload: {}", why);
        apply(*next.config, next.bringup, next.mkeys);
        // Logged at the new log.level, already set.
        spdlog::info("reload: new configuration applied (engines {}), re-sweeping",
                     fmt::join(running_.routing.engines, ","));
        return;
    }
}

void Reloader::apply(const config::Config& next, const BringupSettings& bringup, const MkeySettings& mkeys)
{
    running_ = next;
    spdlog::set_level(static_cast<spdlog::level::level_enum>(static_cast<int>(running_.log.level)));
    wings_.bringup.reconfigure(bringup);
    wings_.scheduler.set_settings(scheduler_settings(running_));
    wings_.dumps.set_config(running_.dump);
    wings_.election.set_priority(sm_priority(running_));
    wings_.election.set_polling(running_.sm.polling_interval, running_.sm.polling_retries);
    if (wings_.perf) wings_.perf->apply(perf_settings(running_));
    wings_.health.set_policy(health_policy(running_));
    if (wings_.mkeys && wings_.mkeys->settings() != mkeys) {
        // As `ibsm mkey rotate` does, on what was read (service/mkey_rotation.h).
        const auto r = decide_rotation(wings_.mkeys->settings(), mkeys, running_.security.mkey.secret_file);
        wings_.mkeys->set_settings(mkeys);
        spdlog::info("reload: {}", r.text);
    }
}

} // namespace ibsm::daemon
