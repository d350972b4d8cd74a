// OpenSM's partitions.conf: every example of `man opensm` ("PARTITION
// CONFIGURATION") read and resolved against a small fabric, checking the
// P_Key table each port gets; the grammar's corners; the error texts.
#include "partition/conf_parse.h"
#include "partition/partitions.h"
#include "partition/pkey_indexes.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::partition;

namespace {

constexpr Guid sm{0x1};
constexpr Guid sw{0x5000}; // a switch's port 0
constexpr Guid router{0x6000};

std::vector<EndPort> fabric()
{
    std::vector<EndPort> p{{sm, PortKind::ca}, {sw, PortKind::switch_node}, {router, PortKind::router}};
    for (std::uint64_t g : {0x123451ull, 0x123452ull, 0x123453ull, 0x123454ull, 0x123455ull, 0x123456ull, 0x123457ull,
                            0x123458ull, 0x123459ull, 0x12345aull, 0x12345bull, 0x12345cull, 0x12345dull,
                            0x3456789034ull, 0x2134af2306ull, 0x777ull})
        p.push_back({Guid(g), PortKind::ca});
    return p;
}

Partitions resolve(const std::string& text, bool allow_both = false)
{
    auto r = parse_partitions_conf(text, "partitions.conf");
    INFO((r.errors.empty() ? std::string() : r.errors.front()));
    REQUIRE(r.ok());
    const auto ports = fabric();
    return Partitions(effective_rules(r.rules, true), ports, Settings{sm, allow_both});
}

// The table a fresh port gets (index order), trailing empty entries cut.
std::vector<std::uint16_t> table(const Partitions& p, Guid port)
{
    IndexBook book(p.settings().allow_both_pkeys);
    auto t = book.place(port, 1, p.keys_of(port), p.index0_key(port), 64).entries;
    while (!t.empty() && t.back() == 0) t.pop_back();
    return t;
}

using Keys = std::vector<std::uint16_t>;

std::string first_error(const std::string& text)
{
    auto r = parse_partitions_conf(text, "p.conf");
    REQUIRE_FALSE(r.ok());
    return r.errors.front();
}

} // namespace

TEST_CASE("man opensm: Default=0x7fff : ALL, SELF=full")
{
    const auto p = resolve("Default=0x7fff : ALL, SELF=full ;\n");
    CHECK(table(p, sm) == Keys{0xffff});
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff});
    CHECK(table(p, sw) == Keys{0x7fff});
    CHECK(table(p, router) == Keys{0x7fff});
    REQUIRE(p.partitions().size() == 1);
    CHECK(p.partitions()[0].groups.empty()); // no ipoib: no broadcast group
}

TEST_CASE("man opensm: Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full")
{
    const auto p = resolve("Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;");
    CHECK(table(p, sm) == Keys{0xffff});
    CHECK(table(p, sw) == Keys{0xffff});
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff});
    CHECK(table(p, router) == Keys{0x7fff});
}

TEST_CASE("man opensm: NewPartition , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306")
{
    const auto p = resolve("NewPartition , ipoib : 0x123456=full, 0x3456789034=limi,  0x2134af2306 ;\n");
    // No Default rule: every port a limited member of 0x7fff, the SM full;
    // the P_Key is generated: 0x0001.
    CHECK(table(p, Guid(0x123456)) == Keys{0x7fff, 0x8001});
    CHECK(table(p, Guid(0x3456789034)) == Keys{0x7fff, 0x0001});
    CHECK(table(p, Guid(0x2134af2306)) == Keys{0x7fff, 0x0001});
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff});
    CHECK(table(p, sm) == Keys{0xffff});
    const auto* np = p.find(0x0001);
    REQUIRE(np);
    CHECK(np->name == "NewPartition");
    CHECK(np->full == 1);
    CHECK(np->limited == 2);
    REQUIRE(np->groups.size() == 1);
    CHECK(np->groups[0].mgid.str() == "ff12:401b:8001:0000:0000:0000:ffff:ffff");
    CHECK(np->groups[0].flags.mtu == 4);
    CHECK(np->groups[0].flags.rate == 3);
    CHECK(np->groups[0].flags.qkey == 0x0b1b);
}

TEST_CASE("man opensm: YetAnotherOne, two statements of 0x300: the last naming a port decides")
{
    const auto p = resolve("YetAnotherOne = 0x300 : SELF=full ;\nYetAnotherOne = 0x300 : ALL=limited ;\n");
    CHECK(table(p, sm) == Keys{0xffff, 0x0300});
    CHECK(table(p, Guid(0x777)) == Keys{0x7fff, 0x0300});
    CHECK(table(p, sw) == Keys{0x7fff, 0x0300});
    CHECK(p.partitions().size() == 2);
    // With allow_both_pkeys the same: ALL=limited takes the SM's full key away.
    CHECK(table(resolve("Y = 0x300 : SELF=full ;\nY = 0x300 : ALL=limited ;", true), sm) == Keys{0xffff, 0x0300});
}

TEST_CASE("man opensm: ShareIO = 0x80, five statements merged, defmember")
{
    const auto p = resolve("ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;\n"
                           "# 0x123453, 0x123454 will be limited\n"
                           "ShareIO = 0x80 : 0x123453, 0x123454, 0x123455=full;\n"
                           "ShareIO = 0x80 , defmember=full : 0x123459, 0x12345a;\n"
                           "ShareIO = 0x80 , defmember=full : 0x12345b, 0x12345c=limited, 0x12345d;\n");
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x123452)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x123453)) == Keys{0x7fff, 0x0080});
    CHECK(table(p, Guid(0x123454)) == Keys{0x7fff, 0x0080});
    CHECK(table(p, Guid(0x123455)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x123459)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x12345a)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x12345b)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x12345c)) == Keys{0x7fff, 0x0080});
    CHECK(table(p, Guid(0x12345d)) == Keys{0x7fff, 0x8080});
    CHECK(table(p, Guid(0x123456)) == Keys{0x7fff});
    REQUIRE(p.find(0x80));
    CHECK(p.find(0x80)->full == 7);
    CHECK(p.find(0x80)->limited == 3);
}

TEST_CASE("man opensm: the man page's 'ShareIO = 0x80 : defmember=limited : ...' is refused, as OpenSM does")
{
    CHECK(first_error("ShareIO = 0x80 , defmember=full : 0x123451;\n"
                      "ShareIO\t  =   0x80   :\t defmember=limited   :\t 0x123456,   0x123457,\n"
                      "0x123458=full;\n") ==
          "p.conf:2: 'defmember' is not a port: partition flags go before the ':'");
}

TEST_CASE("man opensm: multicast groups added to Default, with their flags")
{
    const auto p = resolve("# multicast groups added to default\n"
                           "Default=0x7fff,ipoib:\n"
                           "       mgid=ff12:401b::0707,sl=1 # random IPv4 group\n"
                           "       mgid=ff12:601b::16    # MLDv2-capable routers\n"
                           "       mgid=ff12:401b::16    # IGMP\n"
                           "       mgid=ff12:601b::2     # All routers\n"
                           "       mgid=ff12::1,sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2 # random group\n"
                           "       ALL=full;\n");
    for (auto g : {sm, sw, router, Guid(0x777)}) CHECK(table(p, g) == Keys{0xffff});
    const auto* d = p.find(0x7fff);
    REQUIRE(d);
    REQUIRE(d->groups.size() == 6);
    CHECK(d->groups[0].broadcast);
    CHECK(d->groups[0].mgid.str() == "ff12:401b:ffff:0000:0000:0000:ffff:ffff");
    CHECK(d->groups[1].mgid.str() == "ff12:401b:ffff:0000:0000:0000:0000:0707");
    CHECK(d->groups[1].flags.sl == 1);
    CHECK(d->groups[1].flags.qkey == 0x0b1b);
    CHECK(d->groups[2].mgid.str() == "ff12:601b:ffff:0000:0000:0000:0000:0016");
    CHECK(d->groups[3].mgid.str() == "ff12:401b:ffff:0000:0000:0000:0000:0016");
    CHECK(d->groups[4].mgid.str() == "ff12:601b:ffff:0000:0000:0000:0000:0002");
    CHECK(d->groups[5].mgid.str() == "ff12:0000:0000:0000:0000:0000:0000:0001");
    CHECK(d->groups[5].flags.qkey == 0xdeadbeef);
    CHECK(d->groups[5].flags.mtu == 2);
    CHECK(d->groups[5].flags.sl == 1);
    CHECK(d->groups[5].pkey == 0xffff);
}

TEST_CASE("man opensm: Default=0x7fff,ipoib:ALL=full, as OpenSM ran before the partition manager")
{
    const auto p = resolve("Default=0x7fff,ipoib:ALL=full;");
    CHECK(table(p, Guid(0x123451)) == Keys{0xffff});
    REQUIRE(p.find(0x7fff));
    CHECK(p.find(0x7fff)->groups.size() == 1);
    // No file at all: the same, the broadcast group included.
    const auto none = Partitions(effective_rules({}, false), fabric(), Settings{sm, false});
    CHECK(table(none, Guid(0x123451)) == Keys{0xffff});
    CHECK(none.find(0x7fff)->groups == p.find(0x7fff)->groups);
}

TEST_CASE("partitions.conf: ipoib group flags, scopes, indx0, both, ALL_CAS=limi, empty lists, prefixes")
{
    const auto p = resolve("Storage=0x0005, ipoib, mtu=5, rate=7, sl=3, scope=2, scope=5, Q_Key=0x11, TClass=4, "
                           "FlowLabel=0x123 :\n"
                           "    ALL_CAS=limi, 0x123451=full;\n"
                           "Admin=0x0006, indx0 : 0x123452=full ;\n"
                           "Both=0x0007, def=both : 0x123453, 0x123454=lim ;\n"
                           "Empty=0x0008 : ;\n"
                           "Nobody=0x0009 : NONE ;\n"
                           "Routers=0x000a, i : ALL_R, ALL_SW=f;\n");
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff, 0x8005});
    CHECK(table(p, Guid(0x777)) == Keys{0x7fff, 0x0005});
    CHECK(table(p, sw) == Keys{0x7fff, 0x800a});
    CHECK(table(p, router) == Keys{0x7fff, 0x000a});
    // indx0: 0x8006 at index 0, the default partition after it.
    CHECK(table(p, Guid(0x123452)) == Keys{0x8006, 0x0005, 0x7fff});
    // both without allow_both_pkeys: full.
    CHECK(table(p, Guid(0x123453)) == Keys{0x7fff, 0x0005, 0x8007});
    CHECK(table(p, Guid(0x123454)) == Keys{0x7fff, 0x0005, 0x0007});
    CHECK_FALSE(p.find(0x0008)); // no members: no partition
    CHECK_FALSE(p.find(0x0009));
    const auto* s = p.find(0x0005);
    REQUIRE(s);
    REQUIRE(s->groups.size() == 2);
    CHECK(s->groups[0].mgid.str() == "ff12:401b:8005:0000:0000:0000:ffff:ffff");
    CHECK(s->groups[1].mgid.str() == "ff15:401b:8005:0000:0000:0000:ffff:ffff");
    CHECK(s->groups[0].flags.mtu == 5);
    CHECK(s->groups[0].flags.rate == 7);
    CHECK(s->groups[0].flags.sl == 3);
    CHECK(s->groups[0].flags.qkey == 0x11);
    CHECK(s->groups[0].flags.tclass == 4);
    CHECK(s->groups[0].flags.flow_label == 0x123);
    REQUIRE(p.find(0x000a));
    CHECK(p.find(0x000a)->ipoib);
    // allow_both_pkeys: both keys, the limited one first. OpenSM then keeps
    // index 0 for 0xffff alone: a limited member of 0x7fff gets it last, and
    // index 0 stays empty (read back from OpenSM 3.3 on ibsim).
    const auto b = resolve("Both=0x0007, defmember=both : 0x123453 ;", true);
    CHECK(table(b, Guid(0x123453)) == Keys{0x0000, 0x0007, 0x8007, 0x7fff});
    CHECK(table(b, sm) == Keys{0xffff});
}

TEST_CASE("partitions.conf: statements over lines, several on a line, generated and merged P_Keys")
{
    const auto p = resolve("A : 0x123451 ; B : 0x123452=full ; # two on one line\n"
                           "A : 0x123453,\n"
                           "    0x123454\n"
                           "  ;\n"
                           "0x0003 : 0x123455 ;\n"
                           "C = 0x0002 : 0x123456 ;\n"
                           "D : 0x123457 ;\n");
    // A=0x0001, B=0x0002 generated; A again merges by name; C names 0x0002 (B's);
    // D gets the next free number, 0x0004 (0x0003 is taken).
    CHECK(table(p, Guid(0x123451)) == Keys{0x7fff, 0x0001});
    CHECK(table(p, Guid(0x123453)) == Keys{0x7fff, 0x0001});
    CHECK(table(p, Guid(0x123454)) == Keys{0x7fff, 0x0001});
    CHECK(table(p, Guid(0x123452)) == Keys{0x7fff, 0x8002});
    CHECK(table(p, Guid(0x123456)) == Keys{0x7fff, 0x0002});
    CHECK(table(p, Guid(0x123455)) == Keys{0x7fff, 0x0003});
    CHECK(table(p, Guid(0x123457)) == Keys{0x7fff, 0x0004});
    CHECK(p.find(0x0002)->name == "B");
    CHECK(p.find(0x0003)->name == "0003");
}

TEST_CASE("partitions.conf: a port's keys come in OpenSM's order")
{
    // OpenSM's maps sort network-order P_Keys (bytes swapped on its hosts):
    // 0x0100, 0x0200, 0x0001, 0x7fff.
    const auto p = resolve("X=0x0001 : 0x777 ; Y=0x0200 : 0x777 ; Z=0x0100 : 0x777 ;");
    CHECK(p.keys_of(Guid(0x777)) == Keys{0x0100, 0x0200, 0x0001, 0x7fff});
    CHECK(table(p, Guid(0x777)) == Keys{0x7fff, 0x0100, 0x0200, 0x0001});
}

TEST_CASE("partitions.conf: errors name file and line; warnings what OpenSM ignores")
{
    CHECK(first_error("Default=0x7fff : ALL ;\nNoColon 0x1, 0x2;\n") ==
          "p.conf:2: no partition definition here: a statement is 'Name[=PKey][,flag...] : members ;' and its ':' "
          "must be on its first line");
    CHECK(first_error("P=0x1x : ALL;") == "p.conf:1: '0x1x' is not a P_Key (a number such as 0x8001) of partition 'P'");
    CHECK(first_error("# c\n\nP=1 :\n  0x12, 0x12zz;") ==
          "p.conf:4: '0x12zz' is not a port GUID (a number such as 0x0002c90300001234) nor ALL, ALL_CAS, "
          "ALL_SWITCHES, ALL_ROUTERS or SELF");
    CHECK(first_error("P=1 : 0 ;") ==
          "p.conf:1: '0' is not a port GUID (a number such as 0x0002c90300001234) nor ALL, ALL_CAS, ALL_SWITCHES, "
          "ALL_ROUTERS or SELF");
    CHECK(first_error("P=1 :\n mgid=fe80::1\n;") == "p.conf:2: mgid 'fe80::1' is not a multicast GID (ff..:...)");
    CHECK(first_error("P=1 : ALL ;;") ==
          "p.conf:1: no partition definition here: a statement is 'Name[=PKey][,flag...] : members ;' and its ':' "
          "must be on its first line");

    auto r = parse_partitions_conf("P=1, ipoib, rate=7, mtu=5, bogus :\n"
                                   "  mgid=ff12:401b::1,rate=3\n"
                                   "  mgid=ff12:401b:8002::2\n"
                                   "  mgid=ff12:401b::3,sl=99,colour=red\n"
                                   "  0x10=maybe ;\n",
                                   "p.conf");
    REQUIRE(r.ok());
    CHECK(r.warnings == std::vector<std::string>{
                            "p.conf:1: unknown partition flag 'bogus' ignored",
                            "p.conf:2: IP group ff12:401b:0000:0000:0000:0000:0000:0001 has rate 3 and mtu 5, its "
                            "partition's broadcast group rate 7 and mtu 5; group not created",
                            "p.conf:3: IP group ff12:401b:8002:0000:0000:0000:0000:0002 has P_Key 0x8002, not its "
                            "partition's 0x8001; group not created",
                            "p.conf:4: 'sl' needs a value 0..15; skipped",
                            "p.conf:4: unknown group flag 'colour' ignored",
                            "p.conf:5: unknown membership 'maybe' of '0x10'; limited assumed",
                        });
    REQUIRE(r.rules.size() == 1);
    REQUIRE(r.rules[0].groups.size() == 1);
    CHECK(r.rules[0].groups[0].flags.rate == 7);
    CHECK(r.rules[0].members == std::vector<MemberRule>{{Who::port, Guid(0x10), Membership::limited}});
    // An empty file: no statement, still a file (ALL=limited in 0x7fff).
    CHECK(parse_partitions_conf("", "p.conf").ok());
    CHECK(parse_partitions_conf("# nothing\n\n", "p.conf").rules.empty());
}
