// The `partitions:` list, partitions_file, part_enforce, allow_both_pkeys:
// values, and every error with its line and key.
#include "config/config.h"
#include "config/describe.h"
#include "config/reload.h"
#include "partition/conf_parse.h"

#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;
using partition::MemberRule;
using partition::Membership;
using partition::Who;

TEST_CASE("partitions parse to names, P_Keys, members, flags and groups", "[config][partitions]")
{
    const Config c = parse_config("partitions:\n"
                                  "  - name: storage\n"
                                  "    pkey: 0x0001\n"
                                  "    full: [0x10, 0x11]\n"
                                  "    limited:\n"
                                  "      - 0x12\n"
                                  "  - name: mgmt\n"
                                  "    pkey: 0x7ffe\n"
                                  "    ipoib: false\n"
                                  "    limited: [0x10]\n"
                                  "  - name: ipoib5\n"
                                  "    mtu: 5\n"
                                  "    rate: 7\n"
                                  "    scope: [2, 5]\n"
                                  "    indx0: true\n"
                                  "    defmember: full\n"
                                  "    members: [0x20, SELF]\n"
                                  "    limited: [ALL_CAS]\n"
                                  "    both: [0x21]\n"
                                  "    groups:\n"
                                  "      - {mgid: 'ff12:401b::16', sl: 1}\n"
                                  "      - {mgid: 'ff12::1', qkey: 0xdeadbeef, mtu: 2}\n"
                                  "  - {name: Default, pkey: 0x7fff, ipoib: false, full: [ALL]}\n",
                                  "t.yaml");
    REQUIRE(c.partitions.size() == 4);
    CHECK(c.partitions[0].name == "storage");
    CHECK(c.partitions[0].pkey == 0x0001);
    CHECK(c.partitions[0].ipoib);
    CHECK(c.partitions[0].members == std::vector<MemberRule>{{Who::port, Guid(0x10), Membership::full},
                                                             {Who::port, Guid(0x11), Membership::full},
                                                             {Who::port, Guid(0x12), Membership::limited}});
    CHECK_FALSE(c.partitions[1].ipoib);
    // A generated P_Key, as OpenSM gives one: the first free number.
    const auto& p = c.partitions[2];
    CHECK(p.pkey == 0x0002);
    CHECK(p.flags.mtu == 5);
    CHECK(p.flags.rate == 7);
    CHECK(p.flags.scope_mask == ((1u << 2) | (1u << 5)));
    CHECK(p.indx0);
    // Broader specifiers first, whatever the order of the keys.
    CHECK(p.members == std::vector<MemberRule>{{Who::all_cas, Guid(), Membership::limited},
                                               {Who::port, Guid(0x20), Membership::full},
                                               {Who::self, Guid(), Membership::full},
                                               {Who::port, Guid(0x21), Membership::both}});
    REQUIRE(p.groups.size() == 2);
    CHECK(p.groups[0].flags.sl == 1);
    CHECK(p.groups[0].flags.qkey == 0x0b1b);
    CHECK(p.groups[1].flags.qkey == 0xdeadbeef);
    CHECK(c.partitions[3].pkey == 0x7fff);
    // --print-config output reads back to the same partitions.
    CHECK(parse_config(describe(c), "described.yaml").partitions == c.partitions);
    CHECK(parse_config("partitions: []\n", "t.yaml").partitions.empty());
    CHECK(parse_config("partitions:\n", "t.yaml").partitions.empty());
}

TEST_CASE("a partitions.conf statement and its --print-config entries mean the same", "[config][partitions]")
{
    // Order matters in a statement: the later specifier wins. The YAML
    // entries describe() writes keep that meaning (runs of one P_Key).
    auto r = partition::parse_partitions_conf("P=0x0003,ipoib,rate=7 : 0x10=full, ALL=limited, 0x10=both ;", "p.conf");
    REQUIRE(r.ok());
    Config c;
    c.partitions = r.rules;
    c.partitions_file = "p.conf";
    const auto back = parse_config(describe(c), "described.yaml");
    REQUIRE(back.partitions.size() == 2);
    std::vector<MemberRule> flat;
    for (const auto& p : back.partitions) flat.insert(flat.end(), p.members.begin(), p.members.end());
    CHECK(flat == r.rules[0].members);
    CHECK(back.partitions[0].ipoib);
    CHECK(back.partitions[0].flags.rate == 7);
    CHECK_FALSE(back.partitions[1].ipoib);
    CHECK(back.partitions[1].pkey == 0x0003);
}

TEST_CASE("partitions_file, part_enforce, allow_both_pkeys", "[config][partitions]")
{
    const Config c = parse_config("partitions_file: /etc/opensm/partitions.conf\npart_enforce: in\n"
                                  "allow_both_pkeys: true\n",
                                  "t.yaml");
    CHECK(c.partitions_file == "/etc/opensm/partitions.conf");
    CHECK(c.part_enforce == PartEnforce::in);
    CHECK(c.allow_both_pkeys);
    CHECK(parse_config(describe(c), "d.yaml") == c);
    CHECK(parse_error("partitions:\n  - {pkey: 1, full: [ALL]}\npartitions_file: /p.conf\n") ==
          "t.yaml:3: key 'partitions_file': give the partitions either in 'partitions' or in a partitions_file, not "
          "in both (the file's statements may be written as 'partitions' entries)");
    CHECK(parse_error("part_enforce: sometimes\n") ==
          "t.yaml:1: key 'part_enforce': expected both, in, out or off, got 'sometimes'");
}

TEST_CASE("partition errors name file, line and key", "[config][partitions][errors]")
{
    CHECK(parse_error("partitions: storage\n") ==
          "t.yaml:1: key 'partitions': expected a list of partitions (name, pkey, full, limited, ...), got 'storage'");
    CHECK(parse_error("partitions:\n  - 0x1\n") ==
          "t.yaml:2: key 'partitions[0]': expected a mapping with name, pkey, full and/or limited, got '0x1'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 0x8001\n    full: [0x10]\n") ==
          "t.yaml:3: key 'partitions[0].pkey': give the partition number without the membership bit (0x0001); "
          "membership is set per port with full:, limited: and both:");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 0\n    full: [0x10]\n") ==
          "t.yaml:3: key 'partitions[0].pkey': expected an integer in 1..65535, got '0'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x10]\n    limited:\n      - 0x10\n") ==
          "t.yaml:6: key 'partitions[0].limited': port 0x0000000000000010 is listed twice in partition 'a' (first "
          "on line 4)");
    CHECK(parse_error("partitions:\n  - name: a\n    full: [ALL]\n    limited: [ALL]\n") ==
          "t.yaml:4: key 'partitions[0].limited': ALL is listed twice in partition 'a' (first on line 3)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x0]\n") ==
          "t.yaml:4: key 'partitions[0].full': GUID 0 is not a port GUID");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: 0x10\n") ==
          "t.yaml:4: key 'partitions[0].full': expected a list of port GUIDs or ALL, ALL_CAS, ALL_SWITCHES, "
          "ALL_ROUTERS, SELF, got '0x10'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [all]\n") ==
          "t.yaml:4: key 'partitions[0].full': expected a port GUID or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF "
          "(0x followed by up to 16 hex digits, or a decimal integer), got 'all'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    ful: [0x10]\n") ==
          "t.yaml:4: key 'partitions[0].ful': unknown key (did you mean 'partitions[0].full'?)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    ipoib: yes\n    full: [0x10]\n") ==
          "t.yaml:4: key 'partitions[0].ipoib': expected true or false, got 'yes'");
    CHECK(parse_error("partitions:\n  - name: a\n    defmember: most\n") ==
          "t.yaml:3: key 'partitions[0].defmember': expected full, limited or both, got 'most'");
    CHECK(parse_error("partitions:\n  - name: a\n    mtu: 6\n") ==
          "t.yaml:3: key 'partitions[0].mtu': expected an integer in 1..5, got '6'");
    CHECK(parse_error("partitions:\n  - name: a\n    groups:\n      - {mgid: 'fe80::1'}\n") ==
          "t.yaml:4: key 'partitions[0].groups[0].mgid': 'fe80::1' is not a multicast GID (ff..:...)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 2\n    groups:\n      - {mgid: 'ff12:401b:8001::1'}\n") ==
          "t.yaml:5: key 'partitions[0].groups[0].mgid': IP group ff12:401b:8001::1 carries P_Key 0x8001, not its "
          "partition's 0x8002 (write 0 there to have it filled in)");
    CHECK(parse_error("partitions:\n  - name: a\n    rate: 7\n    groups:\n      - {mgid: 'ff12:401b::1', rate: 3}\n") ==
          "t.yaml:5: key 'partitions[0].groups[0]': IP group ff12:401b::1 must have its partition's broadcast group "
          "rate 7 and mtu 4 (has rate 3, mtu 4)");
}

TEST_CASE("partitions reload", "[config][partitions]")
{
    Config a;
    Config b;
    b.partitions.push_back(PartitionConfig{"s", 1, true, {}, false, {{Who::port, Guid(0x10), Membership::full}}, {}, 2});
    b.partitions_file = "";
    b.part_enforce = PartEnforce::off;
    b.allow_both_pkeys = true;
    std::vector<std::string> why;
    CHECK(reload_compatible(a, b, &why));
    CHECK(why.empty());
    CHECK(is_reloadable_key("partitions"));
    CHECK(is_reloadable_key("partitions_file"));
}
