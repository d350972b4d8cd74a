#include "daemon/control/dispatcher.h"
#include "daemon/control/feed_events.h"
#include "daemon/core/event_feed.h"

#include <catch2/catch.hpp>

#include <stdexcept>

using namespace ibsm;
using namespace ibsm::daemon::control;

namespace {

Request req(std::string_view line) { return std::get<Request>(parse_request(line)); }

health::PortHealth row(std::uint64_t guid, unsigned port)
{
    health::PortHealth r;
    r.id = {Guid(guid), PortNum(static_cast<std::uint8_t>(port))};
    r.node_desc = "node " + std::to_string(guid);
    return r;
}

} // namespace

TEST_CASE("the dispatcher maps each command to its handler and the result to the answer", "[control]")
{
    ControlHandlers h;
    std::vector<std::pair<health::PortId, std::string>> isolated;
    std::vector<bool> sweeps;
    h.status = [] { return nlohmann::json{{"state", "up"}}; };
    h.port_rows = [] { return std::vector<health::PortHealth>{row(3, 1), row(1, 2), row(2, 7)}; };
    h.port_json = [](const health::PortHealth& r) { return nlohmann::json{{"guid", r.id.node.str()}}; };
    h.isolate = [&](health::PortId id, const std::string& why) {
        isolated.emplace_back(id, why);
        return id.port == PortNum(1) ? PortActionResult{true, "isolated"}
                                     : PortActionResult{false, "the link is the only path to node x"};
    };
    h.resweep = [&](bool heavy) {
        sweeps.push_back(heavy);
        return std::string(heavy ? "heavy" : "light");
    };
    h.log_level = [](config::LogLevel l) { return LevelChange{config::LogLevel::info, l}; };

    auto st = dispatch(req(R"({"id": 1, "cmd": "status"})"), h);
    CHECK(st.response == nlohmann::json{{"id", 1}, {"ok", true}, {"status", {{"state", "up"}}}});
    CHECK_FALSE(st.follow);

    auto ports = dispatch(req(R"({"cmd": "ports", "limit": 2})"), h).response;
    CHECK(ports["ok"] == true);
    REQUIRE(ports["ports"].size() == 2);
    CHECK(ports["ports"][0]["guid"] == Guid(3).str()); // the handler's order (worst first) kept
    CHECK(ports["ports"][1]["guid"] == Guid(1).str());
    CHECK(ports["total"] == 3);
    CHECK(dispatch(req(R"({"cmd": "ports"})"), h).response["ports"].size() == 3);

    auto iso = dispatch(req(R"({"id": 9, "cmd": "port", "action": "isolate", "node_guid": "0x5", "port": 1})"), h).response;
    CHECK(iso == nlohmann::json{{"id", 9}, {"ok", true}, {"result", "isolated"}});
    REQUIRE(isolated.size() == 1);
    CHECK(isolated[0].first == health::PortId{Guid(5), PortNum(1)});
    CHECK(isolated[0].second == isolate_reason);
    auto refused = dispatch(req(R"({"cmd": "port", "action": "isolate", "node_guid": "0x5", "port": 2})"), h).response;
    CHECK(refused["ok"] == false);
    CHECK(refused["error"] == "isolate 0x0000000000000005 port 2 refused: the link is the only path to node x");
    auto noclear = dispatch(req(R"({"cmd": "port", "action": "clear", "node_guid": "0x5", "port": 2})"), h).response;
    CHECK(noclear["error"] == "'port' is not available: this ibsmd has no health monitor to act on ports");

    CHECK(dispatch(req(R"({"cmd": "resweep", "heavy": true})"), h).response["result"] == "heavy");
    CHECK(dispatch(req(R"({"cmd": "resweep"})"), h).response["result"] == "light");
    CHECK(sweeps == std::vector<bool>{true, false});

    auto lvl = dispatch(req(R"({"cmd": "log-level", "level": "trace"})"), h).response;
    CHECK(lvl["old"] == "info");
    CHECK(lvl["new"] == "trace");

    auto ev = dispatch(req(R"({"id": "e", "cmd": "events", "follow": true})"), h);
    CHECK(ev.follow);
    CHECK(ev.response["ok"] == true);
}

TEST_CASE("a missing handler or one that throws is an error answer, never an exception", "[control]")
{
    ControlHandlers none;
    auto r = dispatch(req(R"({"id": 2, "cmd": "ports"})"), none).response;
    CHECK(r == nlohmann::json{{"id", 2}, {"ok", false}, {"error", "'ports' is not available: this ibsmd keeps no port health"}});
    ControlHandlers throwing;
    throwing.status = []() -> nlohmann::json { throw std::runtime_error("boom"); };
    auto t = dispatch(req(R"({"cmd": "status"})"), throwing);
    CHECK(t.response["error"] == "status failed: boom");
    CHECK_FALSE(t.follow);
}

TEST_CASE("the events feed stamps each event and hands it to every follower, who may leave meanwhile", "[control]")
{
    double now = 100.5;
    daemon::EventFeed feed([&] { return now; });
    std::vector<nlohmann::json> a, b;
    std::uint64_t id_b = 0;
    const auto id_a = feed.follow([&](const nlohmann::json& e) {
        a.push_back(e);
        feed.unfollow(id_b); // a slow follower dropped while an event is handed out
    });
    id_b = feed.follow([&](const nlohmann::json& e) { b.push_back(e); });
    feed.publish("trap", {{"number", 128}, {"time", 1}, {"event", "forged"}});
    CHECK(a.size() == 1);
    CHECK(b.empty());
    CHECK(a[0] == nlohmann::json{{"time", 100.5}, {"event", "trap"}, {"number", 128}});
    CHECK(feed.followers() == 1);
    feed.unfollow(id_a);
    now = 101;
    feed.publish("reload");
    CHECK(a.size() == 1);
    CHECK(feed.published() == 2);

    std::vector<nlohmann::json> seen;
    feed.follow([&](const nlohmann::json& e) { seen.push_back(e); });
    mad::Notice n;
    n.trap_number_or_device_id = 128;
    n.issuer_lid = Lid(5);
    n.details = mad::LinkStateChangeDetails{Lid(7)};
    publish_event(feed, daemon::TrapEvent{n, Lid(5)});
    publish_event(feed, daemon::McastTablesEvent{}); // not for the feed
    publish_event(feed, daemon::LightSweepEvent{"requested by ibsm resweep"});
    daemon::SweepOutcome o;
    o.kind = daemon::SweepKind::reroute;
    o.up = true;
    o.generation = 4;
    o.smps = 30;
    o.changes.links_down = 1;
    publish_outcome(feed, o);
    publish_sm_state(feed, "DISCOVERING", "MASTER", "subnet up");
    REQUIRE(seen.size() == 4);
    CHECK(seen[0]["event"] == "trap");
    CHECK(seen[0]["number"] == 128);
    CHECK(seen[0]["issuer_lid"] == 5);
    CHECK(seen[0]["lid"] == 7);
    CHECK(seen[1] == nlohmann::json{{"time", 101}, {"event", "sweep-requested"}, {"heavy", false},
                                    {"reason", "requested by ibsm resweep"}});
    CHECK(seen[2]["kind"] == "re-route");
    CHECK(seen[2]["outcome"] == "up");
    CHECK(seen[2]["generation"] == 4);
    CHECK(seen[2]["changes"]["links_down"] == 1);
    CHECK(seen[3]["to"] == "MASTER");
}

TEST_CASE("mkey: rotate answers the decision, show a port's keys and never more", "[control][mkey]")
{
    ControlHandlers h;
    bool refuse = true;
    h.mkey_rotate = [&] {
        return refuse ? PortActionResult{false, "M_Key rotation refused: /etc/s holds the secret in use"}
                      : PortActionResult{true, "M_Key rotation started"};
    };
    h.mkey_show = [](Guid g) {
        MkeyPortView v;
        if (g == Guid(0x10)) v = MkeyPortView{true, 0x1122334455667788ull, 0x99aabbccddeeff00ull, true};
        if (g == Guid(0x20)) v = MkeyPortView{true, std::nullopt, 0x5ull, true};
        return v;
    };
    auto refused = dispatch(req(R"({"id": 1, "cmd": "mkey", "action": "rotate"})"), h).response;
    CHECK(refused == nlohmann::json{{"id", 1}, {"ok", false},
                                    {"error", "M_Key rotation refused: /etc/s holds the secret in use"}});
    refuse = false;
    CHECK(dispatch(req(R"({"cmd": "mkey", "action": "rotate"})"), h).response["result"] == "M_Key rotation started");

    auto shown = dispatch(req(R"({"cmd": "mkey", "action": "show", "port_guid": "0x10"})"), h).response;
    CHECK(shown["ok"] == true);
    CHECK(shown["port_guid"] == "0x0000000000000010");
    CHECK(shown["held"] == "0x1122334455667788");
    CHECK(shown["desired"] == "0x99aabbccddeeff00");
    CHECK(shown["present"] == true);
    CHECK(dispatch(req(R"({"cmd": "mkey", "action": "show", "port_guid": "0x20"})"), h).response["held"].is_null());
    auto unknown = dispatch(req(R"({"cmd": "mkey", "action": "show", "port_guid": "0x30"})"), h).response;
    CHECK(unknown["error"] == "no port with GUID 0x0000000000000030 in the fabric");

    ControlHandlers none;
    CHECK(dispatch(req(R"({"cmd": "mkey", "action": "rotate"})"), none).response["error"] ==
          "'mkey' is not available: this ibsmd keeps no M_Keys");
}

TEST_CASE("M_Key violations and incidents reach the events feed, with the port and the source", "[control][mkey]")
{
    daemon::EventFeed feed([] { return 7.0; });
    std::vector<nlohmann::json> seen;
    feed.follow([&](const nlohmann::json& e) { seen.push_back(e); });
    mad::BadMkeyDetails b;
    b.method = 0x02;
    b.attr_id = 0x0015;
    b.attr_mod = 3;
    b.mkey = 0xdead; // never published
    publish_mkey_violation(feed, Lid(9), b, "LID 4");
    publish_mkey_incident(feed, daemon::MkeyIncident{Guid(0x77), true, "DR path 0,1", "PortInfo Set"}, true);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0] == nlohmann::json{{"time", 7.0}, {"event", "mkey-violation"}, {"lid", 9}, {"method", 2},
                                    {"attribute", 0x15}, {"modifier", 3}, {"source", "LID 4"}});
    CHECK(seen[1] == nlohmann::json{{"time", 7.0},        {"event", "mkey-incident"}, {"port_guid", "0x0000000000000077"},
                                    {"switch", true},     {"where", "DR path 0,1"},    {"what", "PortInfo Set"},
                                    {"lease_wait", true}});
}

TEST_CASE("drain: done, refused with the reason, or a dry run with its prediction", "[control]")
{
    ControlHandlers h;
    std::vector<DrainOrder> orders;
    h.drain = [&](const DrainOrder& o) {
        orders.push_back(o);
        if (o.dry_run) return DrainAnswer{true, "dry run: nothing changed", nlohmann::json{{"cut_off", {}}}};
        if (o.target == "leaf-1") return DrainAnswer{false, "would cut off 2 node(s): h1, h2", nullptr};
        return DrainAnswer{true, "drained", nullptr};
    };
    auto a = dispatch(req(R"({"id": 1, "cmd": "drain", "kind": "switch", "target": "spine-1"})"), h).response;
    CHECK(a["ok"] == true);
    CHECK(a["result"] == "drained");
    CHECK_FALSE(a.contains("whatif"));
    a = dispatch(req(R"({"id": 2, "cmd": "drain", "kind": "switch", "target": "leaf-1"})"), h).response;
    CHECK(a["ok"] == false);
    CHECK(a["error"] == "drain switch leaf-1 refused: would cut off 2 node(s): h1, h2");
    a = dispatch(req(R"({"id": 3, "cmd": "drain", "kind": "link", "target": "0x1/2", "dry_run": true})"), h).response;
    CHECK(a["ok"] == true);
    CHECK(a["whatif"]["cut_off"].empty());
    REQUIRE(orders.size() == 3);
    CHECK(orders[2].kind == DrainKind::link);
    CHECK(orders[2].dry_run);
    // No undrain handler: this daemon does not offer it.
    a = dispatch(req(R"({"id": 4, "cmd": "undrain", "kind": "switch", "target": "spine-1"})"), h).response;
    CHECK(a["ok"] == false);
    CHECK(a["error"] == "'undrain' is not available: this ibsmd keeps no drains");
}
