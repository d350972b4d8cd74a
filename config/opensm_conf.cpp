// opensm.conf into ibsmd's configuration (see opensm_conf.h).
#include "config/opensm_conf.h"

#include "config/engines.h"
#include "config/value_ranges.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace ibsm::config {

namespace {

// Keys OpenSM 3.3 writes that ibsmd has no equivalent for, and why.
const std::map<std::string, std::string, std::less<>>& no_equivalent()
{
    static const std::map<std::string, std::string, std::less<>> why{
        {"m_key", "security.mkey reads its key from a root-only file (mode fixed) or derives one per port "
                  "(per_port); write the key into such a file and set security.mkey by hand"},
        {"m_key_lease_period", "see security.mkey.lease_period_s (set with the key, by hand)"},
        {"m_key_protection_level", "see security.mkey.protect_bits (set with the key, by hand)"},
        {"m_key_lookup", "ibsmd always tries the keys of its key ring (security.mkey)"},
        {"sa_key", "ibsmd's SA trusts requests that carry sm.sm_key; there is no separate SA_Key"},
        {"lmc_esp0", "no option for the LMC of switch port 0"},
        {"sm_sl", "no option for the SL of SM traffic"},
        {"vl_stall_count", "ibsmd does not set VLStallCount"},
        {"leaf_vl_stall_count", "ibsmd does not set VLStallCount"},
        {"head_of_queue_lifetime", "ibsmd does not set HOQLife"},
        {"leaf_head_of_queue_lifetime", "ibsmd does not set HOQLife"},
        {"force_link_speed", "ibsmd does not force link speeds (the health policy reports downshifted links)"},
        {"force_link_speed_ext", "ibsmd does not force link speeds"},
        {"force_link_width", "ibsmd does not force link widths"},
        {"fdr10", "ibsmd does not set FDR10"},
        {"local_phy_errors_threshold", "ibsmd does not set PortInfo error thresholds; the health policy "
                                       "(health.*) judges the error counters"},
        {"overrun_errors_threshold", "as local_phy_errors_threshold"},
        {"use_mfttop", "no equivalent"},
        {"sm_assigned_guid", "ibsmd assigns no alias GUIDs"},
        {"reassign_lids", "ibsmd keeps every LID it assigned (guid2lid in state_dir)"},
        {"force_heavy_sweep", "ibsmd sweeps on events, light sweeps and SIGHUP; `ibsm resweep --heavy` asks one"},
        {"sweep_on_trap", "ibsmd always acts on traps"},
        {"port_profile_switch_nodes", "no equivalent"},
        {"port_prof_ignore_file", "no equivalent"},
        {"hop_weights_file", "no equivalent"},
        {"port_search_ordering_file", "no equivalent"},
        {"avoid_throttled_links", "no equivalent"},
        {"connect_roots", "no equivalent (sftree routes every switch pair)"},
        {"use_ucast_cache", "no option: a re-route reads only the ports the events name and sends only what differs"},
        {"lid_matrix_dump_file", "no equivalent: ibsmd computes hops itself"},
        {"lfts_file", "the file engine is not in ibsmd"},
        {"quasi_ftree_indexing", "ibsmd's ftree indexes hosts by the tree's structure (seed 003)"},
        {"ids_guid_file", "no equivalent"},
        {"do_mesh_analysis", "LASH is not in ibsmd"},
        {"lash_start_vl", "LASH is not in ibsmd"},
        {"nue_max_num_vls", "nue takes routing.max_vls"},
        {"nue_include_switches", "nue always routes switch-to-switch pairs deadlock-free"},
        {"port_shifting", "no equivalent"},
        {"scatter_ports", "no equivalent: ibsmd's routes are deterministic"},
        {"guid_routing_order_no_scatter", "no equivalent: ibsmd's routes are deterministic"},
        {"sa_db_file", "ibsmd keeps no SA database file"},
        {"sa_db_dump", "ibsmd keeps no SA database file"},
        {"torus_config", "torus-2QoS is not in ibsmd"},
        {"ignore_other_sm", "ibsmd always takes part in the SM election (IBA 14.4.1)"},
        {"honor_guid2lid_file", "ibsmd always keeps the LIDs of its guid2lid (state_dir)"},
        {"max_wire_smps", "OpenSM's window for its own SMP engine; ibsmd's smp.window is sized for its "
                          "transport (default 16)"},
        {"max_wire_smps2", "as max_wire_smps"},
        {"max_smps_timeout", "as max_wire_smps"},
        {"long_transaction_timeout", "ibsmd uses one SMP timeout (smp.timeout_ms)"},
        {"max_msg_fifo_timeout", "no equivalent"},
        {"single_thread", "no equivalent"},
        {"daemon", "ibsmd runs under systemd (ibsmd.service) or --foreground"},
        {"sm_inactive", "no equivalent"},
        {"babbling_port_policy", "no equivalent: the health policy (health.*) isolates faulty links"},
        {"drop_event_subscriptions", "no equivalent"},
        {"ipoib_mcgroup_creation_validation", "no option: ibsmd checks every join by its multicast rules"},
        {"mcgroup_join_validation", "no option: ibsmd checks every join by its multicast rules"},
        {"use_original_extended_sa_rates_only", "no equivalent"},
        {"use_optimized_slvl", "ibsmd uses OptimizedSLtoVLMappingProgramming where switches offer it "
                               "(routing.switch_sl2vl)"},
        {"fsync_high_avail_files", "ibsmd replaces its state files atomically"},
        {"perfmgr_redir", "no equivalent"},
        {"perfmgr_max_outstanding_queries", "see perf.window (ibsmd's default 4)"},
        {"perfmgr_ignore_cas", "no equivalent: ibsmd reads every linked port"},
        {"perfmgr_rm_nodes", "no equivalent"},
        {"perfmgr_log_errors", "the health policy (health.*) decides what is logged"},
        {"perfmgr_query_cpi", "no equivalent"},
        {"perfmgr_xmit_wait_log", "no equivalent"},
        {"perfmgr_xmit_wait_threshold", "no equivalent"},
        {"event_db_dump_file", "no equivalent: see the events feed (`ibsm events`)"},
        {"event_plugin_name", "ibsmd loads no plugins; the events feed (`ibsm events`) tells what happens"},
        {"event_plugin_options", "ibsmd loads no plugins"},
        {"force_log_flush", "no equivalent"},
        {"log_file", "not taken: ibsmd logs to log.file (under /var/log/ibsmd, the unit's LogsDirectory=)"},
        {"accum_log_file", "ibsmd appends to its log and rotates it by log.max_size_mb"},
        {"per_module_logging_file", "no equivalent"},
        {"dump_files_dir", "ibsmd writes its dumps into state_dir (see dump.*)"},
        {"enable_quirks", "no equivalent"},
        {"no_clients_rereg", "ibsmd asks every CA port for ClientReregister once per process"},
        {"disable_multicast", "no equivalent: ibsmd always serves multicast"},
        {"exit_on_fatal", "nothing at run time stops ibsmd but a signal"},
        {"console", "see `ibsm` (status, ports, resweep, log-level, events) over the control socket"},
        {"console_port", "see control.socket"},
        {"suppress_sl2vl_mad_status_errors", "no equivalent"},
        {"qos_max_vls", "ibsmd shares routing.max_vls between the routing's layers and the QoS policy"},
        {"qos_ca_max_vls", "as qos_max_vls"},
        {"qos_sw0_max_vls", "as qos_max_vls"},
        {"qos_swe_max_vls", "as qos_max_vls"},
        {"qos_rtr_max_vls", "as qos_max_vls"},
        {"qos_rtr_high_limit", "ibsmd has no router class in qos.vlarb"},
        {"qos_rtr_vlarb_high", "ibsmd has no router class in qos.vlarb"},
        {"qos_rtr_vlarb_low", "ibsmd has no router class in qos.vlarb"},
        {"qos_rtr_sl2vl", "ibsmd has no router class in qos.sl2vl"},
        {"qos_sw0_high_limit", "ibsmd has no switch port 0 class in qos.vlarb"},
        {"qos_sw0_vlarb_high", "ibsmd has no switch port 0 class in qos.vlarb"},
        {"qos_sw0_vlarb_low", "ibsmd has no switch port 0 class in qos.vlarb"},
        {"congestion_control", "congestion control is not in ibsmd"},
        {"prefix_routes_file", "ibsmd does not route to other subnets"},
        {"consolidate_ipv6_snm_req", "no equivalent"},
        {"log_prefix", "no equivalent"},
    };
    return why;
}

std::string trim(std::string s)
{
    auto blank = [](unsigned char c) { return std::isspace(c) != 0; };
    while (!s.empty() && blank(static_cast<unsigned char>(s.back()))) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && blank(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

class Importer {
public:
    explicit Importer(std::string name) : name_(std::move(name)) {}

    [[noreturn]] void fail(const std::string& why) const
    {
        throw ConfigError(name_ + ":" + std::to_string(line_) + ": key '" + key_ + "': " + why);
    }

    std::uint64_t number(const std::string& v, Range r) const
    {
        errno = 0;
        char* end = nullptr;
        const unsigned long long n = std::strtoull(v.c_str(), &end, 0);
        if (v.empty() || *end != '\0' || errno == ERANGE || v[0] == '-')
            fail("expected a number, got '" + v + "'");
        if (!r.contains(n))
            fail(std::to_string(n) + " is out of range " + std::to_string(r.lo) + ".." + std::to_string(r.hi));
        return n;
    }

    bool boolean(const std::string& v) const
    {
        std::string l = v;
        std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (l == "true") return true;
        if (l == "false") return false;
        fail("expected TRUE or FALSE, got '" + v + "'");
    }

    static std::optional<std::string> path(const std::string& v)
    {
        if (v.empty() || v == "(null)") return std::nullopt;
        return v;
    }

    // "0,1,2,..,15": the VL of each SL (OpenSM's qos_sl2vl).
    QosSl2Vl sl2vl(const std::string& v) const
    {
        QosSl2Vl t{};
        std::istringstream in(v);
        std::string item;
        std::size_t n = 0;
        while (std::getline(in, item, ',')) {
            if (n == 16) fail("more than 16 VLs in '" + v + "'");
            t[n++] = static_cast<std::uint8_t>(number(trim(item), Range{0, 14}));
        }
        if (n != 16) fail("expected 16 VLs (one per SL), got " + std::to_string(n));
        return t;
    }

    // "VL:weight,VL:weight,..." (OpenSM's qos_vlarb_high / _low).
    std::vector<QosVlArbEntry> vlarb(const std::string& v) const
    {
        std::vector<QosVlArbEntry> out;
        std::istringstream in(v);
        std::string item;
        while (std::getline(in, item, ',')) {
            const auto colon = item.find(':');
            if (colon == std::string::npos) fail("expected VL:weight, got '" + trim(item) + "'");
            if (out.size() == 64) fail("more than 64 entries");
            out.push_back({static_cast<std::uint8_t>(number(trim(item.substr(0, colon)), Range{0, 14})),
                           static_cast<std::uint8_t>(number(trim(item.substr(colon + 1)), Range{0, 255}))});
        }
        return out;
    }

    OpensmConf run(std::istream& in)
    {
        std::string text;
        for (line_ = 1; std::getline(in, text); ++line_) {
            text = trim(text);
            if (text.empty() || text[0] == '#') continue;
            std::size_t split = 0;
            while (split < text.size() && !std::isspace(static_cast<unsigned char>(text[split]))) ++split;
            key_ = text.substr(0, split);
            value_ = trim(text.substr(split));
            take();
        }
        finish();
        return std::move(out_);
    }

private:
    void note(std::string why) { out_.untranslated.push_back({static_cast<unsigned>(line_), key_, value_, std::move(why)}); }
    void adapted(std::string why) { out_.adapted.push_back({static_cast<unsigned>(line_), key_, value_, std::move(why)}); }

    void take()
    {
        Config& c = out_.config;
        const std::string& v = value_;
        const std::string& k = key_;
        if (k == "guid") {
            if (const auto g = number(v, Range{0, ~0ull})) c.sm.port_guid = Guid(g);
        } else if (k == "sm_key") {
            c.sm.sm_key = number(v, Range{0, ~0ull});
        } else if (k == "subnet_prefix") {
            c.sm.subnet_prefix = number(v, Range{0, ~0ull});
        } else if (k == "lmc") {
            c.routing.lmc = static_cast<unsigned>(number(v, limits::lmc));
        } else if (k == "packet_life_time") {
            c.sm.packet_life_time = static_cast<unsigned>(number(v, limits::packet_life_time));
        } else if (k == "subnet_timeout") {
            c.sm.subnet_timeout = static_cast<unsigned>(number(v, limits::subnet_timeout));
        } else if (k == "max_op_vls") {
            // PortInfo OperationalVLs codes: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14.
            static constexpr unsigned vls[] = {1, 2, 4, 8, 15};
            c.routing.max_vls = vls[number(v, Range{1, 5}) - 1];
        } else if (k == "sweep_interval") {
            c.sweep.interval = std::chrono::seconds(number(v, limits::sweep_interval_s));
        } else if (k == "routing_engine") {
            engines(v);
        } else if (k == "root_guid_file") {
            c.routing.root_guid_file = path(v);
        } else if (k == "cn_guid_file") {
            c.routing.cn_guid_file = path(v);
        } else if (k == "io_guid_file") {
            c.routing.io_guid_file = path(v);
        } else if (k == "part_enforce") {
            // OpenSM takes an unknown value for both, with a warning.
            part_enforce_ = v == "in" ? PartEnforce::in : v == "out" ? PartEnforce::out : v == "off" ? PartEnforce::off
                                                                                                      : PartEnforce::both;
            if (v != "both" && v != "in" && v != "out" && v != "off")
                adapted("not both, in, out or off: both, as OpenSM takes it");
        } else if (k == "no_partition_enforcement") {
            no_enforcement_ = boolean(v);
        } else if (k == "allow_both_pkeys") {
            c.allow_both_pkeys = boolean(v);
        } else if (k == "keep_pkey_indexes") {
            if (!boolean(v))
                adapted("ibsmd always keeps each partition's P_Key index in a port's table, so IPoIB interfaces "
                        "keep theirs");
        } else if (k == "max_reverse_hops") {
            c.routing.max_reverse_hops = static_cast<unsigned>(number(v, limits::max_reverse_hops));
        } else if (k == "guid_routing_order_file") {
            c.routing.guid_routing_order_file = path(v);
        } else if (k == "node_name_map_name") {
            c.node_name_map = path(v);
        } else if (k == "sm_priority") {
            c.sm.priority = static_cast<unsigned>(number(v, limits::sm_priority));
        } else if (k == "sminfo_polling_timeout") {
            const auto ms = number(v, Range{1, limits::sm_polling_interval_s.hi * 1000});
            c.sm.polling_interval = std::chrono::seconds((ms + 999) / 1000);
            if (ms % 1000) adapted("sm.polling_interval_s is in seconds: " + std::to_string((ms + 999) / 1000));
        } else if (k == "polling_retry_number") {
            c.sm.polling_retries = static_cast<unsigned>(number(v, limits::sm_polling_retries));
        } else if (k == "transaction_timeout") {
            c.smp.timeout = std::chrono::milliseconds(number(v, limits::smp_timeout_ms));
        } else if (k == "transaction_retries") {
            c.smp.retries = static_cast<unsigned>(number(v, limits::smp_retries));
        } else if (k == "log_max_size") {
            c.log.max_size_mb = static_cast<unsigned>(number(v, limits::log_max_size_mb));
        } else if (k == "log_flags") {
            // OSM_LOG_ERROR 0x01, INFO 0x02, VERBOSE 0x04, DEBUG 0x08 and finer.
            const auto f = number(v, Range{0, 0xff});
            c.log.level = f >= 0x04 ? LogLevel::debug : f & 0x02 ? LogLevel::info : f ? LogLevel::error : LogLevel::off;
        } else if (k == "perfmgr") {
            if (!boolean(v))
                adapted("ibsmd's counter poller stays on (perf.enabled: true): it reads counters at a priority "
                        "below SMPs for the health policy; set perf.enabled: false to turn it off as in OpenSM");
        } else if (k == "perfmgr_sweep_time_s") {
            c.perf.interval = std::chrono::seconds(number(v, limits::perf_interval_s));
        } else if (k == "partition_config_file") {
            out_.partition_config_file = path(v);
        } else if (k == "qos") {
            qos_ = boolean(v);
        } else if (k == "qos_policy_file") {
            qos_policy_ = path(v);
        } else if (k == "qos_sl2vl" || k == "qos_ca_sl2vl" || k == "qos_swe_sl2vl" || k == "qos_sw0_sl2vl") {
            if (auto p = path(v)) {
                auto t = sl2vl(*p);
                if (k == "qos_sl2vl") all_sl2vl_ = t;
                if (k == "qos_ca_sl2vl") ca_sl2vl_ = t;
                if (k == "qos_swe_sl2vl") swe_sl2vl_ = t;
                if (k == "qos_sw0_sl2vl") sw0_sl2vl_ = t;
                tables_line_ = line_;
            }
        } else if (k == "qos_vlarb_high" || k == "qos_vlarb_low" || k == "qos_ca_vlarb_high" ||
                   k == "qos_ca_vlarb_low" || k == "qos_swe_vlarb_high" || k == "qos_swe_vlarb_low") {
            if (auto p = path(v)) {
                const bool high = k.ends_with("high");
                auto& arb = k.starts_with("qos_ca") ? ca_arb_ : k.starts_with("qos_swe") ? swe_arb_ : all_arb_;
                (high ? arb.high : arb.low) = vlarb(*p);
                arb.set = true;
                tables_line_ = line_;
            }
        } else if (k == "qos_high_limit" || k == "qos_ca_high_limit" || k == "qos_swe_high_limit") {
            if (v != "-1") {
                auto& arb = k.starts_with("qos_ca") ? ca_arb_ : k.starts_with("qos_swe") ? swe_arb_ : all_arb_;
                arb.limit = static_cast<std::uint8_t>(number(v, Range{0, 255}));
                arb.set = true;
                tables_line_ = line_;
            }
        } else if (auto it = no_equivalent().find(k); it != no_equivalent().end()) {
            note(it->second);
        } else {
            note("not a key of OpenSM 3.3's opensm.conf");
        }
    }

    void engines(const std::string& v)
    {
        if (!path(v)) return; // (null): OpenSM's default, minhop; ibsmd's chain stays
        std::vector<std::string> kept, dropped;
        std::istringstream in(v);
        std::string e;
        while (std::getline(in, e, ',')) {
            e = trim(e);
            if (e.empty()) continue;
            (is_known_engine(e) ? kept : dropped).push_back(e);
        }
        if (!kept.empty()) out_.config.routing.engines = kept;
        if (!dropped.empty()) {
            std::string list;
            for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + d;
            adapted("not in ibsmd: " + list + (kept.empty() ? "; routing.engines keeps ibsmd's default chain" : "") +
                    " (ibsmd's engines: " + known_engines_text() + ")");
        }
    }

    struct Arb {
        std::vector<QosVlArbEntry> high, low;
        std::optional<std::uint8_t> limit;
        bool set = false;
    };

    static QosVlArb merged(const Arb& specific, const Arb& all)
    {
        QosVlArb a;
        a.high = !specific.high.empty() ? specific.high : all.high;
        a.low = !specific.low.empty() ? specific.low : all.low;
        a.high_limit = specific.limit.value_or(all.limit.value_or(0));
        return a;
    }

    // OpenSM applies the tables only with `qos TRUE`; qos_ca_* and qos_swe_*
    // override qos_* for CA ports and switch external ports.
    void finish()
    {
        // OpenSM's older key wins over part_enforce (osm_subnet.c).
        out_.config.part_enforce = no_enforcement_ ? PartEnforce::off : part_enforce_;
        auto& q = out_.config.qos;
        const bool tables = all_sl2vl_ || ca_sl2vl_ || swe_sl2vl_ || sw0_sl2vl_ || all_arb_.set || ca_arb_.set || swe_arb_.set;
        if (!qos_) {
            if (tables) {
                line_ = tables_line_;
                key_ = "qos";
                value_ = "FALSE";
                note("the qos_* tables are not used while qos is FALSE (as in OpenSM)");
            }
            return;
        }
        out_.qos_policy_file = qos_policy_;
        q.enabled = true;
        if (ca_sl2vl_ || all_sl2vl_) q.sl2vl_ca = ca_sl2vl_ ? *ca_sl2vl_ : *all_sl2vl_;
        if (swe_sl2vl_ || all_sl2vl_) q.sl2vl_switch = swe_sl2vl_ ? *swe_sl2vl_ : *all_sl2vl_;
        if (sw0_sl2vl_ || all_sl2vl_) q.sl2vl_switch_port0 = sw0_sl2vl_ ? *sw0_sl2vl_ : *all_sl2vl_;
        if (ca_arb_.set || all_arb_.set) q.vlarb_ca = merged(ca_arb_, all_arb_);
        if (swe_arb_.set || all_arb_.set) q.vlarb_switch = merged(swe_arb_, all_arb_);
    }

    std::string name_;
    std::size_t line_ = 0;
    std::string key_, value_;
    OpensmConf out_;
    bool qos_ = false;
    PartEnforce part_enforce_ = PartEnforce::both;
    bool no_enforcement_ = false;
    std::optional<std::string> qos_policy_;
    std::optional<QosSl2Vl> all_sl2vl_, ca_sl2vl_, swe_sl2vl_, sw0_sl2vl_;
    Arb all_arb_, ca_arb_, swe_arb_;
    std::size_t tables_line_ = 0;
};

} // namespace

OpensmConf import_opensm_conf(std::istream& in, const std::string& name)
{
    return Importer(name).run(in);
}

} // namespace ibsm::config
