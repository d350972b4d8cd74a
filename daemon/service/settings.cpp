#include "daemon/service/settings.h"

#include "mkey/secret_file.h"

#include "config/overrides.h"
#include "daemon/control/socket_rules.h"
#include "daemon/program/port_programmer.h"
#include "daemon/program/vl_programmer.h"
#include "daemon/service/config_path.h"
#include "mad/port_codes.h"
#include "mad/umad_port.h"
#include "partition/conf_parse.h"
#include "routing/root_guids.h"
#include "topology/node_map_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

namespace ibsm::daemon {

config::Config effective_config(const Options& opts)
{
    auto file = config_file_to_read(opts, default_config_file());
    config::Config cfg = file ? config::load_config_file(file->string()) : config::Config{};
    cfg = config::apply_overrides(std::move(cfg), opts.overrides);
    if (opts.lmc) cfg.routing.lmc = *opts.lmc;
    if (!cfg.partitions_file.empty()) cfg.partitions = read_partitions_file(cfg.partitions_file);
    return cfg;
}

std::pair<std::string, int> sm_port(const config::Config& cfg)
{
    if (cfg.sm.port_guid) return mad::find_local_port(*cfg.sm.port_guid);
    return {cfg.sm.ca.value_or(""), cfg.sm.port ? cfg.sm.port->value() : 0};
}

std::vector<Guid> read_root_guid_file(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw config::ConfigError("routing.root_guid_file '" + path + "': cannot read: " + std::strerror(errno) +
                                  " (fix the path or the file's permissions)");
    return routing::parse_root_guids(in, path);
}

namespace {

// One of OpenSM's GUID files (routing.cn_guid_file, ...): its GUIDs, or a
// ConfigError naming the key, the file and (for a bad line) the line.
std::vector<Guid> read_guid_file(const std::string& key, const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw config::ConfigError(key + " '" + path + "': cannot read: " + std::strerror(errno) +
                                  " (fix the path or the file's permissions)");
    try {
        return topology::parse_guid_file(in, path);
    } catch (const std::runtime_error& e) {
        throw config::ConfigError(key + ": " + e.what());
    }
}

} // namespace

std::shared_ptr<const topology::NodeNameMap> read_node_name_map(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw config::ConfigError("node_name_map '" + path + "': cannot read: " + std::strerror(errno) +
                                  " (fix the path or the file's permissions)");
    try {
        return std::make_shared<const topology::NodeNameMap>(topology::parse_node_name_map(in, path));
    } catch (const std::runtime_error& e) {
        throw config::ConfigError(std::string("node_name_map: ") + e.what());
    }
}

BringupSettings bringup_settings(const config::Config& cfg)
{
    BringupSettings s;
    s.chain.engines = cfg.routing.engines;
    s.chain.no_fallback = cfg.routing.no_fallback;
    s.verify_incremental = cfg.routing.verify_incremental;
    s.route.root_guids = cfg.routing.root_guids;
    if (cfg.routing.root_guid_file) {
        auto more = read_root_guid_file(*cfg.routing.root_guid_file);
        s.route.root_guids.insert(s.route.root_guids.end(), more.begin(), more.end());
    }
    if (cfg.routing.cn_guid_file)
        s.route.compute_nodes = read_guid_file("routing.cn_guid_file", *cfg.routing.cn_guid_file);
    if (cfg.routing.io_guid_file) s.route.io_nodes = read_guid_file("routing.io_guid_file", *cfg.routing.io_guid_file);
    s.route.max_reverse_hops = static_cast<std::uint16_t>(cfg.routing.max_reverse_hops);
    if (cfg.routing.guid_routing_order_file)
        s.route.routing_order = read_guid_file("routing.guid_routing_order_file", *cfg.routing.guid_routing_order_file);
    if (cfg.node_name_map) s.node_names = read_node_name_map(*cfg.node_name_map);
    s.route.max_vls = static_cast<std::uint8_t>(cfg.routing.max_vls);
    s.lid.lmc = static_cast<std::uint8_t>(cfg.routing.lmc);
    // Path engines: config/ validated the names; lidassign spells them alike.
    s.route.lid_assignment =
        lidassign::config_heuristic_from(cfg.routing.lid_assignment).value_or(lidassign::ConfigHeuristic::color_l);
    s.route.lid_order = lidassign::lid_order_from(cfg.routing.lid_order).value_or(lidassign::LidOrder::colour_first);
    s.ports.subnet_prefix = cfg.sm.subnet_prefix;
    s.ports.subnet_timeout = static_cast<std::uint8_t>(cfg.sm.subnet_timeout);
    s.ports.max_operational_vls = operational_vls_code(cfg.routing.max_vls);
    // Jobs in flight: a few times the window, so completions refill it at once.
    const std::size_t width = std::max<std::size_t>(64, std::size_t{cfg.smp.window} * 4);
    s.ports.width = width;
    s.lfts.width = width;
    s.vls.width = width;
    s.pkeys.width = width;
    s.vls.all_switch_pairs = cfg.routing.switch_sl2vl == config::SwitchSl2Vl::always;
    s.vls.all_port_tables = cfg.routing.vl_tables == config::SwitchSl2Vl::always;
    s.lfts.life_time_value = static_cast<std::uint8_t>(cfg.sm.packet_life_time & 0x1f);
    s.state_dir = cfg.state_dir;
    s.disable_isolated_ports = cfg.health.disable_port;
    // A policy whose VLs alone exceed routing.max_vls can never be
    // programmed: refused here, so at start the daemon exits as for any
    // configuration error and a reload keeps the running configuration.
    std::string why;
    // The ports operate 1, 2, 4, 8 or 15 VLs: routing.max_vls 3 gives 2.
    if (cfg.qos.enabled && !qos::routing_budget(cfg.qos, mad::vl_count(s.ports.max_operational_vls), &why))
        throw config::ConfigError("qos: the policy does not fit routing.max_vls " +
                                  std::to_string(cfg.routing.max_vls) + ": " + why);
    s.qos = cfg.qos;
    // Partitions: the P_Key tables and, on switch ports facing CAs, their
    // enforcement as part_enforce asks.
    s.partitions = std::make_shared<const std::vector<partition::Rule>>(partition_rules(cfg));
    s.allow_both_pkeys = cfg.allow_both_pkeys;
    s.ports.enforce_partitions = true;
    s.ports.enforce_in = cfg.part_enforce == config::PartEnforce::both || cfg.part_enforce == config::PartEnforce::in;
    s.ports.enforce_out = cfg.part_enforce == config::PartEnforce::both || cfg.part_enforce == config::PartEnforce::out;
    s.pkeys.peer_tables = cfg.part_enforce != config::PartEnforce::off;
    return s;
}

std::vector<partition::Rule> partition_rules(const config::Config& cfg)
{
    return partition::effective_rules(cfg.partitions, !cfg.partitions.empty() || !cfg.partitions_file.empty());
}

std::vector<partition::Rule> read_partitions_file(const std::string& path, std::vector<std::string>* warnings)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw config::ConfigError("partitions_file '" + path + "': cannot read: " + std::strerror(errno) +
                                  " (fix the path or the file's permissions)");
    std::ostringstream text;
    text << in.rdbuf();
    auto r = partition::parse_partitions_conf(text.str(), path);
    if (!r.ok()) throw config::ConfigError(r.errors.front());
    for (auto& w : r.warnings) {
        if (warnings) warnings->push_back(std::move(w));
        else spdlog::warn("{}", w);
    }
    return std::move(r.rules);
}

mad::TransportOptions transport_options(const config::Config& cfg)
{
    mad::TransportOptions o{cfg.smp.window, cfg.smp.timeout, cfg.smp.retries};
    o.perf_window = cfg.perf.window;
    return o;
}

std::uint8_t sm_priority(const config::Config& cfg) { return static_cast<std::uint8_t>(cfg.sm.priority & 0xf); }

ElectionSettings election_settings(const config::Config& cfg, Guid port_guid)
{
    ElectionSettings s;
    s.self.priority = sm_priority(cfg);
    s.self.guid = port_guid;
    s.self.sm_key = cfg.sm.sm_key;
    s.polling_interval = cfg.sm.polling_interval;
    s.polling_retries = cfg.sm.polling_retries;
    return s;
}

SchedulerSettings scheduler_settings(const config::Config& cfg)
{
    SchedulerSettings s;
    s.debounce = cfg.sweep.debounce;
    s.debounce_max = cfg.sweep.debounce_max;
    s.light_interval = cfg.sweep.interval;
    s.retry_interval = cfg.sweep.retry_interval;
    s.light_width = std::max<std::size_t>(16, std::size_t{cfg.smp.window} * 2);
    return s;
}

PerfSettings perf_settings(const config::Config& cfg)
{
    return PerfSettings{cfg.perf.enabled, cfg.perf.interval, cfg.perf.window};
}

SaSettings sa_settings(const config::Config& cfg)
{
    SaSettings s;
    s.sm_key = cfg.sm.sm_key;
    return s;
}

McastSettings mcast_settings(const config::Config& cfg, std::size_t mft_width)
{
    McastSettings s;
    s.subnet_prefix = cfg.sm.subnet_prefix;
    s.packet_life_time = static_cast<std::uint8_t>(cfg.sm.packet_life_time & 0x3f);
    s.mft.width = mft_width;
    return s;
}

health::HealthPolicy health_policy(const config::Config& cfg)
{
    auto action = [](config::HealthAction a) {
        switch (a) {
        case config::HealthAction::off: return health::Action::off;
        case config::HealthAction::report: return health::Action::report;
        case config::HealthAction::isolate: return health::Action::isolate;
        case config::HealthAction::no_discover: return health::Action::no_discover;
        }
        return health::Action::report;
    };
    auto count_rule = [&](const config::HealthCountRule& r) {
        return health::CountRule{r.count, static_cast<double>(r.window.count()), action(r.action)};
    };
    const auto& h = cfg.health;
    health::HealthPolicy p;
    for (std::size_t i = 0; i < health::error_counter_count; ++i)
        p.thresholds[i] = health::Threshold{h.thresholds[i].per_interval, action(h.thresholds[i].action)};
    p.flap_downs = h.flapping_downs;
    p.flap_window_s = static_cast<double>(h.flapping_window.count());
    p.flap_action = action(h.flapping_action);
    p.unresponsive_timeouts = h.unresponsive_timeouts;
    p.unresponsive_sweeps = h.unresponsive_sweeps;
    p.unresponsive_action = action(h.unresponsive_action);
    p.downshift_action = action(h.downshift_action);
    p.disable_port = h.disable_port;
    p.reboot = count_rule(h.reboot);
    p.noisy = count_rule(h.noisy);
    p.set_errors = count_rule(h.set_errors);
    p.illegal = count_rule(h.illegal);
    p.isolation_budget = h.isolation_budget_percent / 100.0;
    p.dry_run = h.dry_run;
    return p;
}

} // namespace ibsm::daemon

namespace ibsm::daemon {

std::variant<MkeySettings, std::string> mkey_settings(const config::Config& cfg)
{
    const auto& m = cfg.security.mkey;
    if (m.mode == config::MkeyMode::off) return MkeySettings{};
    const auto kind = m.mode == config::MkeyMode::fixed ? mkey::SecretKind::fixed : mkey::SecretKind::per_port;
    auto ring = mkey::load_secret_file(m.secret_file, kind);
    if (auto* why = std::get_if<std::string>(&ring)) return "security.mkey.secret_file: " + *why;
    return MkeySettings{true, std::get<mkey::KeyRing>(ring), m.protect_bits, m.lease_period_s};
}

} // namespace ibsm::daemon

namespace ibsm::daemon {

std::string control_socket(const config::Config& cfg, const char* runtime_directory)
{
    // Absolute: `ibsm --state-dir DIR` run from elsewhere finds the same path.
    const auto state_dir = std::filesystem::absolute(cfg.state_dir).lexically_normal().string();
    return control::socket_path(cfg.control.socket, runtime_directory, state_dir);
}

} // namespace ibsm::daemon
