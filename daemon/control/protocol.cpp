#include "daemon/control/protocol.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <vector>

namespace ibsm::daemon::control {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 9> command_names{"status", "ports", "port",  "resweep", "log-level",
                                                        "events", "mkey",  "drain", "undrain"};

// Which keys each command takes besides "id" and "cmd".
std::vector<std::string_view> keys_of(Command c)
{
    switch (c) {
    case Command::status: return {};
    case Command::ports: return {"limit"};
    case Command::port: return {"action", "node_guid", "port"};
    case Command::resweep: return {"heavy"};
    case Command::log_level: return {"level"};
    case Command::events: return {"follow"};
    case Command::mkey: return {"action", "port_guid"};
    case Command::drain: return {"kind", "target", "dry_run"};
    case Command::undrain: return {"kind", "target"};
    }
    return {};
}

std::string known_commands()
{
    std::string out;
    for (auto n : command_names) out += (out.empty() ? "" : ", ") + std::string(n);
    return out;
}

std::string type_of(const Json& v)
{
    if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
    if (v.is_number_float()) return "a number with a fraction";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_null()) return "null";
    if (v.is_array()) return "an array";
    return "an object";
}

struct Fail {
    std::string what;
};

const Json& need(const Json& j, const char* key, std::string_view cmd)
{
    auto it = j.find(key);
    if (it == j.end()) throw Fail{"'" + std::string(cmd) + "' needs '" + key + "'"};
    return *it;
}

std::string text(const Json& v, const char* key)
{
    if (!v.is_string()) throw Fail{std::string("'") + key + "': expected a string, got " + type_of(v)};
    return v.get<std::string>();
}

bool boolean(const Json& v, const char* key)
{
    if (!v.is_boolean()) throw Fail{std::string("'") + key + "': expected true or false, got " + type_of(v)};
    return v.get<bool>();
}

std::uint64_t unsigned_in(const Json& v, const char* key, std::uint64_t min, std::uint64_t max)
{
    const std::string range = std::to_string(min) + ".." + std::to_string(max);
    if (!v.is_number_unsigned() && !v.is_number_integer())
        throw Fail{std::string("'") + key + "': expected an integer " + range + ", got " + type_of(v)};
    if (v.is_number_integer() && v.get<std::int64_t>() < 0)
        throw Fail{std::string("'") + key + "': expected an integer " + range + ", got " +
                   std::to_string(v.get<std::int64_t>())};
    const auto n = v.get<std::uint64_t>();
    if (n < min || n > max)
        throw Fail{std::string("'") + key + "': expected an integer " + range + ", got " + std::to_string(n)};
    return n;
}

// "0x" and 1..16 hex digits, the form infiniband-diags prints.
Guid guid(const Json& v, const char* key)
{
    const std::string s = text(v, key);
    const auto bad = [&] {
        return Fail{std::string("'") + key + "': expected '0x' and 1 to 16 hex digits, got '" + s.substr(0, 40) +
                    (s.size() > 40 ? "...'" : "'")};
    };
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) throw bad();
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), value, 16);
    if (ec != std::errc{} || end != s.data() + s.size()) throw bad();
    return Guid(value);
}

Request parse_object(const Json& j)
{
    Request r;
    const Json& cmd_value = need(j, "cmd", "a request");
    const std::string cmd = text(cmd_value, "cmd");
    auto it = std::find(command_names.begin(), command_names.end(), cmd);
    if (it == command_names.end())
        throw Fail{"unknown cmd '" + cmd.substr(0, 40) + "' (known: " + known_commands() + ")"};
    r.cmd = static_cast<Command>(it - command_names.begin());
    const auto keys = keys_of(r.cmd);
    for (const auto& [key, value] : j.items()) {
        if (key == "id" || key == "cmd") continue;
        if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
            std::string takes;
            for (auto k : keys) takes += (takes.empty() ? "" : ", ") + std::string(k);
            throw Fail{"'" + cmd + "' takes no key '" + key.substr(0, 40) + "'" +
                       (takes.empty() ? std::string(" (it takes no arguments)") : " (it takes: " + takes + ")")};
        }
    }
    switch (r.cmd) {
    case Command::status: break;
    case Command::ports:
        if (j.contains("limit")) r.limit = unsigned_in(j["limit"], "limit", 1, max_limit);
        break;
    case Command::port: {
        const std::string action = text(need(j, "action", cmd), "action");
        if (action == "isolate")
            r.action = PortAction::isolate;
        else if (action == "clear")
            r.action = PortAction::clear;
        else
            throw Fail{"'action': expected isolate or clear, got '" + action.substr(0, 40) + "'"};
        r.node_guid = guid(need(j, "node_guid", cmd), "node_guid");
        r.port = PortNum(static_cast<std::uint8_t>(unsigned_in(need(j, "port", cmd), "port", 1, PortNum::max_port)));
        break;
    }
    case Command::resweep:
        if (j.contains("heavy")) r.heavy = boolean(j["heavy"], "heavy");
        break;
    case Command::log_level: {
        const std::string name = text(need(j, "level", cmd), "level");
        auto level = config::parse_log_level(name);
        if (!level)
            throw Fail{"'level': unknown log level '" + name.substr(0, 40) + "' (known: " +
                       config::known_log_levels_text() + ")"};
        r.level = *level;
        break;
    }
    case Command::events:
        r.follow = boolean(need(j, "follow", cmd), "follow");
        if (!r.follow) throw Fail{"'events' without follow: true has nothing to answer (the last events are in status)"};
        break;
    case Command::mkey: {
        const std::string action = text(need(j, "action", cmd), "action");
        if (action == "rotate")
            r.mkey_action = MkeyAction::rotate;
        else if (action == "show")
            r.mkey_action = MkeyAction::show;
        else
            throw Fail{"'action': expected rotate or show, got '" + action.substr(0, 40) + "'"};
        if (r.mkey_action == MkeyAction::show)
            r.port_guid = guid(need(j, "port_guid", cmd), "port_guid");
        else if (j.contains("port_guid"))
            throw Fail{"'port_guid': 'mkey' rotate re-keys every port and takes no port"};
        break;
    }
    case Command::drain:
    case Command::undrain: {
        const std::string kind = text(need(j, "kind", cmd), "kind");
        if (kind == "switch")
            r.drain_kind = DrainKind::switch_node;
        else if (kind == "link")
            r.drain_kind = DrainKind::link;
        else
            throw Fail{"'kind': expected switch or link, got '" + kind.substr(0, 40) + "'"};
        r.target = text(need(j, "target", cmd), "target");
        if (r.target.empty() || r.target.size() > max_target)
            throw Fail{"'target': expected a name, a GUID or GUID/PORT of 1 to " + std::to_string(max_target) +
                       " characters"};
        if (j.contains("dry_run")) r.dry_run = boolean(j["dry_run"], "dry_run");
        break;
    }
    }
    return r;
}

} // namespace

std::string_view command_name(Command c) { return command_names.at(static_cast<std::size_t>(c)); }
std::string_view action_name(PortAction a) { return a == PortAction::isolate ? "isolate" : "clear"; }
std::string_view action_name(MkeyAction a) { return a == MkeyAction::rotate ? "rotate" : "show"; }
std::string_view kind_name(DrainKind k) { return k == DrainKind::switch_node ? "switch" : "link"; }

Parsed parse_request(std::string_view line)
{
    Json j = Json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return RequestError{nullptr, "invalid JSON (a request is one JSON object per line)"};
    if (!j.is_object()) return RequestError{nullptr, "a request is a JSON object, got " + type_of(j)};
    Json id = j.contains("id") ? j["id"] : Json(nullptr);
    try {
        Request r = parse_object(j);
        r.id = std::move(id);
        return r;
    } catch (const Fail& f) {
        return RequestError{std::move(id), f.what};
    }
}

Json request_json(const Request& r)
{
    Json j = Json::object();
    if (!r.id.is_null()) j["id"] = r.id;
    j["cmd"] = std::string(command_name(r.cmd));
    switch (r.cmd) {
    case Command::status: break;
    case Command::ports:
        if (r.limit) j["limit"] = *r.limit;
        break;
    case Command::port:
        j["action"] = std::string(action_name(r.action));
        j["node_guid"] = r.node_guid.str();
        j["port"] = r.port.value();
        break;
    case Command::resweep: j["heavy"] = r.heavy; break;
    case Command::log_level: j["level"] = std::string(config::to_string(r.level)); break;
    case Command::events: j["follow"] = r.follow; break;
    case Command::mkey:
        j["action"] = std::string(action_name(r.mkey_action));
        if (r.mkey_action == MkeyAction::show) j["port_guid"] = r.port_guid.str();
        break;
    case Command::drain:
    case Command::undrain:
        j["kind"] = std::string(kind_name(r.drain_kind));
        j["target"] = r.target;
        if (r.cmd == Command::drain && r.dry_run) j["dry_run"] = true;
        break;
    }
    return j;
}

Json ok_response(const Json& id, Json result)
{
    Json j = result.is_object() ? std::move(result) : Json{{"result", std::move(result)}};
    j["id"] = id;
    j["ok"] = true;
    return j;
}

Json error_response(const Json& id, std::string_view error)
{
    return Json{{"id", id}, {"ok", false}, {"error", std::string(error)}};
}

std::string to_line(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n"; }

std::vector<std::string> LineReader::feed(std::string_view bytes)
{
    std::vector<std::string> lines;
    while (!overlong_ && !bytes.empty()) {
        const auto nl = bytes.find('\n');
        const auto take = nl == std::string_view::npos ? bytes.size() : nl;
        if (partial_.size() + take > limit_) {
            overlong_ = true;
            partial_.clear();
            break;
        }
        partial_.append(bytes.substr(0, take));
        if (nl == std::string_view::npos) break;
        bytes.remove_prefix(nl + 1);
        if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
        if (!partial_.empty()) lines.push_back(std::move(partial_));
        partial_.clear();
    }
    return lines;
}

std::string overlong_error(std::size_t limit)
{
    return "request line longer than " + std::to_string(limit) + " bytes; closing the connection";
}

} // namespace ibsm::daemon::control
