// `ibsm import-opensm`'s readers: opensm.conf keys into ibsmd's
// configuration (config/opensm_conf.h) and qos-policy.conf into qos:
// (config/opensm_qos.h), with OpenSM's constructs in files of our own, and
// the errors naming file and line. The output round-trips through
// describe() and parse_config(), as the daemon loads it. The complete
// default opensm.conf that OpenSM writes is imported by
// test_import_opensm.sh (generated at run time).
#include "config/describe.h"
#include "config/opensm_conf.h"
#include "config/opensm_qos.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;
using namespace ibsm::config;

namespace {

OpensmConf conf_of(const std::string& text)
{
    std::istringstream in(text);
    return import_opensm_conf(in, "opensm.conf");
}

OpensmQos qos_of(const std::string& text, const std::map<std::string, std::uint16_t>& partitions = {})
{
    std::istringstream in(text);
    return import_opensm_qos(in, "qos-policy.conf", partitions);
}

template <class F> std::string error_of(F f)
{
    try {
        f();
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "no error";
}

// What the daemon would load from the import's output, with the rules'
// lines (of the source file here, of the YAML there) left out.
Config without_lines(Config c)
{
    for (auto& r : c.qos.rules) r.line = 0;
    return c;
}
bool round_trips(const Config& c) { return without_lines(parse_config(describe(c), "import")) == without_lines(c); }

} // namespace

TEST_CASE("opensm.conf: keys with an equivalent become ibsmd's, the others are notes saying why", "[opensm]")
{
    const auto r = conf_of("# OpenSM configuration\n"
                           "guid 0x0002c90300000001\n"
                           "sm_key 0x0000000000000001\n"
                           "lmc 2\n"
                           "max_op_vls 3\n"
                           "packet_life_time 0x12\n"
                           "sm_priority 14\n"
                           "sminfo_polling_timeout 2500\n"
                           "routing_engine ftree,lash,dfsssp\n"
                           "root_guid_file /etc/opensm/roots\n"
                           "cn_guid_file (null)\n"
                           "node_name_map_name /etc/opensm/names\n"
                           "transaction_timeout 200\n"
                           "log_flags 0x03\n"
                           "m_key 0x0000000000000000\n"
                           "max_wire_smps 4\n"
                           "frobnicate TRUE\n"
                           "partition_config_file /etc/opensm/partitions.conf\n");
    const Config& c = r.config;
    CHECK(c.sm.port_guid == std::optional<Guid>(Guid(0x0002c90300000001)));
    CHECK(c.sm.sm_key == 1);
    CHECK(c.routing.lmc == 2);
    CHECK(c.routing.max_vls == 4); // OperationalVLs code 3: VL0-3
    CHECK(c.sm.packet_life_time == 18);
    CHECK(c.sm.priority == 14);
    CHECK(c.sm.polling_interval == std::chrono::seconds(3));
    CHECK(c.routing.engines == std::vector<std::string>{"ftree", "dfsssp"});
    CHECK(c.routing.root_guid_file == std::optional<std::string>("/etc/opensm/roots"));
    CHECK_FALSE(c.routing.cn_guid_file);
    CHECK(c.node_name_map == std::optional<std::string>("/etc/opensm/names"));
    CHECK(c.smp.timeout == std::chrono::milliseconds(200));
    CHECK(c.log.level == LogLevel::info);
    CHECK(r.partition_config_file == std::optional<std::string>("/etc/opensm/partitions.conf"));
    REQUIRE(r.untranslated.size() == 3);
    CHECK(r.untranslated[0].key == "m_key");
    CHECK(r.untranslated[0].line == 15);
    CHECK(r.untranslated[0].why.find("security.mkey") != std::string::npos);
    CHECK(r.untranslated[1].key == "max_wire_smps");
    CHECK(r.untranslated[2].key == "frobnicate");
    CHECK(r.untranslated[2].why == "not a key of OpenSM 3.3's opensm.conf");
    REQUIRE(r.adapted.size() == 2);
    CHECK(r.adapted[0].key == "sminfo_polling_timeout");
    CHECK(r.adapted[1].key == "routing_engine");
    CHECK(r.adapted[1].why.starts_with("not in ibsmd: lash"));
    CHECK(round_trips(c));
}

TEST_CASE("opensm.conf: max_reverse_hops and the partition keys carry over", "[opensm]")
{
    const auto r = conf_of("max_reverse_hops 2\n"
                           "part_enforce in\n"
                           "allow_both_pkeys TRUE\n"
                           "keep_pkey_indexes FALSE\n");
    CHECK(r.config.routing.max_reverse_hops == 2);
    CHECK(r.config.part_enforce == PartEnforce::in);
    CHECK(r.config.allow_both_pkeys);
    CHECK(r.untranslated.empty());
    REQUIRE(r.adapted.size() == 1);
    CHECK(r.adapted[0].key == "keep_pkey_indexes");
    CHECK(round_trips(r.config));
    // OpenSM's older key wins, wherever it stands.
    CHECK(conf_of("no_partition_enforcement TRUE\npart_enforce out\n").config.part_enforce == PartEnforce::off);
    CHECK(conf_of("part_enforce out\nno_partition_enforcement FALSE\n").config.part_enforce == PartEnforce::out);
    // A value OpenSM does not know is its default, said.
    const auto odd = conf_of("part_enforce sometimes\n");
    CHECK(odd.config.part_enforce == PartEnforce::both);
    REQUIRE(odd.adapted.size() == 1);
    CHECK(odd.adapted[0].why == "not both, in, out or off: both, as OpenSM takes it");
}

TEST_CASE("opensm.conf: the qos_* tables become qos.sl2vl and qos.vlarb, only with qos TRUE", "[opensm]")
{
    const std::string tables = "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n"
                               "qos_swe_sl2vl 0,0,1,1,2,2,3,3,0,0,1,1,2,2,3,3\n"
                               "qos_vlarb_high 0:4,1:4\n"
                               "qos_vlarb_low 0:64,1:32,2:16\n"
                               "qos_high_limit 4\n"
                               "qos_ca_vlarb_low 0:8\n";
    const auto off = conf_of("qos FALSE\n" + tables);
    CHECK_FALSE(off.config.qos.enabled);
    REQUIRE(off.untranslated.size() == 1);
    CHECK(off.untranslated[0].key == "qos");

    const auto on = conf_of("qos TRUE\nqos_policy_file /etc/opensm/qos-policy.conf\n" + tables);
    const auto& q = on.config.qos;
    CHECK(q.enabled);
    CHECK(on.qos_policy_file == std::optional<std::string>("/etc/opensm/qos-policy.conf"));
    REQUIRE(q.sl2vl_ca);
    CHECK((*q.sl2vl_ca)[9] == 1);
    REQUIRE(q.sl2vl_switch);
    CHECK((*q.sl2vl_switch)[3] == 1);
    REQUIRE(q.vlarb_ca);
    CHECK(q.vlarb_ca->low == std::vector<QosVlArbEntry>{{0, 8}});
    CHECK(q.vlarb_ca->high == std::vector<QosVlArbEntry>{{0, 4}, {1, 4}});
    CHECK(q.vlarb_ca->high_limit == 4);
    REQUIRE(q.vlarb_switch);
    CHECK(q.vlarb_switch->low.size() == 3);
    CHECK(round_trips(on.config));
}

TEST_CASE("opensm.conf: a value ibsmd cannot take names file, line and key", "[opensm]")
{
    CHECK(error_of([] { conf_of("\nlmc 9\n"); }) == "opensm.conf:2: key 'lmc': 9 is out of range 0..7");
    CHECK(error_of([] { conf_of("sm_priority high\n"); }) ==
          "opensm.conf:1: key 'sm_priority': expected a number, got 'high'");
    CHECK(error_of([] { conf_of("qos TRUE\nqos_sl2vl 0,1,2\n"); }) ==
          "opensm.conf:2: key 'qos_sl2vl': expected 16 VLs (one per SL), got 3");
}

// The constructs of OpenSM's full-policy example (doc/QoS_management_in_OpenSM.txt),
// in a file of our own.
const char* full_policy = R"(# storage and compute
port-groups
    port-group # by port GUID
        name: Storage
        use: SRP Targets
        port-guid: 0x10000000000001, 0x10000000000005-0x10000000000007
        port-guid: 0x1000000000FFFF
    end-port-group
    port-group
        name: Tenants
        partition: TenantA
        pkey: 0x8002
    end-port-group
    port-group
        name: Hosts
        node-type: CA
    end-port-group
end-port-groups

qos-setup
    # parsed and ignored, as in OpenSM
end-qos-setup

qos-levels
    qos-level
        name: DEFAULT
        use: default QoS Level
        sl: 0
    end-qos-level
    qos-level
        name: WholeSet
        sl: 1
        mtu-limit: 4
        rate-limit: 5
        packet-life: 8
    end-qos-level
end-qos-levels

qos-match-rules
    qos-match-rule
        use: by QoS class
        qos-class: 7-9,11
        qos-level-name: WholeSet
    end-qos-match-rule
    qos-match-rule
        destination: Storage
        service-id: 0x10000000000001, 0x10000000000008-0x10000000000FFF
        qos-level-name: WholeSet
    end-qos-match-rule
    qos-match-rule
        source: Storage
        qos-level-name: DEFAULT
    end-qos-match-rule
    qos-match-rule
        qos-class: 7-9,11
        source: Hosts
        destination: Storage
        service-id: 0x0000000000010000-0x000000000001FFFF
        pkey: 0x0F00-0x0F03
        qos-level-name: WholeSet
    end-qos-match-rule
end-qos-match-rules
)";

TEST_CASE("qos-policy.conf: port groups, levels and match rules of the full policy", "[opensm]")
{
    const auto r = qos_of(full_policy, {{"TenantA", 0x8001}});
    const auto& q = r.qos;
    REQUIRE(q.port_groups.size() == 3);
    CHECK(q.port_groups[0].name == "Storage");
    CHECK(q.port_groups[0].port_guids ==
          std::vector<Guid>{Guid(0x10000000000001), Guid(0x10000000000005), Guid(0x10000000000006),
                            Guid(0x10000000000007), Guid(0x1000000000FFFF)});
    CHECK(q.port_groups[1].partitions == std::vector<std::uint16_t>{0x0001, 0x0002});
    CHECK(q.port_groups[2].all_cas);
    CHECK_FALSE(q.port_groups[2].all_switches);
    // DEFAULT is named by a rule: kept as a level.
    REQUIRE(q.levels.size() == 2);
    CHECK(q.levels[0].name == "WholeSet");
    CHECK(q.levels[0].sl == 1);
    CHECK(q.levels[0].mtu == std::optional<std::uint8_t>(4));
    CHECK(q.levels[0].rate == std::optional<std::uint8_t>(5));
    CHECK(q.levels[0].packet_life == std::optional<std::uint8_t>(8));
    CHECK(q.levels[1].name == "DEFAULT");
    REQUIRE(q.rules.size() == 4);
    CHECK(q.rules[0].qos_classes == std::vector<QosRange<std::uint16_t>>{{7, 9}, {11, 11}});
    CHECK(q.rules[0].level == "WholeSet");
    CHECK(q.rules[1].destination == std::optional<std::string>("Storage"));
    CHECK(q.rules[1].service_ids ==
          std::vector<QosRange<std::uint64_t>>{{0x10000000000001, 0x10000000000001}, {0x10000000000008, 0x10000000000FFF}});
    CHECK(q.rules[2].source == std::optional<std::string>("Storage"));
    CHECK(q.rules[2].level == "DEFAULT");
    CHECK(q.rules[3].pkeys == std::vector<std::uint16_t>{0x0F00, 0x0F01, 0x0F02, 0x0F03});
    CHECK(q.rules[3].line == 54);
    // The neutral DEFAULT adds no catch-all rule; the notes say so, and that qos-setup was ignored.
    REQUIRE(r.notes.size() == 2);
    CHECK(r.notes[0].starts_with("qos-policy.conf:20: qos-setup is parsed and ignored"));
    CHECK(r.notes[1].starts_with("qos-policy.conf:25: the default (SL 0, no limits)"));

    Config c;
    c.qos = q;
    CHECK(round_trips(c));
}

TEST_CASE("qos-policy.conf: the simplified policy (qos-ulps) becomes rules after the match rules", "[opensm]")
{
    const auto r = qos_of(R"(qos-ulps
    default                       : 2 # default SL
    sdp, port-num 30000           : 0
    sdp                           : 1
    rds                           : 2
    iser, port-num 900            : 0
    iser                          : 3
    ipoib, pkey 0x0001            : 0
    ipoib                         : 4
    any, service-id 0x6234        : 6
    any, pkey 0x0ABC              : 6
    srp, target-port-guid 0x1234  : 5
    any, source-port-guid 0x5678  : 7
    any, source-target-port-guid 0x9abcd-0x9abce : 8
end-qos-ulps
)");
    const auto& q = r.qos;
    auto rule = [&](std::size_t i) -> const QosRule& { return q.rules.at(i); };
    REQUIRE(q.rules.size() == 14); // 12 lines, source-target twice, the default last
    CHECK(rule(0).service_ids == std::vector<QosRange<std::uint64_t>>{{0x10000 + 30000, 0x10000 + 30000}});
    CHECK(rule(0).level == "ulp-sl-0");
    CHECK(rule(1).service_ids == std::vector<QosRange<std::uint64_t>>{{0x10000, 0x1ffff}});
    CHECK(rule(2).service_ids == std::vector<QosRange<std::uint64_t>>{{0x10648CA, 0x10648CA}});
    CHECK(rule(3).service_ids == std::vector<QosRange<std::uint64_t>>{{0x1060000 + 900, 0x1060000 + 900}});
    CHECK(rule(4).service_ids == std::vector<QosRange<std::uint64_t>>{{0x1060CBC, 0x1060CBC}});
    CHECK(rule(5).pkeys == std::vector<std::uint16_t>{0x0001});
    CHECK(rule(6).pkeys == std::vector<std::uint16_t>{0x7fff});
    CHECK(rule(7).service_ids == std::vector<QosRange<std::uint64_t>>{{0x6234, 0x6234}});
    CHECK(rule(8).pkeys == std::vector<std::uint16_t>{0x0ABC});
    CHECK(rule(9).destination == std::optional<std::string>("ulp-line-12"));
    CHECK(rule(9).level == "ulp-sl-5");
    CHECK(rule(10).source == std::optional<std::string>("ulp-line-13"));
    CHECK(rule(11).source == std::optional<std::string>("ulp-line-14"));
    CHECK(rule(12).destination == std::optional<std::string>("ulp-line-14"));
    CHECK(rule(12).level == "ulp-sl-8");
    // default : 2 is not neutral: a last rule with no selector.
    CHECK(rule(13).level == "DEFAULT");
    CHECK(rule(13).source == std::nullopt);
    CHECK(rule(13).service_ids.empty());
    REQUIRE(q.port_groups.size() == 3);
    CHECK(q.port_groups[2].port_guids == std::vector<Guid>{Guid(0x9abcd), Guid(0x9abce)});

    Config c;
    c.qos = q;
    CHECK(round_trips(c));
}

TEST_CASE("qos-policy.conf: what has no equivalent is refused with file and line", "[opensm]")
{
    auto group = [](const std::string& item) {
        return "port-groups\n  port-group\n    name: G\n    " + item + "\n  end-port-group\nend-port-groups\n";
    };
    CHECK(error_of([&] { qos_of(group("port-name: vs1 HCA-1/P1")); })
              .starts_with("qos-policy.conf:4: port-name has no equivalent: ibsmd's port groups select every port"));
    CHECK(error_of([&] { qos_of(group("node-type: CA, SELF")); })
              .starts_with("qos-policy.conf:4: node-type SELF has no equivalent"));
    CHECK(error_of([&] { qos_of(group("partition: Part1")); }) ==
          "qos-policy.conf:4: partition 'Part1': not named in the partitions file (give it with --partitions)");
    CHECK(error_of([&] { qos_of(group("port-guid: 0x1-0x100000")); })
              .starts_with("qos-policy.conf:4: a range of more than 4096 port GUIDs has no equivalent"));
    CHECK(error_of([] {
              qos_of("qos-levels\n  qos-level\n    name: L\n    sl: 1\n    pkey: 0x1234\n  end-qos-level\nend-qos-levels\n");
          }).starts_with("qos-policy.conf:5: pkey in a qos-level has no equivalent"));
    CHECK(error_of([] {
              qos_of("qos-match-rules\n  qos-match-rule\n    qos-level-name: Nowhere\n  end-qos-match-rule\n"
                     "end-qos-match-rules\n");
          }) == "qos-policy.conf:3: qos-level 'Nowhere' is not defined");
    CHECK(error_of([] { qos_of("qos-ulps\n  nfs : 3\nend-qos-ulps\n"); }) ==
          "qos-policy.conf:2: unknown ULP 'nfs' (default, sdp, rds, iser, srp, ipoib, any)");
    CHECK(error_of([] { qos_of("qos-levels\n  qos-level\n    name: L\n    sl: 1\n"); }) ==
          "qos-policy.conf:2: missing 'end-qos-level'");
}

TEST_CASE("partitions.conf: the NAME=PKEY heads for qos-policy.conf's partition port groups", "[opensm]")
{
    std::istringstream in("# partitions\nDefault=0x7fff, ipoib : ALL=full ;\n"
                          "TenantA=0x8001 : 0x1=full,\n  0x2 ; TenantB = 2 , indx0 : ALL_CAS=limited;\n");
    const auto names = partition_names(in);
    CHECK(names == std::map<std::string, std::uint16_t>{{"Default", 0x7fff}, {"TenantA", 0x8001}, {"TenantB", 2}});
}
