// Why: a SIGHUP must not half-apply a configuration; the daemon asks first
// whether every change can take effect live, and says which key cannot.
// Data structures: the config flattened to (dotted key, text) pairs, so any key
// added to flatten() is compared and is restart-only unless listed reloadable.
#include "config/reload.h"

#include "config/qos_describe.h"

namespace ibsm::config {
namespace {

std::string hex64(std::uint64_t v) { return Guid(v).str(); }
std::string yes_no(bool v) { return v ? "true" : "false"; }

template <class T, class F> std::string optional_text(const std::optional<T>& v, F&& show)
{
    return v ? show(*v) : std::string("(not set)");
}

std::string list_text(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + "]";
}

std::string partitions_text(const std::vector<PartitionConfig>& parts)
{
    std::vector<std::string> items;
    for (const auto& p : parts) items.push_back(partition::to_conf_text(p));
    return list_text(items);
}

std::string threshold_text(const CounterThreshold& t)
{
    return "{per_interval: " + std::to_string(t.per_interval) + ", action: " + std::string(to_string(t.action)) + "}";
}

std::vector<std::pair<std::string, std::string>> health_items(const HealthConfig& h)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (std::size_t i = 0; i < health_counter_keys.size(); ++i)
        out.emplace_back("health." + std::string(health_counter_keys[i]), threshold_text(h.thresholds[i]));
    out.emplace_back("health.flapping", "{downs: " + std::to_string(h.flapping_downs) +
                                            ", window_s: " + std::to_string(h.flapping_window.count()) +
                                            ", action: " + std::string(to_string(h.flapping_action)) + "}");
    out.emplace_back("health.unresponsive", "{timeouts: " + std::to_string(h.unresponsive_timeouts) +
                                                ", sweeps: " + std::to_string(h.unresponsive_sweeps) +
                                                ", action: " + std::string(to_string(h.unresponsive_action)) + "}");
    out.emplace_back("health.downshift", std::string(to_string(h.downshift_action)));
    out.emplace_back("health.disable_port", h.disable_port ? "true" : "false");
    auto count_rule = [](const char* count_key, const HealthCountRule& r) {
        return std::string("{") + count_key + ": " + std::to_string(r.count) +
               ", window_s: " + std::to_string(r.window.count()) + ", action: " + std::string(to_string(r.action)) +
               "}";
    };
    out.emplace_back("health.reboot", count_rule("count", h.reboot));
    out.emplace_back("health.noisy", count_rule("traps", h.noisy));
    out.emplace_back("health.set_errors", count_rule("count", h.set_errors));
    out.emplace_back("health.illegal", count_rule("count", h.illegal));
    out.emplace_back("health.isolation_budget_percent", std::to_string(h.isolation_budget_percent));
    out.emplace_back("health.dry_run", h.dry_run ? "true" : "false");
    return out;
}

} // namespace

std::vector<std::pair<std::string, std::string>> flatten(const Config& c)
{
    std::vector<std::string> roots;
    for (auto g : c.routing.root_guids) roots.push_back(g.str());
    auto quote = [](const std::string& s) { return "'" + s + "'"; };
    std::vector<std::pair<std::string, std::string>> items{
        {"routing.engines", list_text(c.routing.engines)},
        {"routing.no_fallback", yes_no(c.routing.no_fallback)},
        {"routing.lmc", std::to_string(c.routing.lmc)},
        {"routing.root_guids", list_text(roots)},
        {"routing.root_guid_file", optional_text(c.routing.root_guid_file, quote)},
        {"routing.cn_guid_file", optional_text(c.routing.cn_guid_file, quote)},
        {"routing.io_guid_file", optional_text(c.routing.io_guid_file, quote)},
        {"routing.guid_routing_order_file", optional_text(c.routing.guid_routing_order_file, quote)},
        {"routing.max_reverse_hops", std::to_string(c.routing.max_reverse_hops)},
        {"routing.max_vls", std::to_string(c.routing.max_vls)},
        {"routing.switch_sl2vl", std::string(to_string(c.routing.switch_sl2vl))},
        {"routing.vl_tables", std::string(to_string(c.routing.vl_tables))},
        {"routing.lid_assignment", c.routing.lid_assignment},
        {"routing.lid_order", c.routing.lid_order},
        {"routing.verify_incremental", yes_no(c.routing.verify_incremental)},
        {"smp.window", std::to_string(c.smp.window)},
        {"smp.timeout_ms", std::to_string(c.smp.timeout.count())},
        {"smp.retries", std::to_string(c.smp.retries)},
        {"sm.priority", std::to_string(c.sm.priority)},
        {"sm.port_guid", optional_text(c.sm.port_guid, [](Guid g) { return g.str(); })},
        {"sm.ca", optional_text(c.sm.ca, quote)},
        {"sm.port", optional_text(c.sm.port, [](PortNum p) { return std::to_string(p.value()); })},
        {"sm.subnet_prefix", hex64(c.sm.subnet_prefix)},
        {"sm.subnet_timeout", std::to_string(c.sm.subnet_timeout)},
        {"sm.packet_life_time", std::to_string(c.sm.packet_life_time)},
        {"sm.polling_interval_s", std::to_string(c.sm.polling_interval.count())},
        {"sm.polling_retries", std::to_string(c.sm.polling_retries)},
        {"sm.sm_key", hex64(c.sm.sm_key)},
        {"state_dir", quote(c.state_dir)},
        {"node_name_map", optional_text(c.node_name_map, quote)},
        {"log.level", std::string(to_string(c.log.level))},
        {"log.file", quote(c.log.file)},
        {"log.max_size_mb", std::to_string(c.log.max_size_mb)},
        {"sweep.interval_s", std::to_string(c.sweep.interval.count())},
        {"sweep.retry_interval_s", std::to_string(c.sweep.retry_interval.count())},
        {"sweep.debounce_ms", std::to_string(c.sweep.debounce.count())},
        {"sweep.debounce_max_ms", std::to_string(c.sweep.debounce_max.count())},
        {"dump.lfts", yes_no(c.dump.lfts)},
        {"dump.lfts_max_entries", std::to_string(c.dump.lfts_max_entries)},
        {"dump.topology", yes_no(c.dump.topology)},
        {"dump.summary", yes_no(c.dump.summary)},
        {"dump.sl", yes_no(c.dump.sl)},
        {"dump.report", yes_no(c.dump.report)},
        {"control.socket", c.control.socket.empty() ? std::string("(runtime directory)") : quote(c.control.socket)},
        {"perf.enabled", yes_no(c.perf.enabled)},
        {"perf.interval_s", std::to_string(c.perf.interval.count())},
        {"perf.window", std::to_string(c.perf.window)},
        {"metrics.listen", c.metrics.listen ? to_string(*c.metrics.listen) : std::string("(off)")},
        {"metrics.port_series", std::string(to_string(c.metrics.port_series))},
        {"partitions", partitions_text(c.partitions)},
        {"partitions_file", c.partitions_file.empty() ? std::string("(none)") : quote(c.partitions_file)},
        {"part_enforce", std::string(to_string(c.part_enforce))},
        {"allow_both_pkeys", yes_no(c.allow_both_pkeys)},
    };
    for (auto& kv : health_items(c.health)) items.push_back(std::move(kv));
    items.emplace_back("qos", qos_text(c.qos));
    items.emplace_back("security.mkey", mkey_text(c.security.mkey));
    return items;
}

bool is_reloadable_key(std::string_view key)
{
    return key.starts_with("routing.") || key.starts_with("sweep.") || key.starts_with("dump.") ||
           key.starts_with("perf.") || key.starts_with("health.") || key == "qos" || key == "metrics.port_series" ||
           key.starts_with("security.") || key == "log.level" || key == "partitions" ||
           key == "partitions_file" || key == "part_enforce" || key == "allow_both_pkeys" || key == "node_name_map" ||
           key == "sm.priority" || key == "sm.polling_interval_s" || key == "sm.polling_retries";
}

bool reload_compatible(const Config& running, const Config& next, std::vector<std::string>* why_not)
{
    const auto before = flatten(running);
    const auto after = flatten(next);
    bool ok = true;
    for (std::size_t i = 0; i < before.size(); ++i) {
        const auto& [key, old_value] = before[i];
        const auto& new_value = after[i].second;
        if (old_value == new_value || is_reloadable_key(key)) continue;
        ok = false;
        if (why_not)
            why_not->push_back(key + ": " + old_value + " -> " + new_value +
                               " needs a restart (only routing.*, sweep.*, dump.*, perf.*, metrics.port_series, health.*, qos, "
                                 "security.*, log.level, node_name_map, sm.priority and sm.polling_* reload)");
    }
    return ok;
}

} // namespace ibsm::config
