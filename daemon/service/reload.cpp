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
        r.bringup = bringup_settings(next); // reads the root and GUID files, node_name_map
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

namespace {

// The files behind the settings that differ, by key.
std::vector<std::string> changed_files(const BringupSettings& running, const BringupSettings& next)
{
    std::vector<std::string> out;
    if (running.route.root_guids != next.route.root_guids) out.emplace_back("routing.root_guid_file");
    if (running.route.compute_nodes != next.route.compute_nodes) out.emplace_back("routing.cn_guid_file");
    if (running.route.io_nodes != next.route.io_nodes) out.emplace_back("routing.io_guid_file");
    if (running.route.routing_order != next.route.routing_order) out.emplace_back("routing.guid_routing_order_file");
    const topology::NodeNameMap none;
    if ((running.node_names ? *running.node_names : none) != (next.node_names ? *next.node_names : none))
        out.emplace_back("node_name_map");
    return out;
}

} // namespace

ReloadDecision decide_reload(const config::Config& running, const Reread& next, const MkeySettings* running_mkeys,
                             const BringupSettings* running_bringup)
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
        if (d.action == ReloadAction::unchanged && running_bringup) {
            for (const auto& key : changed_files(*running_bringup, next.bringup)) {
                d.action = ReloadAction::apply;
                d.reasons.push_back(key + ": the file's content changed");
            }
        }
    }
    return d;
}

void Reloader::reload()
{
    const Reread next = reread(opts_);
    const ReloadDecision d = decide_reload(running_, next, wings_.mkeys ? &wings_.mkeys->settings() : nullptr,
                                           &wings_.bringup.settings_in_use());
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

void Reloader::check_partitions_file()
{
    if (running_.partitions_file.empty()) return;
    // Read at every heavy sweep: its warnings are said when it changed.
    std::vector<partition::Rule> rules;
    std::vector<std::string> warnings;
    try {
        rules = read_partitions_file(running_.partitions_file, &warnings);
    } catch (const std::exception& e) {
        if (refused_partitions_ != e.what())
            spdlog::error("partitions_file changed but is refused, keeping the running partitions: {}", e.what());
        refused_partitions_ = e.what();
        return;
    }
    refused_partitions_.clear();
    if (rules == running_.partitions) return;
    for (const auto& w : warnings) spdlog::warn("{}", w);
    auto next = running_;
    next.partitions = std::move(rules);
    try {
        auto settings = bringup_settings(next);
        spdlog::info("partitions_file {} changed: its partitions apply from this sweep", next.partitions_file);
        running_ = std::move(next);
        wings_.bringup.reconfigure(settings);
    } catch (const std::exception& e) {
        spdlog::error("partitions_file changed, not applied: {}", e.what());
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
    if (wings_.status) wings_.status->set_port_series(running_.metrics.port_series);
    if (wings_.mkeys && wings_.mkeys->settings() != mkeys) {
        // As `ibsm mkey rotate` does, on what was read (service/mkey_rotation.h).
        const auto r = decide_rotation(wings_.mkeys->settings(), mkeys, running_.security.mkey.secret_file);
        wings_.mkeys->set_settings(mkeys);
        spdlog::info("reload: {}", r.text);
    }
}

} // namespace ibsm::daemon
