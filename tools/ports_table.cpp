#include "tools/ports_table.h"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace ibsm::tools {

namespace {

using Json = nlohmann::json;

std::string str(const Json& j, const char* key)
{
    if (!j.is_object() || !j.contains(key)) return "-";
    const Json& v = j[key];
    if (v.is_string()) return v.get<std::string>().empty() ? "-" : v.get<std::string>();
    if (v.is_number_unsigned() || v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    return "-";
}

// "symbol_errors +3 (12)" for every error counter that moved or has a total.
std::string errors(const Json& counters)
{
    if (!counters.is_object()) return "-";
    static constexpr const char* traffic[] = {"xmit_data", "rcv_data", "xmit_pkts", "rcv_pkts", "xmit_wait"};
    std::string out;
    for (const auto& [name, v] : counters.items()) {
        if (std::find(std::begin(traffic), std::end(traffic), name) != std::end(traffic)) continue;
        const auto total = v.value("total", std::uint64_t{0});
        const auto delta = v.value("delta", std::uint64_t{0});
        if (total == 0 && delta == 0) continue;
        out += (out.empty() ? "" : ", ") + name + " +" + std::to_string(delta) + " (" + std::to_string(total) + ")";
    }
    return out.empty() ? "none" : out;
}

std::string rates(const Json& r)
{
    if (!r.is_object()) return "-";
    char wait[32];
    std::snprintf(wait, sizeof wait, "%.1f%%", 100.0 * r.value("xmit_wait_share", 0.0));
    return "tx " + human_rate(r.value("xmit_bytes_per_s", 0.0)) + " rx " + human_rate(r.value("rcv_bytes_per_s", 0.0)) +
           " wait " + wait;
}

std::string link(const Json& l)
{
    if (!l.is_object()) return "-";
    std::string out = str(l, "width_active") + " " + str(l, "speed_active");
    if (l.contains("findings") && l["findings"].is_array())
        for (const auto& f : l["findings"])
            if (f.is_string()) out += "; " + f.get<std::string>();
    return out;
}

} // namespace

std::string human_rate(double b)
{
    static constexpr const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
    std::size_t u = 0;
    while (b >= 1000 && u + 1 < std::size(units)) {
        b /= 1000;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    return buf;
}

std::string ports_table(const Json& answer)
{
    std::vector<std::vector<std::string>> rows{
        {"NODE", "GUID", "PORT", "REMOTE", "STATE", "ERRORS +delta (total)", "RATES", "LINK"}};
    const Json ports = answer.contains("ports") && answer["ports"].is_array() ? answer["ports"] : Json::array();
    for (const auto& p : ports) {
        const Json remote = p.contains("remote") ? p["remote"] : Json(nullptr);
        std::string state = str(p, "state");
        if (p.contains("reasons") && p["reasons"].is_array() && !p["reasons"].empty() && p["reasons"].back().is_string())
            state += ": " + p["reasons"].back().get<std::string>();
        // The node-name-map's name when the daemon has one, else NodeDescription.
        const bool named = p.contains("node_name") && p["node_name"].is_string() &&
                           !p["node_name"].get<std::string>().empty();
        rows.push_back({named ? str(p, "node_name") : str(p, "node_desc"), str(p, "node_guid"), str(p, "port"),
                        remote.is_object() ? str(remote, "node_guid") + "/" + str(remote, "port") : "-", state,
                        errors(p.contains("counters") ? p["counters"] : Json(nullptr)),
                        rates(p.contains("rates") ? p["rates"] : Json(nullptr)),
                        link(p.contains("link") ? p["link"] : Json(nullptr))});
    }
    std::vector<std::size_t> width(rows.front().size(), 0);
    for (const auto& r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (std::size_t i = 0; i < r.size(); ++i) {
            line += r[i];
            if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
        }
        out += line + "\n";
    }
    if (answer.contains("total") && answer["total"].is_number() && answer["total"].get<std::size_t>() > ports.size())
        out += "(" + std::to_string(ports.size()) + " of " + std::to_string(answer["total"].get<std::size_t>()) +
               " ports)\n";
    return out;
}

} // namespace ibsm::tools
