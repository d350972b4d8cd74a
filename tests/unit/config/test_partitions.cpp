// The `partitions:` list: values, and every error with its line and key.
#include "config/config.h"
#include "config/describe.h"
#include "config/reload.h"

#include "test_helpers.h"

using namespace ibsm;
using namespace ibsm::config;
using namespace config_test;

TEST_CASE("partitions parse to names, P_Keys and members", "[config][partitions]")
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
                                  "    limited: [0x10]\n",
                                  "t.yaml");
    REQUIRE(c.partitions.size() == 2);
    CHECK(c.partitions[0].name == "storage");
    CHECK(c.partitions[0].pkey == 0x0001);
    CHECK(c.partitions[0].ipoib);
    CHECK(c.partitions[0].members ==
          std::vector<PartitionMember>{{Guid(0x10), Membership::full},
                                       {Guid(0x11), Membership::full},
                                       {Guid(0x12), Membership::limited}});
    CHECK_FALSE(c.partitions[1].ipoib);
    CHECK(c.partitions[1].members == std::vector<PartitionMember>{{Guid(0x10), Membership::limited}});
    // --print-config output reads back to the same partitions.
    CHECK(parse_config(describe(c), "described.yaml").partitions == c.partitions);
    CHECK(parse_config("partitions: []\n", "t.yaml").partitions.empty());
    CHECK(parse_config("partitions:\n", "t.yaml").partitions.empty());
}

TEST_CASE("partition errors name file, line and key", "[config][partitions][errors]")
{
    CHECK(parse_error("partitions: storage\n") ==
          "t.yaml:1: key 'partitions': expected a list of partitions (name, pkey, full, limited), got 'storage'");
    CHECK(parse_error("partitions:\n  - 0x1\n") ==
          "t.yaml:2: key 'partitions[0]': expected a mapping with name, pkey, full and/or limited, got '0x1'");
    CHECK(parse_error("partitions:\n  - pkey: 1\n    full: [0x10]\n") ==
          "t.yaml:2: key 'partitions[0]': a partition needs a name");
    CHECK(parse_error("partitions:\n  - name: a\n    full: [0x10]\n") ==
          "t.yaml:2: key 'partitions[0]': partition 'a' needs a pkey");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 0x8001\n    full: [0x10]\n") ==
          "t.yaml:3: key 'partitions[0].pkey': give the partition number without the membership bit (0x0001); "
          "membership is set per port with full: and limited:");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 0x7fff\n    full: [0x10]\n") ==
          "t.yaml:3: key 'partitions[0].pkey': 0x7fff is the default partition, which every port holds as a full "
          "member; choose 0x0001..0x7ffe");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 0\n    full: [0x10]\n") ==
          "t.yaml:3: key 'partitions[0].pkey': expected an integer in 1..65535, got '0'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x10]\n"
                      "  - name: a\n    pkey: 2\n    full: [0x10]\n") ==
          "t.yaml:5: key 'partitions[1].name': partition 'a' is defined twice (first on line 2)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x10]\n"
                      "  - name: b\n    pkey: 0x1\n    full: [0x10]\n") ==
          "t.yaml:6: key 'partitions[1].pkey': P_Key 0x0001 is already used by another partition (line 3)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x10]\n    limited:\n      - 0x10\n") ==
          "t.yaml:6: key 'partitions[0].limited': port 0x0000000000000010 is listed twice in partition 'a' (first "
          "on line 4)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [0x0]\n") ==
          "t.yaml:4: key 'partitions[0].full': GUID 0 is not a port GUID");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: 0x10\n") ==
          "t.yaml:4: key 'partitions[0].full': expected a list of port GUIDs, got '0x10'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    full: [zz]\n") ==
          "t.yaml:4: key 'partitions[0].full': expected a port GUID (0x followed by up to 16 hex digits, or a "
          "decimal integer), got 'zz'");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n") ==
          "t.yaml:2: key 'partitions[0]': partition 'a' has no members (give full: or limited:)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    ful: [0x10]\n") ==
          "t.yaml:4: key 'partitions[0].ful': unknown key (did you mean 'partitions[0].full'?)");
    CHECK(parse_error("partitions:\n  - name: a\n    pkey: 1\n    ipoib: yes\n    full: [0x10]\n") ==
          "t.yaml:4: key 'partitions[0].ipoib': expected true or false, got 'yes'");
}

TEST_CASE("partitions need a restart", "[config][partitions]")
{
    Config a;
    Config b;
    b.partitions.push_back(PartitionConfig{"s", 1, true, {{Guid(0x10), Membership::full}}});
    std::vector<std::string> why;
    CHECK_FALSE(reload_compatible(a, b, &why));
    REQUIRE(why.size() == 1);
    CHECK(why[0].starts_with("partitions: [] -> [s=0x0001,ipoib: 0x0000000000000010=full]"));
}
