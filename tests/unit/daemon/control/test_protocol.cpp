#include "config/config.h"
#include "daemon/control/protocol.h"
#include "daemon/control/socket_rules.h"

#include <catch2/catch.hpp>

using namespace ibsm;
using namespace ibsm::daemon::control;

namespace {

Request ok(std::string_view line)
{
    auto p = parse_request(line);
    INFO(line);
    REQUIRE(std::holds_alternative<Request>(p));
    return std::get<Request>(p);
}

RequestError bad(std::string_view line)
{
    auto p = parse_request(line);
    INFO(line);
    REQUIRE(std::holds_alternative<RequestError>(p));
    return std::get<RequestError>(p);
}

} // namespace

TEST_CASE("valid requests parse with their arguments and round-trip through request_json", "[control]")
{
    auto s = ok(R"({"id": 1, "cmd": "status"})");
    CHECK(s.cmd == Command::status);
    CHECK(s.id == 1);
    auto p = ok(R"({"cmd": "ports", "limit": 5})");
    CHECK(p.limit == 5u);
    CHECK(p.id.is_null());
    auto i = ok(R"({"id": "a", "cmd": "port", "action": "clear", "node_guid": "0x0002c90201000001", "port": 3})");
    CHECK(i.action == PortAction::clear);
    CHECK(i.node_guid == Guid(0x0002c90201000001));
    CHECK(i.port == PortNum(3));
    CHECK(ok(R"({"cmd": "resweep", "heavy": true})").heavy);
    CHECK_FALSE(ok(R"({"cmd": "resweep"})").heavy);
    CHECK(ok(R"({"cmd": "log-level", "level": "debug"})").level == config::LogLevel::debug);
    CHECK(ok(R"({"cmd": "events", "follow": true})").follow);
    for (const auto* line : {R"({"id": 1, "cmd": "status"})", R"({"cmd": "ports", "limit": 5})",
                             R"({"id": "a", "cmd": "port", "action": "isolate", "node_guid": "0x0000000000000001", "port": 254})",
                             R"({"cmd": "resweep", "heavy": false})", R"({"cmd": "log-level", "level": "off"})",
                             R"({"cmd": "events", "follow": true})", R"({"cmd": "mkey", "action": "rotate"})",
                             R"({"cmd": "mkey", "action": "show", "port_guid": "0x0000000000000abc"})",
                             R"({"cmd": "drain", "kind": "switch", "target": "spine-3", "dry_run": true})",
                             R"({"cmd": "drain", "kind": "link", "target": "0x0002c90201000001/17"})",
                             R"({"cmd": "undrain", "kind": "switch", "target": "0x0002c90202000002"})"}) {
        auto r = ok(line);
        CHECK(request_json(r) == nlohmann::json::parse(line));
    }
}

TEST_CASE("bad requests get an error naming what is wrong, with the id when it could be read", "[control]")
{
    CHECK(bad("{").error.starts_with("invalid JSON"));
    CHECK(bad("[1, 2]").error == "a request is a JSON object, got an array");
    CHECK(bad(R"({"id": 3})").error == "'a request' needs 'cmd'");
    auto u = bad(R"({"id": 4, "cmd": "reboot"})");
    CHECK(u.id == 4);
    CHECK(u.error == "unknown cmd 'reboot' (known: status, ports, port, resweep, log-level, events, mkey, drain, undrain)");
    CHECK(bad(R"({"cmd": 5})").error == "'cmd': expected a string, got an integer");
    CHECK(bad(R"({"cmd": "status", "verbose": true})").error == "'status' takes no key 'verbose' (it takes no arguments)");
    CHECK(bad(R"({"cmd": "ports", "limit": "3"})").error == "'limit': expected an integer 1..1000000, got a string");
    CHECK(bad(R"({"cmd": "ports", "limit": 0})").error == "'limit': expected an integer 1..1000000, got 0");
    CHECK(bad(R"({"cmd": "ports", "limit": -2})").error == "'limit': expected an integer 1..1000000, got -2");
    CHECK(bad(R"({"cmd": "ports", "limit": 1.5})").error == "'limit': expected an integer 1..1000000, got a number with a fraction");
    CHECK(bad(R"({"cmd": "port", "node_guid": "0x1", "port": 1})").error == "'port' needs 'action'");
    CHECK(bad(R"({"cmd": "port", "action": "drop", "node_guid": "0x1", "port": 1})").error ==
          "'action': expected isolate or clear, got 'drop'");
    CHECK(bad(R"({"cmd": "port", "action": "clear", "port": 1})").error == "'port' needs 'node_guid'");
    CHECK(bad(R"({"cmd": "port", "action": "clear", "node_guid": "12", "port": 1})").error ==
          "'node_guid': expected '0x' and 1 to 16 hex digits, got '12'");
    CHECK(bad(R"({"cmd": "port", "action": "clear", "node_guid": "0x00000000000000001", "port": 1})").error.starts_with(
        "'node_guid': expected"));
    CHECK(bad(R"({"cmd": "port", "action": "clear", "node_guid": "0x1g", "port": 1})").error.starts_with("'node_guid'"));
    CHECK(bad(R"({"cmd": "port", "action": "clear", "node_guid": "0x1", "port": 255})").error ==
          "'port': expected an integer 1..254, got 255");
    CHECK(bad(R"({"cmd": "port", "action": "clear", "node_guid": "0x1"})").error == "'port' needs 'port'");
    CHECK(bad(R"({"cmd": "resweep", "heavy": 1})").error == "'heavy': expected true or false, got an integer");
    CHECK(bad(R"({"cmd": "log-level", "level": "loud"})").error.starts_with("'level': unknown log level 'loud'"));
    CHECK(bad(R"({"cmd": "log-level"})").error == "'log-level' needs 'level'");
    CHECK(bad(R"({"cmd": "events"})").error == "'events' needs 'follow'");
    CHECK(bad(R"({"cmd": "events", "follow": false})").error.starts_with("'events' without follow: true"));
}

TEST_CASE("answers carry the id and make one line, invalid UTF-8 replaced", "[control]")
{
    auto a = ok_response("x", {{"result", "done"}});
    CHECK(a["id"] == "x");
    CHECK(a["ok"] == true);
    auto e = error_response(7, "no");
    CHECK(to_line(e) == R"({"error":"no","id":7,"ok":false})" "\n");
    const std::string line = to_line(ok_response(nullptr, {{"node_desc", std::string("sw\xff")}}));
    CHECK(line.back() == '\n');
    CHECK(std::count(line.begin(), line.end(), '\n') == 1);
    CHECK(nlohmann::json::parse(line)["node_desc"] == "sw\xef\xbf\xbd");
}

TEST_CASE("the line reader frames split, joined and overlong lines", "[control]")
{
    LineReader r(16);
    CHECK(r.feed("{\"cmd\":").empty());
    auto one = r.feed("1}\n{\"a\":2}\r\n\n{\"b\"");
    REQUIRE(one.size() == 2);
    CHECK(one[0] == "{\"cmd\":1}");
    CHECK(one[1] == "{\"a\":2}"); // \r dropped, the blank line skipped
    CHECK(r.pending() == 4);
    CHECK(r.feed(":3}\n") == std::vector<std::string>{"{\"b\":3}"});
    CHECK_FALSE(r.overlong());
    CHECK(r.feed(std::string(10, 'x')).empty());
    CHECK(r.feed(std::string(7, 'x') + "\n{}\n").empty()); // 17 bytes: over the limit, and nothing after it
    CHECK(r.overlong());
    CHECK(r.feed("{}\n").empty());
    LineReader exact(4);
    CHECK(exact.feed("abcd\n") == std::vector<std::string>{"abcd"});
    CHECK(overlong_error(16) == "request line longer than 16 bytes; closing the connection");
}

TEST_CASE("the socket path and the peer rule", "[control]")
{
    CHECK(socket_path("/srv/ibsmd.sock", "/run/ibsmd", "/var/lib/ibsmd") == "/srv/ibsmd.sock");
    CHECK(socket_path("", "/run/ibsmd", "/var/lib/ibsmd") == "/run/ibsmd/control.sock");
    CHECK(socket_path("", "/run/ibsmd/0x1/:/run/other", "/var/lib/ibsmd") == "/run/ibsmd/0x1/control.sock");
    CHECK(socket_path("", nullptr, "") == "/run/ibsmd/control.sock");
    CHECK(socket_path("", "", "") == "/run/ibsmd/control.sock");
    CHECK(socket_path("", "relative", "") == "/run/ibsmd/control.sock");
    CHECK_FALSE(refuse_peer(0u));
    CHECK(refuse_peer(1000u) == "permission denied: the control socket serves root only");
    CHECK(refuse_peer(65534u) == "permission denied: the control socket serves root only");
    CHECK(refuse_peer(std::nullopt)->starts_with("permission denied"));
}

TEST_CASE("outside systemd the socket follows the state directory, so two SMs on one host have two", "[control]")
{
    // Two foreground SMs with their own state directories: two sockets.
    CHECK(socket_path("", nullptr, "/tmp/drill/a") == "/tmp/drill/a/control.sock");
    CHECK(socket_path("", nullptr, "/tmp/drill/b/") == "/tmp/drill/b/control.sock");
    CHECK(socket_path("", "", "/var/lib/ibsmd") == "/var/lib/ibsmd/control.sock");
    CHECK(socket_path("", nullptr, "/") == "/control.sock");
    // The units' runtime directory and control.socket come first.
    CHECK(socket_path("", "/run/ibsmd", "/tmp/drill/a") == "/run/ibsmd/control.sock");
    CHECK(socket_path("/srv/a.sock", nullptr, "/tmp/drill/a") == "/srv/a.sock");
    // Not a directory to put it in: relative (the callers make it absolute), or too long for an address.
    CHECK(socket_path("", nullptr, "state") == "/run/ibsmd/control.sock");
    const std::string longest = "/" + std::string(config::max_socket_path - 1 - std::string("/control.sock").size(), 's');
    CHECK(socket_path("", nullptr, longest) == longest + "/control.sock");
    CHECK((longest + "/control.sock").size() == config::max_socket_path);
    CHECK(socket_path("", nullptr, longest + "s") == "/run/ibsmd/control.sock");
}

TEST_CASE("mkey: rotate takes no port, show needs one", "[control][mkey]")
{
    CHECK(ok(R"({"cmd": "mkey", "action": "rotate"})").mkey_action == MkeyAction::rotate);
    const auto show = ok(R"({"cmd": "mkey", "action": "show", "port_guid": "0x2c9"})");
    CHECK(show.mkey_action == MkeyAction::show);
    CHECK(show.port_guid == Guid(0x2c9));
    CHECK(bad(R"({"cmd": "mkey"})").error == "'mkey' needs 'action'");
    CHECK(bad(R"({"cmd": "mkey", "action": "reset"})").error == "'action': expected rotate or show, got 'reset'");
    CHECK(bad(R"({"cmd": "mkey", "action": "show"})").error == "'mkey' needs 'port_guid'");
    CHECK(bad(R"({"cmd": "mkey", "action": "show", "port_guid": "2c9"})").error ==
          "'port_guid': expected '0x' and 1 to 16 hex digits, got '2c9'");
    CHECK(bad(R"({"cmd": "mkey", "action": "rotate", "port_guid": "0x1"})").error ==
          "'port_guid': 'mkey' rotate re-keys every port and takes no port");
    CHECK(bad(R"({"cmd": "mkey", "action": "rotate", "secret": "x"})").error ==
          "'mkey' takes no key 'secret' (it takes: action, port_guid)");
}

TEST_CASE("drain and undrain take a kind, a target and (drain) a dry run", "[control]")
{
    auto d = ok(R"({"cmd": "drain", "kind": "link", "target": "0x1/3", "dry_run": true})");
    CHECK(d.cmd == Command::drain);
    CHECK(d.drain_kind == DrainKind::link);
    CHECK(d.target == "0x1/3");
    CHECK(d.dry_run);
    CHECK_FALSE(ok(R"({"cmd": "drain", "kind": "switch", "target": "s"})").dry_run);
    CHECK(ok(R"({"cmd": "undrain", "kind": "switch", "target": "s"})").cmd == Command::undrain);
    CHECK(bad(R"({"cmd": "drain", "kind": "rack", "target": "r1"})").error == "'kind': expected switch or link, got 'rack'");
    CHECK(bad(R"({"cmd": "drain", "kind": "switch"})").error == "'drain' needs 'target'");
    CHECK(bad(R"({"cmd": "drain", "kind": "switch", "target": ""})").error.starts_with("'target': expected a name"));
    CHECK(bad(R"({"cmd": "drain", "kind": "switch", "target": ")" + std::string(300, 'x') + R"("})")
              .error.starts_with("'target': expected a name"));
    CHECK(bad(R"({"cmd": "undrain", "kind": "switch", "target": "s", "dry_run": true})").error ==
          "'undrain' takes no key 'dry_run' (it takes: kind, target)");
    CHECK(bad(R"({"cmd": "drain", "kind": "switch", "target": "s", "dry_run": 1})").error ==
          "'dry_run': expected true or false, got an integer");
}
