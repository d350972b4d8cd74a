// qos::QosPolicy: group membership by every selector, first-match rule order,
// every rule selector, requests that leave values unsaid, unknown ports.
#include "qos/qos_policy.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::qos;
using config::QosConfig;
using config::QosLevel;
using config::QosPortGroup;
using config::QosRange;
using config::QosRule;

namespace {

PortFacts host(std::uint64_t port, std::uint64_t node, std::string desc, std::vector<std::uint16_t> pkeys = {})
{
    return PortFacts{Guid(port), Guid(node), std::move(desc), false, std::move(pkeys)};
}

PortFacts switch0(std::uint64_t guid, std::string desc)
{
    return PortFacts{Guid(guid), Guid(guid), std::move(desc), true, {0xffff}};
}

QosLevel level(std::string name, std::uint8_t sl) { return QosLevel{std::move(name), sl, {}, {}, {}}; }

QosRule rule(std::string level_name) { QosRule r; r.level = std::move(level_name); return r; }

const std::vector<PortFacts> fabric{
    host(0x11, 0x10, "stor01 HCA-1", {0xffff, 0x8001}),
    host(0x12, 0x10, "stor01 HCA-1", {0xffff}),        // same node, other port
    host(0x21, 0x20, "cn001 HCA-1", {0xffff, 0x0002}), // limited member of 2
    host(0x31, 0x30, "mgmt HCA-1", {0xffff}),
    switch0(0x41, "leaf01"),
};

} // namespace

TEST_CASE("glob_match: whole-string shell globs", "[qos][glob]")
{
    CHECK(glob_match("stor*", "stor01 HCA-1"));
    CHECK_FALSE(glob_match("stor*", "xstor01"));
    CHECK(glob_match("*HCA-1", "stor01 HCA-1"));
    CHECK(glob_match("*", ""));
    CHECK(glob_match("", ""));
    CHECK_FALSE(glob_match("", "a"));
    CHECK(glob_match("cn??? *", "cn001 HCA-1"));
    CHECK_FALSE(glob_match("cn??", "cn001"));
    CHECK(glob_match("cn[0-9][0-9][0-9]", "cn042"));
    CHECK_FALSE(glob_match("cn[0-9][0-9][0-9]", "cn04x"));
    CHECK(glob_match("[abc]x", "bx"));
    CHECK_FALSE(glob_match("[abc]x", "dx"));
    CHECK(glob_match("[!a]x", "bx"));
    CHECK_FALSE(glob_match("[!a]x", "ax"));
    CHECK(glob_match("[]]", "]"));          // ']' first is a member
    CHECK(glob_match("[a-]", "-"));         // '-' last is a member
    CHECK(glob_match("a[b", "a[b"));        // unclosed '[' is literal
    CHECK_FALSE(glob_match("a[b", "ab"));
    CHECK(glob_match("*a*b*c*", "xxaxxbxxcxx"));
    CHECK_FALSE(glob_match("*a*b*c*", "xxaxxcxxbxx"));
    CHECK(glob_match("a*b", "ab"));
    CHECK(glob_match("a*b", "aXbXb"));
    CHECK_FALSE(glob_match("a*b", "aXbX"));
    CHECK(glob_match("**", "abc"));
    CHECK_FALSE(glob_match("abc", "ABC")); // case matters, as in the shell
}

TEST_CASE("group membership by every selector", "[qos][groups]")
{
    QosConfig c;
    c.enabled = true;
    c.port_groups = {
        QosPortGroup{"by_port", {Guid(0x21)}, {}, {}, {}, false, false},
        QosPortGroup{"by_node", {}, {Guid(0x10)}, {}, {}, false, false},
        QosPortGroup{"by_desc", {}, {}, {"mgmt*", "leaf[0-9]*"}, {}, false, false},
        QosPortGroup{"by_partition", {}, {}, {}, {0x0001}, false, false},
        QosPortGroup{"by_partition_full_bit", {}, {}, {}, {0x8002}, false, false},
        QosPortGroup{"cas", {}, {}, {}, {}, true, false},
        QosPortGroup{"switches", {}, {}, {}, {}, false, true},
        QosPortGroup{"nobody", {Guid(0x999)}, {}, {"nothing*"}, {0x0077}, false, false},
    };
    const QosPolicy p(c, fabric);
    auto members = [&](const char* name) { return p.members(*p.group_index(name)); };
    CHECK(members("by_port") == std::vector<Guid>{Guid(0x21)});
    CHECK(members("by_node") == std::vector<Guid>{Guid(0x11), Guid(0x12)});
    CHECK(members("by_desc") == std::vector<Guid>{Guid(0x31), Guid(0x41)});
    // Membership bit ignored on both sides: 0x8001 held, 0x0001 asked.
    CHECK(members("by_partition") == std::vector<Guid>{Guid(0x11)});
    CHECK(members("by_partition_full_bit") == std::vector<Guid>{Guid(0x21)});
    CHECK(members("cas") == std::vector<Guid>{Guid(0x11), Guid(0x12), Guid(0x21), Guid(0x31)});
    CHECK(members("switches") == std::vector<Guid>{Guid(0x41)});
    CHECK(members("nobody").empty());
    CHECK_FALSE(p.group_index("missing"));

    // Masks: bit i is port_groups[i].
    CHECK(p.groups_of(Guid(0x11)) == ((1u << 1) | (1u << 3) | (1u << 5)));
    CHECK(p.groups_of(Guid(0x41)) == ((1u << 2) | (1u << 6)));
    CHECK(p.groups_of(Guid(0xdead)) == 0);
}

TEST_CASE("the first matching rule gives the level", "[qos][rules]")
{
    QosConfig c;
    c.enabled = true;
    c.port_groups = {QosPortGroup{"storage", {}, {}, {"stor*"}, {}, false, false},
                     QosPortGroup{"compute", {}, {}, {"cn*"}, {}, false, false}};
    c.levels = {level("bulk", 2), level("mpi", 4), level("rest", 6)};
    QosRule to_storage = rule("bulk");
    to_storage.destination = "storage";
    QosRule from_compute = rule("mpi");
    from_compute.source = "compute";
    c.rules = {to_storage, from_compute, rule("rest")};
    const QosPolicy p(c, fabric);
    REQUIRE_FALSE(p.empty());
    REQUIRE(p.levels().size() == 3);

    // compute -> storage: both of the first two match; the first wins.
    CHECK(p.match(Request{Guid(0x21), Guid(0x11), {}, {}, {}}) == 0u);
    CHECK(p.match(Request{Guid(0x21), Guid(0x31), {}, {}, {}}) == 1u);
    // The last rule has no selector: it matches everything else.
    CHECK(p.match(Request{Guid(0x31), Guid(0x21), {}, {}, {}}) == 2u);
    // Unknown ports are in no group, but still meet the catch-all.
    CHECK(p.match(Request{Guid(0xdead), Guid(0xbeef), {}, {}, {}}) == 2u);

    // Reversed order: the catch-all first shadows the rest.
    c.rules = {rule("rest"), to_storage};
    CHECK(QosPolicy(c, fabric).match(Request{Guid(0x21), Guid(0x11), {}, {}, {}}) == 2u);

    // Without a catch-all, unmatched traffic gets no level.
    c.rules = {to_storage};
    const QosPolicy only(c, fabric);
    CHECK_FALSE(only.match(Request{Guid(0x11), Guid(0x21), {}, {}, {}}));
    CHECK_FALSE(only.match(Request{Guid(0x21), Guid(0xdead), {}, {}, {}}));
}

TEST_CASE("every rule selector accepts and refuses", "[qos][rules]")
{
    QosConfig c;
    c.enabled = true;
    c.port_groups = {QosPortGroup{"storage", {Guid(0x11)}, {}, {}, {}, false, false}};
    c.levels = {level("l", 3)};
    const Request base{Guid(0x21), Guid(0x11), 0x1234, 0x8001, 5};

    SECTION("service ID ranges")
    {
        QosRule r = rule("l");
        r.service_ids = {QosRange<std::uint64_t>{0x1000, 0x1fff}, QosRange<std::uint64_t>{0x5000, 0x5000}};
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK(p.match(base) == 0u);
        Request q = base;
        q.service_id = 0x5000;
        CHECK(p.match(q) == 0u);
        q.service_id = 0x1fff;
        CHECK(p.match(q) == 0u);
        q.service_id = 0x2000;
        CHECK_FALSE(p.match(q));
        q.service_id = 0x0fff;
        CHECK_FALSE(p.match(q));
        q.service_id.reset(); // the request does not say
        CHECK_FALSE(p.match(q));
    }
    SECTION("P_Keys, membership bit ignored")
    {
        QosRule r = rule("l");
        r.pkeys = {0x0001};
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK(p.match(base) == 0u); // 0x8001 asked, 0x0001 listed
        Request q = base;
        q.pkey = 0x0001;
        CHECK(p.match(q) == 0u);
        q.pkey = 0x8002;
        CHECK_FALSE(p.match(q));
        q.pkey.reset();
        CHECK_FALSE(p.match(q));
    }
    SECTION("QoS class ranges")
    {
        QosRule r = rule("l");
        r.qos_classes = {QosRange<std::uint16_t>{1, 3}, QosRange<std::uint16_t>{5, 5}};
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK(p.match(base) == 0u);
        Request q = base;
        for (std::uint16_t cls : {1, 2, 3}) {
            q.qos_class = cls;
            CHECK(p.match(q) == 0u);
        }
        for (std::uint16_t cls : {0, 4, 6}) {
            q.qos_class = cls;
            CHECK_FALSE(p.match(q));
        }
        q.qos_class.reset();
        CHECK_FALSE(p.match(q));
    }
    SECTION("source group")
    {
        QosRule r = rule("l");
        r.source = "storage";
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK_FALSE(p.match(base));
        CHECK(p.match(Request{Guid(0x11), Guid(0x21), {}, {}, {}}) == 0u);
        CHECK_FALSE(p.match(Request{Guid(0xdead), Guid(0x11), {}, {}, {}}));
    }
    SECTION("destination group")
    {
        QosRule r = rule("l");
        r.destination = "storage";
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK(p.match(base) == 0u);
        CHECK_FALSE(p.match(Request{Guid(0x11), Guid(0x21), {}, {}, {}}));
        CHECK_FALSE(p.match(Request{Guid(0x11), Guid(0xdead), {}, {}, {}}));
    }
    SECTION("all selectors together: each one can refuse")
    {
        QosRule r = rule("l");
        r.service_ids = {QosRange<std::uint64_t>{0x1000, 0x1fff}};
        r.pkeys = {0x0001};
        r.qos_classes = {QosRange<std::uint16_t>{5, 5}};
        r.destination = "storage";
        c.rules = {r};
        const QosPolicy p(c, fabric);
        CHECK(p.match(base) == 0u);
        Request q = base;
        q.service_id = 0x2000;
        CHECK_FALSE(p.match(q));
        q = base;
        q.pkey = 0x0002;
        CHECK_FALSE(p.match(q));
        q = base;
        q.qos_class = 4;
        CHECK_FALSE(p.match(q));
        q = base;
        q.destination = Guid(0x31);
        CHECK_FALSE(p.match(q));
    }
}

TEST_CASE("no policy matches nothing", "[qos][rules]")
{
    const QosPolicy none;
    CHECK(none.empty());
    CHECK_FALSE(none.match(Request{Guid(0x11), Guid(0x21), {}, {}, {}}));
    CHECK(none.groups_of(Guid(0x11)) == 0);

    // Groups and levels but no rules: still no level for anyone.
    QosConfig c;
    c.enabled = true;
    c.port_groups = {QosPortGroup{"cas", {}, {}, {}, {}, true, false}};
    c.levels = {level("l", 1)};
    const QosPolicy p(c, fabric);
    CHECK(p.empty());
    CHECK_FALSE(p.match(Request{Guid(0x11), Guid(0x21), {}, {}, {}}));
    CHECK(p.groups_of(Guid(0x11)) == 1);
}

TEST_CASE("64 groups: the last one is bit 63", "[qos][groups]")
{
    QosConfig c;
    c.enabled = true;
    for (int i = 0; i < 64; ++i) c.port_groups.push_back(QosPortGroup{"g" + std::to_string(i), {}, {}, {}, {}, false, false});
    c.port_groups[63].port_guids = {Guid(0x31)};
    c.levels = {level("l", 7)};
    QosRule r = rule("l");
    r.source = "g63";
    c.rules = {r};
    const QosPolicy p(c, fabric);
    CHECK(p.groups_of(Guid(0x31)) == (std::uint64_t{1} << 63));
    CHECK(p.match(Request{Guid(0x31), Guid(0x11), {}, {}, {}}) == 0u);
    CHECK_FALSE(p.match(Request{Guid(0x11), Guid(0x31), {}, {}, {}}));
}
