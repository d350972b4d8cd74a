// qos: and security: parsing: every refusal with its file:line:key text,
// and a full policy that --print-config writes back to the same values.
#include "config/config.h"
#include "config/describe.h"

#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;

namespace {

// A small valid policy; tests append or replace lines.
const std::string groups = "qos:\n"
                           "  port_groups:\n"
                           "    storage: {node_desc: [\"stor*\"]}\n"
                           "  levels:\n"
                           "    bulk: {sl: 2}\n";

} // namespace

TEST_CASE("qos: a full policy parses to its values", "[config][qos]")
{
    const Config c = parse_config("routing: {max_vls: 4}\n"
                                  "partitions:\n"
                                  "  - {name: store, pkey: 0x0005, full: [0x11]}\n"
                                  "qos:\n"
                                  "  port_groups:\n"
                                  "    storage: {node_desc: [\"stor*\", \"nas?\"], port_guids: [0x21], node_guids: [0x10],\n"
                                  "              partitions: [0x8001, store], all_cas: true, all_switches: false}\n"
                                  "    sw: {all_switches: true}\n"
                                  "  levels:\n"
                                  "    bulk: {sl: 2, mtu: 4096, rate: 100, packet_life: 16}\n"
                                  "    slow: {sl: 15, rate: 2.5, mtu: 256}\n"
                                  "  rules:\n"
                                  "    - {source: storage, level: bulk}\n"
                                  "    - {destination: storage, service_id: [\"0x1000-0x1fff\", 0x2000], pkey: [0x8001, store],\n"
                                  "       qos_class: [\"1-3\", 7], level: slow}\n"
                                  "    - {level: bulk}\n"
                                  "  sl2vl:\n"
                                  "    ca: [0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]\n"
                                  "    groups: {sw: [3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]}\n"
                                  "  vlarb:\n"
                                  "    ca: {high: [{vl: 1, weight: 32}], low: [{vl: 0, weight: 64}, {vl: 2, weight: 255}], high_limit: 4}\n"
                                  "    groups: {storage: {low: [{vl: 3, weight: 0}]}}\n"
                                  "security:\n"
                                  "  mkey: {mode: per-port, secret_file: /etc/ibsmd/mkey.secret, protect_bits: 2, lease_period_s: 0}\n",
                                  "t.yaml");
    const QosConfig& q = c.qos;
    CHECK(q.enabled);
    REQUIRE(q.port_groups.size() == 2);
    const QosPortGroup& g = q.port_groups[0];
    CHECK(g.name == "storage");
    CHECK(g.node_desc == std::vector<std::string>{"stor*", "nas?"});
    CHECK(g.port_guids == std::vector<Guid>{Guid(0x21)});
    CHECK(g.node_guids == std::vector<Guid>{Guid(0x10)});
    CHECK(g.partitions == std::vector<std::uint16_t>{0x0001, 0x0005}); // membership bit dropped, name resolved
    CHECK(g.all_cas);
    CHECK_FALSE(g.all_switches);
    CHECK(q.port_groups[1].all_switches);

    REQUIRE(q.levels.size() == 2);
    CHECK(q.levels[0] == QosLevel{"bulk", 2, 5, 16, 16}); // 4096 -> code 5, 100 Gb/s -> code 16
    CHECK(q.levels[1] == QosLevel{"slow", 15, 1, 2, std::nullopt});

    REQUIRE(q.rules.size() == 3);
    CHECK(q.rules[0].source == "storage");
    CHECK_FALSE(q.rules[0].destination);
    CHECK(q.rules[0].line == 13);
    const QosRule& r = q.rules[1];
    CHECK(r.destination == "storage");
    CHECK(r.service_ids ==
          std::vector<QosRange<std::uint64_t>>{QosRange<std::uint64_t>{0x1000, 0x1fff}, QosRange<std::uint64_t>{0x2000, 0x2000}});
    CHECK(r.pkeys == std::vector<std::uint16_t>{0x0001, 0x0005});
    CHECK(r.qos_classes ==
          std::vector<QosRange<std::uint16_t>>{QosRange<std::uint16_t>{1, 3}, QosRange<std::uint16_t>{7, 7}});
    CHECK(r.level == "slow");
    CHECK(r.line == 14);
    CHECK(q.rules[2] == QosRule{{}, {}, {}, std::nullopt, std::nullopt, "bulk", 16}); // no selector: matches all

    REQUIRE(q.sl2vl_ca);
    CHECK((*q.sl2vl_ca)[3] == 3);
    CHECK((*q.sl2vl_ca)[15] == 3);
    CHECK_FALSE(q.sl2vl_switch);
    CHECK_FALSE(q.sl2vl_switch_port0);
    REQUIRE(q.sl2vl_groups.size() == 1);
    CHECK(q.sl2vl_groups[0].first == "sw");
    REQUIRE(q.vlarb_ca);
    CHECK(q.vlarb_ca->high == std::vector<QosVlArbEntry>{{1, 32}});
    CHECK(q.vlarb_ca->low == std::vector<QosVlArbEntry>{{0, 64}, {2, 255}});
    CHECK(q.vlarb_ca->high_limit == 4);
    CHECK_FALSE(q.vlarb_switch);
    REQUIRE(q.vlarb_groups.size() == 1);
    CHECK(q.vlarb_groups[0] == std::pair<std::string, QosVlArb>{"storage", QosVlArb{{}, {{3, 0}}, 0}});

    CHECK(c.security.mkey == MkeyConfig{MkeyMode::per_port, "/etc/ibsmd/mkey.secret", 2, 0});

    SECTION("--print-config writes it back to the same values")
    {
        const std::string text = describe(c);
        INFO(text);
        Config again = parse_config(text, "printed.yaml");
        // Lines are where each rule was in its file, not part of the policy.
        for (auto& rule : again.qos.rules) rule.line = 0;
        Config original = c;
        for (auto& rule : original.qos.rules) rule.line = 0;
        CHECK(again == original);
    }
}

TEST_CASE("qos: an empty or absent section is no policy", "[config][qos]")
{
    CHECK_FALSE(parse_config("qos: {}\n", "t.yaml").qos.enabled);
    CHECK_FALSE(parse_config("qos:\n", "t.yaml").qos.enabled);
    CHECK(parse_config("qos:\n", "t.yaml") == Config{});
    CHECK(parse_config("qos: {levels: {a: {sl: 1}}}\n", "t.yaml").qos.enabled);
    CHECK(parse_config("security:\n", "t.yaml") == Config{});
}

TEST_CASE("qos: every mistake is named with file, line and key", "[config][qos]")
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {"qos: {port_group: {}}\n",
         "t.yaml:1: key 'qos.port_group': unknown key (did you mean 'qos.port_groups'?)"},
        {"qos:\n  port_groups:\n    a: {node_descr: [x]}\n",
         "t.yaml:3: key 'qos.port_groups.a.node_descr': unknown key (did you mean 'qos.port_groups.a.node_desc'?)"},
        {"qos:\n  port_groups:\n    a: {all_cas: false}\n",
         "t.yaml:3: key 'qos.port_groups.a': group 'a' selects no port (give node_desc, port_guids, node_guids, "
         "partitions, all_cas or all_switches)"},
        {"qos:\n  port_groups:\n    a: {all_cas: true}\n    a: {all_switches: true}\n",
         "t.yaml:4: key 'qos.port_groups.a': defined twice (first on line 3)"},
        {"qos:\n  port_groups:\n    a: {port_guids: [0x1, 0x1]}\n",
         "t.yaml:3: key 'qos.port_groups.a.port_guids': 0x0000000000000001 is listed twice"},
        {"qos:\n  port_groups:\n    a: {partitions: [nope]}\n",
         "t.yaml:3: key 'qos.port_groups.a.partitions': 'nope' is neither a P_Key nor a partition of 'partitions' "
         "(none defined)"},
        {"qos:\n  port_groups:\n    a: {partitions: [0x8000]}\n",
         "t.yaml:3: key 'qos.port_groups.a.partitions': P_Key 0x0000/0x8000 is not a partition"},
        {groups + "    fast: {mtu: 4096}\n", "t.yaml:6: key 'qos.levels.fast': level 'fast' needs an sl (0..15)"},
        {groups + "    fast: {sl: 16}\n", "t.yaml:6: key 'qos.levels.fast.sl': expected an integer in 0..15, got '16'"},
        {groups + "    fast: {sl: 1, mtu: 300}\n",
         "t.yaml:6: key 'qos.levels.fast.mtu': expected an MTU in bytes: 256, 512, 1024, 2048 or 4096, got '300'"},
        {groups + "    fast: {sl: 1, rate: 33}\n",
         "t.yaml:6: key 'qos.levels.fast.rate': expected an IBA rate in Gb/s (2.5, 5, 10, 14, 20, 25, 28, 30, 40, "
         "50, 56, 60, 80, 100, 112, 120, 168, 200, 300, 400, 600, 800, 1200, 1600), got '33'"},
        {groups + "    fast: {sl: 1, packet_life: 64}\n",
         "t.yaml:6: key 'qos.levels.fast.packet_life': expected an integer in 0..63, got '64'"},
        {groups + "  rules:\n    - {source: storage}\n",
         "t.yaml:7: key 'qos.rules[0]': a rule needs a level (one of: bulk)"},
        {groups + "  rules:\n    - {source: storage, level: bluk}\n",
         "t.yaml:7: key 'qos.rules[0].level': unknown level 'bluk' (defined: bulk)"},
        {groups + "  rules:\n    - {level: bulk}\n    - {destination: stor, level: bulk}\n",
         "t.yaml:8: key 'qos.rules[1].destination': unknown port group 'stor' (defined: storage)"},
        {groups + "  rules:\n    - {sorce: storage, level: bulk}\n",
         "t.yaml:7: key 'qos.rules[0].sorce': unknown key (did you mean 'qos.rules[0].source'?)"},
        {groups + "  rules:\n    - {service_id: [\"0x2000-0x1000\"], level: bulk}\n",
         "t.yaml:7: key 'qos.rules[0].service_id': range '0x2000-0x1000' is empty: its first value is above its last"},
        {groups + "  rules:\n    - {service_id: [\"0x10-x\"], level: bulk}\n",
         "t.yaml:7: key 'qos.rules[0].service_id': expected a service ID or a range FIRST-LAST, got the quoted "
         "string \"0x10-x\""},
        {groups + "  rules:\n    - {qos_class: [\"1-4096\"], level: bulk}\n",
         "t.yaml:7: key 'qos.rules[0].qos_class': '1-4096' is outside 0..4095"},
        {groups + "  rules:\n    - {pkey: [], level: bulk}\n",
         "t.yaml:7: key 'qos.rules[0].pkey': an empty list matches nothing; leave the key out to match any P_Key"},
        {groups + "  sl2vl:\n    ca: [0, 1]\n",
         "t.yaml:7: key 'qos.sl2vl.ca': expected a list of 16 VLs (the VL of SL 0..15), got a list of 2"},
        {groups + "  sl2vl:\n    ca: [0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0]\n",
         "t.yaml:7: key 'qos.sl2vl.ca': VL 8 is not below routing.max_vls (8): ports are given only VLs 0..7"},
        {"routing: {max_vls: 15}\n" + groups + "  sl2vl:\n    switch: [0, 1, 2, 3, 4, 5, 6, 7, 8, 15, 0, 0, 0, 0, 0, 0]\n",
         "t.yaml:8: key 'qos.sl2vl.switch': expected an integer in 0..14, got '15'"},
        {groups + "  sl2vl:\n    groups: {nobody: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}\n",
         "t.yaml:7: key 'qos.sl2vl.groups.nobody': unknown port group 'nobody' (defined: storage)"},
        {groups + "  vlarb:\n    groups: {nobody: {high_limit: 1}}\n",
         "t.yaml:7: key 'qos.vlarb.groups.nobody': unknown port group 'nobody' (defined: storage)"},
        {groups + "  vlarb:\n    ca: {low: [{vl: 1, weight: 256}]}\n",
         "t.yaml:7: key 'qos.vlarb.ca.low[0].weight': expected an integer in 0..255, got '256'"},
        {groups + "  vlarb:\n    ca: {low: [{vl: 9, weight: 1}]}\n",
         "t.yaml:7: key 'qos.vlarb.ca.low[0].vl': VL 9 is not below routing.max_vls (8): ports are given only VLs 0..7"},
        {groups + "  vlarb:\n    switch: {high: [{vl: 1}]}\n",
         "t.yaml:7: key 'qos.vlarb.switch.high[0]': an entry needs both vl and weight"},
        {groups + "  vlarb:\n    switch: {high_limit: 256}\n",
         "t.yaml:7: key 'qos.vlarb.switch.high_limit': expected an integer in 0..255, got '256'"},
        {"security:\n  mkey: {mode: per-port}\n",
         "t.yaml:2: key 'security.mkey.mode': per-port needs 'security.mkey.secret_file' (a file only root can read "
         "that holds the secret; the YAML never holds it)"},
        {"security:\n  mkey: {mode: fixed}\n",
         "t.yaml:2: key 'security.mkey.mode': fixed needs 'security.mkey.secret_file' (a file only root can read that "
         "holds the key; the YAML never holds it)"},
        {"security:\n  mkey: {mode: on}\n",
         "t.yaml:2: key 'security.mkey.mode': expected off, per-port or fixed, got 'on'"},
        {"security:\n  mkey: {mode: fixed, secret_file: mkey.key}\n",
         "t.yaml:2: key 'security.mkey.secret_file': expected an absolute path, got 'mkey.key'"},
        {"security:\n  mkey: {protect_bits: 4}\n",
         "t.yaml:2: key 'security.mkey.protect_bits': expected an integer in 0..3, got '4'"},
        {"security:\n  mkey: {lease_period_s: 65536}\n",
         "t.yaml:2: key 'security.mkey.lease_period_s': expected an integer in 0..65535, got '65536'"},
        {"security:\n  mkey: {secret: abc}\n",
         "t.yaml:2: key 'security.mkey.secret': unknown key (known keys under 'security.mkey': mode, secret_file, "
         "protect_bits, lease_period_s)"},
        {"security:\n  m_key: {}\n", "t.yaml:2: key 'security.m_key': unknown key (did you mean 'security.mkey'?)"},
    };
    for (const auto& [yaml, message] : cases) {
        INFO(yaml);
        CHECK(parse_error(yaml) == message);
    }
}

TEST_CASE("qos: at most 64 groups and 64 VLArb entries", "[config][qos]")
{
    std::string yaml = "qos:\n  port_groups:\n";
    for (int i = 0; i < 64; ++i) yaml += "    g" + std::to_string(i) + ": {all_cas: true}\n";
    CHECK(parse_config(yaml, "t.yaml").qos.port_groups.size() == 64);
    CHECK(parse_error(yaml + "    g64: {all_cas: true}\n") == "t.yaml:67: key 'qos.port_groups.g64': more than 64 port groups");

    auto table = [](int entries) {
        std::string t = "qos:\n  vlarb:\n    ca:\n      low: [";
        for (int i = 0; i < entries; ++i) t += std::string(i ? ", " : "") + "{vl: 0, weight: 1}";
        return t + "]\n";
    };
    CHECK(parse_config(table(64), "t.yaml").qos.vlarb_ca->low.size() == 64);
    CHECK(parse_error(table(65)) == "t.yaml:4: key 'qos.vlarb.ca.low': 65 entries; a VLArb table holds at most 64");
}
