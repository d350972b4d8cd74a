// Why: operators need to see what ibsmd actually runs with after defaults,
// the file and command-line flags are combined. yaml-cpp's emitter does the
// quoting, so paths with odd characters still read back unchanged; unset
// optional keys are left out, exactly as a file would omit them.
#include "config/describe.h"

#include <algorithm>
#include <cstdio>

#include "config/engines.h"
#include "config/qos_describe.h"

#include <yaml-cpp/yaml.h>

namespace ibsm::config {

namespace {

int specificity(partition::Who w)
{
    using partition::Who;
    return w == Who::all ? 0 : (w == Who::port || w == Who::self) ? 2 : 1;
}

void flag_keys(YAML::Emitter& out, const partition::GroupFlags& f, const partition::GroupFlags& base)
{
    if (f.mtu != base.mtu) out << YAML::Key << "mtu" << YAML::Value << unsigned{f.mtu};
    if (f.rate != base.rate) out << YAML::Key << "rate" << YAML::Value << unsigned{f.rate};
    if (f.sl != base.sl) out << YAML::Key << "sl" << YAML::Value << unsigned{f.sl};
    if (f.scope_mask != base.scope_mask) {
        std::vector<unsigned> scopes;
        for (unsigned s = 1; s < 16; ++s)
            if (f.scope_mask & (1u << s)) scopes.push_back(s);
        out << YAML::Key << "scope" << YAML::Value << YAML::Flow << scopes;
    }
    if (f.qkey != base.qkey) out << YAML::Key << "qkey" << YAML::Value << ("0x" + [&] {
        char b[12];
        std::snprintf(b, sizeof b, "%08x", f.qkey);
        return std::string(b);
    }());
    if (f.tclass != base.tclass) out << YAML::Key << "tclass" << YAML::Value << unsigned{f.tclass};
    if (f.flow_label != base.flow_label) out << YAML::Key << "flow_label" << YAML::Value << f.flow_label;
}

// One rule as YAML entries: members in runs the reader keeps in order (it
// applies broader specifiers first and refuses a port twice in one entry),
// later runs as further entries of the same P_Key, which merge as
// partitions.conf statements do.
void describe_rule(YAML::Emitter& out, const PartitionConfig& p)
{
    std::vector<std::vector<partition::MemberRule>> runs(1);
    for (const auto& m : p.members) {
        auto& run = runs.back();
        const bool again = std::any_of(run.begin(), run.end(), [&](const auto& o) {
            return o.who == m.who && (m.who != partition::Who::port || o.guid == m.guid);
        });
        if (!run.empty() && (again || specificity(m.who) < specificity(run.back().who))) runs.emplace_back();
        runs.back().push_back(m);
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        out << YAML::BeginMap;
        if (!p.name.empty()) out << YAML::Key << "name" << YAML::Value << p.name;
        out << YAML::Key << "pkey" << YAML::Value << hex16(p.pkey);
        const bool head = i == 0;
        out << YAML::Key << "ipoib" << YAML::Value << (head && p.ipoib);
        if (head) {
            flag_keys(out, p.flags, partition::GroupFlags{});
            if (p.indx0) out << YAML::Key << "indx0" << YAML::Value << true;
        }
        for (auto kind : {partition::Membership::full, partition::Membership::limited, partition::Membership::both}) {
            std::vector<std::string> ids;
            for (const auto& m : runs[i])
                if (m.membership == kind)
                    ids.push_back(m.who == partition::Who::port ? m.guid.str() : std::string(partition::to_string(m.who)));
            if (!ids.empty())
                out << YAML::Key << std::string(partition::to_string(kind)) << YAML::Value << YAML::Flow << ids;
        }
        if (head && !p.groups.empty()) {
            out << YAML::Key << "groups" << YAML::Value << YAML::BeginSeq;
            for (const auto& g : p.groups) {
                auto base = p.flags;
                base.tclass = 0;
                if (partition::is_ip_mgid(g.mgid) && base.qkey == 0) base.qkey = 0x0b1b;
                out << YAML::Flow << YAML::BeginMap << YAML::Key << "mgid" << YAML::Value << g.mgid.str();
                flag_keys(out, g.flags, base);
                out << YAML::EndMap;
            }
            out << YAML::EndSeq;
        }
        out << YAML::EndMap;
    }
}

void describe_partitions(YAML::Emitter& out, const Config& c)
{
    if (!c.partitions_file.empty() && c.partitions.empty()) {
        out << YAML::Key << "partitions_file" << YAML::Value << c.partitions_file;
    } else {
        out << YAML::Key << "partitions" << YAML::Value;
        // `partitions: []` on one line when none are configured, as the sample file writes it.
        if (c.partitions.empty()) out << YAML::Flow;
        out << YAML::BeginSeq;
        for (const auto& p : c.partitions) describe_rule(out, p);
        out << YAML::EndSeq;
        if (!c.partitions_file.empty())
            out << YAML::Comment("read from partitions_file " + c.partitions_file);
        else if (c.partitions.empty())
            out << YAML::Comment("Default=0x7fff,ipoib : ALL=full, as OpenSM without a partitions file");
    }
    out << YAML::Key << "part_enforce" << YAML::Value << std::string(to_string(c.part_enforce));
    out << YAML::Key << "allow_both_pkeys" << YAML::Value << c.allow_both_pkeys;
}

} // namespace

std::string describe(const Config& c)
{
    YAML::Emitter out;
    out << YAML::BeginMap;

    out << YAML::Key << "routing" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "engines" << YAML::Value << YAML::Flow << c.routing.engines;
    std::string chain;
    for (const auto& e : effective_engine_chain(c.routing)) chain += (chain.empty() ? "" : " -> ") + e;
    out << YAML::Comment("chain run: " + chain);
    out << YAML::Key << "no_fallback" << YAML::Value << c.routing.no_fallback;
    out << YAML::Key << "lmc" << YAML::Value << c.routing.lmc;
    // root_guids and root_guid_file exclude each other in a file.
    if (c.routing.root_guid_file && c.routing.root_guids.empty()) {
        out << YAML::Key << "root_guid_file" << YAML::Value << *c.routing.root_guid_file;
    } else {
        out << YAML::Key << "root_guids" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (auto g : c.routing.root_guids) out << g.str();
        out << YAML::EndSeq;
        if (c.routing.root_guids.empty()) out << YAML::Comment("none: the engine finds the roots");
    }
    for (auto [key, value] : {std::pair{"cn_guid_file", &c.routing.cn_guid_file},
                              std::pair{"io_guid_file", &c.routing.io_guid_file},
                              std::pair{"guid_routing_order_file", &c.routing.guid_routing_order_file}})
        if (*value) out << YAML::Key << key << YAML::Value << **value;
    out << YAML::Key << "max_reverse_hops" << YAML::Value << c.routing.max_reverse_hops;
    out << YAML::Key << "max_vls" << YAML::Value << c.routing.max_vls;
    out << YAML::Key << "switch_sl2vl" << YAML::Value << std::string(to_string(c.routing.switch_sl2vl));
    out << YAML::Key << "vl_tables" << YAML::Value << std::string(to_string(c.routing.vl_tables));
    out << YAML::Key << "lid_assignment" << YAML::Value << c.routing.lid_assignment;
    out << YAML::Comment("path engines only");
    out << YAML::Key << "lid_order" << YAML::Value << c.routing.lid_order;
    out << YAML::Key << "verify_incremental" << YAML::Value << c.routing.verify_incremental;
    out << YAML::EndMap;

    out << YAML::Key << "smp" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "window" << YAML::Value << c.smp.window;
    out << YAML::Key << "timeout_ms" << YAML::Value << c.smp.timeout.count();
    out << YAML::Key << "retries" << YAML::Value << c.smp.retries;
    out << YAML::EndMap;

    out << YAML::Key << "sm" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "priority" << YAML::Value << c.sm.priority;
    if (c.sm.port_guid) out << YAML::Key << "port_guid" << YAML::Value << c.sm.port_guid->str();
    if (c.sm.ca) out << YAML::Key << "ca" << YAML::Value << *c.sm.ca;
    if (c.sm.port) out << YAML::Key << "port" << YAML::Value << static_cast<unsigned>(c.sm.port->value());
    out << YAML::Key << "subnet_prefix" << YAML::Value << Guid(c.sm.subnet_prefix).str();
    out << YAML::Key << "subnet_timeout" << YAML::Value << c.sm.subnet_timeout;
    out << YAML::Key << "packet_life_time" << YAML::Value << c.sm.packet_life_time;
    out << YAML::Key << "polling_interval_s" << YAML::Value << c.sm.polling_interval.count();
    out << YAML::Key << "polling_retries" << YAML::Value << c.sm.polling_retries;
    out << YAML::Key << "sm_key" << YAML::Value << Guid(c.sm.sm_key).str();
    out << YAML::EndMap;

    out << YAML::Key << "state_dir" << YAML::Value << c.state_dir;
    if (c.node_name_map) out << YAML::Key << "node_name_map" << YAML::Value << *c.node_name_map;

    out << YAML::Key << "log" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "level" << YAML::Value << std::string(to_string(c.log.level));
    out << YAML::Key << "file" << YAML::Value << c.log.file;
    out << YAML::Key << "max_size_mb" << YAML::Value << c.log.max_size_mb;
    if (c.log.max_size_mb == 0) out << YAML::Comment("no cap");
    out << YAML::EndMap;

    out << YAML::Key << "sweep" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "interval_s" << YAML::Value << c.sweep.interval.count();
    if (c.sweep.interval.count() == 0) out << YAML::Comment("light sweeps off");
    out << YAML::Key << "retry_interval_s" << YAML::Value << c.sweep.retry_interval.count();
    out << YAML::Key << "debounce_ms" << YAML::Value << c.sweep.debounce.count();
    out << YAML::Key << "debounce_max_ms" << YAML::Value << c.sweep.debounce_max.count();
    out << YAML::EndMap;

    out << YAML::Key << "dump" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "lfts" << YAML::Value << c.dump.lfts;
    out << YAML::Key << "lfts_max_entries" << YAML::Value << c.dump.lfts_max_entries;
    out << YAML::Key << "topology" << YAML::Value << c.dump.topology;
    out << YAML::Key << "summary" << YAML::Value << c.dump.summary;
    out << YAML::Key << "sl" << YAML::Value << c.dump.sl;
    out << YAML::Key << "report" << YAML::Value << c.dump.report;
    out << YAML::EndMap;

    out << YAML::Key << "perf" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "enabled" << YAML::Value << c.perf.enabled;
    out << YAML::Key << "interval_s" << YAML::Value << c.perf.interval.count();
    out << YAML::Key << "window" << YAML::Value << c.perf.window;
    out << YAML::EndMap;

    out << YAML::Key << "metrics" << YAML::Value << YAML::BeginMap;
    if (c.metrics.listen)
        out << YAML::Key << "listen" << YAML::Value << to_string(*c.metrics.listen);
    else
        out << YAML::Comment("listen: no HTTP endpoint");
    out << YAML::Key << "port_series" << YAML::Value << std::string(to_string(c.metrics.port_series));
    out << YAML::EndMap;

    describe_partitions(out, c);

    out << YAML::Key << "control" << YAML::Value;
    if (c.control.socket.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap
            << YAML::Comment("socket: $RUNTIME_DIRECTORY/control.sock, else <state_dir>/control.sock");
    } else {
        out << YAML::BeginMap << YAML::Key << "socket" << YAML::Value << c.control.socket << YAML::EndMap;
    }
    out << YAML::Key << "health" << YAML::Value << YAML::BeginMap;
    for (std::size_t i = 0; i < health_counter_keys.size(); ++i) {
        const auto& t = c.health.thresholds[i];
        out << YAML::Key << std::string(health_counter_keys[i]) << YAML::Value << YAML::Flow << YAML::BeginMap
            << YAML::Key << "per_interval" << YAML::Value << t.per_interval << YAML::Key << "action" << YAML::Value
            << std::string(to_string(t.action)) << YAML::EndMap;
        if (t.per_interval == 0) out << YAML::Comment("off");
    }
    out << YAML::Key << "flapping" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "downs"
        << YAML::Value << c.health.flapping_downs << YAML::Key << "window_s" << YAML::Value
        << c.health.flapping_window.count() << YAML::Key << "action" << YAML::Value
        << std::string(to_string(c.health.flapping_action)) << YAML::EndMap;
    out << YAML::Key << "unresponsive" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "timeouts"
        << YAML::Value << c.health.unresponsive_timeouts << YAML::Key << "sweeps" << YAML::Value
        << c.health.unresponsive_sweeps << YAML::Key << "action" << YAML::Value
        << std::string(to_string(c.health.unresponsive_action)) << YAML::EndMap;
    out << YAML::Key << "downshift" << YAML::Value << std::string(to_string(c.health.downshift_action));
    out << YAML::Key << "disable_port" << YAML::Value << c.health.disable_port;
    const std::pair<const char*, const HealthCountRule*> count_rules[] = {
        {"reboot", &c.health.reboot}, {"noisy", &c.health.noisy}, {"set_errors", &c.health.set_errors},
        {"illegal", &c.health.illegal}};
    for (const auto& [key, rule] : count_rules)
        out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key
            << (std::string_view(key) == "noisy" ? "traps" : "count") << YAML::Value << rule->count << YAML::Key
            << "window_s" << YAML::Value << rule->window.count() << YAML::Key << "action" << YAML::Value
            << std::string(to_string(rule->action)) << YAML::EndMap;
    out << YAML::Key << "isolation_budget_percent" << YAML::Value << c.health.isolation_budget_percent;
    out << YAML::Key << "dry_run" << YAML::Value << c.health.dry_run;
    out << YAML::EndMap;

    out << YAML::Key << "qos" << YAML::Value;
    emit_qos(out, c.qos);
    if (!c.qos.enabled) out << YAML::Comment("no policy: every path keeps the routing's SL");
    out << YAML::Key << "security" << YAML::Value << YAML::BeginMap << YAML::Key << "mkey" << YAML::Value;
    emit_mkey(out, c.security.mkey);
    out << YAML::EndMap;

    out << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

} // namespace ibsm::config
