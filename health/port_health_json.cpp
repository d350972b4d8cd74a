#include "health/port_health_json.h"

#include <charconv>
#include <limits>
#include <string>

namespace ibsm::health {

using nlohmann::json;

namespace {

std::string guid_text(Guid g) { return g.str(); }

[[noreturn]] void fail(std::string_view where, std::string_view what)
{
    throw HealthJsonError(std::string(where) + ": " + std::string(what));
}

std::string at(std::string_view where, std::string_view key) { return std::string(where) + "." + std::string(key); }

const json* member(const json& j, std::string_view where, std::string_view key, bool required)
{
    auto it = j.find(key);
    if (it == j.end()) {
        if (required) fail(at(where, key), "missing");
        return nullptr;
    }
    return &*it;
}

void expect_object(const json& j, std::string_view where)
{
    if (!j.is_object()) fail(where, "expected an object");
}

std::uint64_t read_unsigned(const json& j, std::string_view where, std::uint64_t max)
{
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<std::int64_t>() >= 0))
        fail(where, "expected an unsigned integer");
    const auto v = j.get<std::uint64_t>();
    if (v > max) fail(where, "above " + std::to_string(max));
    return v;
}

double read_number(const json& j, std::string_view where)
{
    if (!j.is_number()) fail(where, "expected a number");
    return j.get<double>();
}

std::string read_string(const json& j, std::string_view where)
{
    if (!j.is_string()) fail(where, "expected a string");
    return j.get<std::string>();
}

bool read_bool(const json& j, std::string_view where)
{
    if (!j.is_boolean()) fail(where, "expected true or false");
    return j.get<bool>();
}

std::vector<std::string> read_strings(const json& j, std::string_view where)
{
    if (!j.is_array()) fail(where, "expected a list of strings");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j.size(); ++i)
        out.push_back(read_string(j[i], std::string(where) + "[" + std::to_string(i) + "]"));
    return out;
}

Guid read_guid(const json& j, std::string_view where)
{
    const std::string s = read_string(j, where);
    const std::string_view digits = std::string_view(s).substr(s.rfind("0x", 0) == 0 ? 2 : s.size());
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (digits.empty() || digits.size() > 16 || ec != std::errc{} || end != digits.data() + digits.size())
        fail(where, "expected a GUID as \"0x\" and up to 16 hex digits, got \"" + s + "\"");
    return Guid(v);
}

PortNum read_port(const json& j, std::string_view where)
{
    return PortNum(static_cast<std::uint8_t>(read_unsigned(j, where, 254)));
}

HealthState read_state(const json& j, std::string_view where)
{
    const std::string s = read_string(j, where);
    for (auto st : {HealthState::ok, HealthState::reported, HealthState::isolated, HealthState::isolation_refused})
        if (state_name(st) == s) return st;
    fail(where, "unknown state \"" + s + "\" (ok, reported, isolated, isolation-refused)");
}

// A width or speed as to_json names it ("4x", "NDR"); "?" and "" are what
// it writes for none.
std::uint8_t read_width(const json& v, std::string_view where)
{
    const std::string name = read_string(v, where);
    if (name.empty() || name == "?") return 0;
    for (std::uint8_t bit = 1; bit != 0 && bit <= 16; bit = static_cast<std::uint8_t>(bit << 1))
        if (mad::width_name(bit) == name) return bit;
    fail(where, "expected a link width (1x, 2x, 4x, 8x, 12x), got \"" + name + "\"");
}

mad::LaneSpeed read_speed(const json& v, std::string_view where)
{
    const std::string name = read_string(v, where);
    if (name.empty() || name == "?") return mad::LaneSpeed::none;
    for (auto s = static_cast<unsigned>(mad::LaneSpeed::sdr); s <= static_cast<unsigned>(mad::LaneSpeed::xdr); ++s)
        if (mad::speed_name(static_cast<mad::LaneSpeed>(s)) == name) return static_cast<mad::LaneSpeed>(s);
    fail(where, "expected a lane speed (SDR .. XDR), got \"" + name + "\"");
}

// Optional members: read into `out` when present.
template <class Read, class T>
void optional(const json& j, std::string_view where, std::string_view key, T& out, Read read)
{
    if (const json* v = member(j, where, key, false)) out = read(*v, at(where, key));
}

} // namespace

json to_json(const LinkCheck& l)
{
    return json{{"downshifted", l.downshifted},
                {"findings", l.findings},
                {"width_active", active_width_name(l)},
                {"width_possible", possible_width_name(l)},
                {"speed_active", active_speed_name(l)},
                {"speed_possible", possible_speed_name(l)},
                {"mtu_active", l.mtu_active},     {"mtu_possible", l.mtu_possible},
                {"vls_active", l.vls_active},     {"vls_possible", l.vls_possible}};
}

json to_json(const PortHealth& r)
{
    json j{{"node_guid", guid_text(r.id.node)},
           {"node_desc", r.node_desc},
           {"port", r.id.port.value()},
           {"lid", r.lid.value()},
           {"state", std::string(state_name(r.state))},
           {"since", r.since},
           {"link_downs_recent", r.link_downs_recent},
           {"reasons", r.reasons}};
    if (!r.node_name.empty()) j["node_name"] = r.node_name;
    if (r.remote) j["remote"] = json{{"node_guid", guid_text(r.remote->node)}, {"port", r.remote->port.value()}};
    if (r.counters) {
        const auto& c = *r.counters;
        json counters = json::object();
        for (std::size_t i = 0; i < counter_count; ++i) {
            if (!c.supported[i]) continue;
            counters[std::string(counter_name(static_cast<Counter>(i)))] =
                json{{"total", c.total[i]}, {"delta", c.delta[i]}};
        }
        j["counters"] = std::move(counters);
        j["rates"] = json{{"xmit_bytes_per_s", c.xmit_bytes_per_s}, {"rcv_bytes_per_s", c.rcv_bytes_per_s},
                          {"xmit_pkts_per_s", c.xmit_pkts_per_s},   {"rcv_pkts_per_s", c.rcv_pkts_per_s},
                          {"xmit_wait_share", c.xmit_wait_share}};
        j["poll"] = json{{"extended", c.extended},       {"interval_s", c.interval_s},
                         {"reads", c.reads},             {"resets_seen", c.resets_seen},
                         {"failures", c.failures},       {"failure_history", c.failure_history},
                         {"last_read", c.last_read}};
    }
    if (r.link) j["link"] = to_json(*r.link);
    return j;
}

json to_json(const std::vector<PortHealth>& rows)
{
    json list = json::array();
    for (const auto& r : rows) list.push_back(to_json(r));
    return list;
}

json ports_to_json(const std::vector<PortHealth>& rows) { return json{{"ports", to_json(rows)}}; }

LinkCheck link_check_from_json(const json& j, std::string_view where)
{
    expect_object(j, where);
    LinkCheck l;
    optional(j, where, "downshifted", l.downshifted, read_bool);
    optional(j, where, "findings", l.findings, read_strings);
    optional(j, where, "width_active", l.width_active, read_width);
    optional(j, where, "width_possible", l.width_possible, read_width);
    optional(j, where, "speed_active", l.speed_active, read_speed);
    optional(j, where, "speed_possible", l.speed_possible, read_speed);
    const auto mtu = [](const json& v, std::string_view w) {
        return static_cast<std::uint16_t>(read_unsigned(v, w, 4096));
    };
    const auto vls = [](const json& v, std::string_view w) { return static_cast<std::uint8_t>(read_unsigned(v, w, 15)); };
    optional(j, where, "mtu_active", l.mtu_active, mtu);
    optional(j, where, "mtu_possible", l.mtu_possible, mtu);
    optional(j, where, "vls_active", l.vls_active, vls);
    optional(j, where, "vls_possible", l.vls_possible, vls);
    return l;
}

namespace {

PortCounters counters_from_json(const json& j, const json* counters, std::string_view where)
{
    PortCounters c;
    if (counters) {
        const std::string cw = at(where, "counters");
        expect_object(*counters, cw);
        for (const auto& [name, v] : counters->items()) {
            const std::string w = at(cw, name);
            // Only the snake_case names: they are what to_json writes.
            const auto id = counter_from_name(name);
            if (!id || counter_name(*id) != name) fail(w, "unknown counter");
            expect_object(v, w);
            const auto i = index(*id);
            c.supported[i] = true;
            c.total[i] = read_unsigned(*member(v, w, "total", true), at(w, "total"),
                                       std::numeric_limits<std::uint64_t>::max());
            optional(v, w, "delta", c.delta[i], [](const json& x, std::string_view xw) {
                return read_unsigned(x, xw, std::numeric_limits<std::uint64_t>::max());
            });
        }
    }
    if (const json* rates = member(j, where, "rates", false)) {
        const std::string rw = at(where, "rates");
        expect_object(*rates, rw);
        optional(*rates, rw, "xmit_bytes_per_s", c.xmit_bytes_per_s, read_number);
        optional(*rates, rw, "rcv_bytes_per_s", c.rcv_bytes_per_s, read_number);
        optional(*rates, rw, "xmit_pkts_per_s", c.xmit_pkts_per_s, read_number);
        optional(*rates, rw, "rcv_pkts_per_s", c.rcv_pkts_per_s, read_number);
        optional(*rates, rw, "xmit_wait_share", c.xmit_wait_share, read_number);
    }
    if (const json* poll = member(j, where, "poll", false)) {
        const std::string pw = at(where, "poll");
        expect_object(*poll, pw);
        const auto u64 = [](const json& x, std::string_view xw) {
            return read_unsigned(x, xw, std::numeric_limits<std::uint64_t>::max());
        };
        optional(*poll, pw, "extended", c.extended, read_bool);
        optional(*poll, pw, "interval_s", c.interval_s, read_number);
        optional(*poll, pw, "reads", c.reads, u64);
        optional(*poll, pw, "resets_seen", c.resets_seen, u64);
        optional(*poll, pw, "failures", c.failures, u64);
        optional(*poll, pw, "failure_history", c.failure_history, u64);
        optional(*poll, pw, "last_read", c.last_read, read_number);
    }
    return c;
}

} // namespace

PortHealth port_health_from_json(const json& j, std::string_view where)
{
    expect_object(j, where);
    PortHealth r;
    r.id.node = read_guid(*member(j, where, "node_guid", true), at(where, "node_guid"));
    r.id.port = read_port(*member(j, where, "port", true), at(where, "port"));
    optional(j, where, "node_desc", r.node_desc, read_string);
    optional(j, where, "node_name", r.node_name, read_string);
    optional(j, where, "lid", r.lid,
             [](const json& v, std::string_view w) { return Lid(static_cast<std::uint16_t>(read_unsigned(v, w, 0xffff))); });
    optional(j, where, "state", r.state, read_state);
    optional(j, where, "since", r.since, read_number);
    optional(j, where, "link_downs_recent", r.link_downs_recent, [](const json& v, std::string_view w) {
        return static_cast<unsigned>(read_unsigned(v, w, std::numeric_limits<unsigned>::max()));
    });
    optional(j, where, "reasons", r.reasons, read_strings);
    if (const json* rem = member(j, where, "remote", false)) {
        const std::string w = at(where, "remote");
        expect_object(*rem, w);
        r.remote = PortId{read_guid(*member(*rem, w, "node_guid", true), at(w, "node_guid")),
                          read_port(*member(*rem, w, "port", true), at(w, "port"))};
    }
    const json* counters = member(j, where, "counters", false);
    if (counters || j.contains("rates") || j.contains("poll")) r.counters = counters_from_json(j, counters, where);
    if (const json* link = member(j, where, "link", false)) r.link = link_check_from_json(*link, at(where, "link"));
    return r;
}

std::vector<PortHealth> ports_from_json(const json& doc)
{
    expect_object(doc, "document");
    return port_list_from_json(*member(doc, "document", "ports", true));
}

std::vector<PortHealth> port_list_from_json(const json& list, std::string_view where)
{
    if (!list.is_array()) fail(where, "expected a list");
    std::vector<PortHealth> out;
    out.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
        out.push_back(port_health_from_json(list[i], std::string(where) + "[" + std::to_string(i) + "]"));
    return out;
}

std::vector<PortHealth> parse_ports_json(std::string_view text)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
        throw HealthJsonError(std::string("not JSON: ") + e.what());
    }
    return ports_from_json(doc);
}

} // namespace ibsm::health
