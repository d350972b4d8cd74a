#include "daemon/publish/status_drains.h"

#include <ctime>

namespace ibsm::daemon {

namespace {

std::string escaped(const std::string& v)
{
    std::string out;
    for (char c : v) {
        if (c == '\\' || c == '"')
            out += {'\\', c};
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
    return out;
}

std::string when(double t)
{
    const std::time_t s = static_cast<std::time_t>(t);
    std::tm tm{};
    localtime_r(&s, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

} // namespace

nlohmann::json drains_to_json(const std::vector<StatusDrain>& d)
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& x : d)
        list.push_back({{"kind", x.kind},
                        {"node_guid", x.node_guid},
                        {"port", x.port},
                        {"label", x.label},
                        {"since", x.since},
                        {"links", x.links}});
    return list;
}

std::vector<StatusDrain> drains_from_json(const nlohmann::json& j)
{
    std::vector<StatusDrain> out;
    for (const auto& e : j.get<std::vector<nlohmann::json>>())
        out.push_back(StatusDrain{e.at("kind").get<std::string>(), e.at("node_guid").get<std::string>(),
                                  e.at("port").get<unsigned>(), e.at("label").get<std::string>(),
                                  e.at("since").get<double>(), e.at("links").get<std::uint64_t>()});
    return out;
}

std::string drains_metrics(const std::vector<StatusDrain>& d)
{
    std::uint64_t links = 0;
    for (const auto& x : d) links += x.links;
    std::string o;
    o += "# HELP ibsmd_drains Switches and links drained for maintenance (ibsm drain).\n# TYPE ibsmd_drains gauge\n";
    o += "ibsmd_drains " + std::to_string(d.size()) + "\n";
    o += "# HELP ibsmd_drained_links Link ends drains take out of the routing.\n# TYPE ibsmd_drained_links gauge\n";
    o += "ibsmd_drained_links " + std::to_string(links) + "\n";
    o += "# HELP ibsmd_drain_info One sample per drain.\n# TYPE ibsmd_drain_info gauge\n";
    for (const auto& x : d)
        o += "ibsmd_drain_info{kind=\"" + escaped(x.kind) + "\",node_guid=\"" + escaped(x.node_guid) + "\",port=\"" +
             std::to_string(x.port) + "\",label=\"" + escaped(x.label) + "\"} 1\n";
    return o;
}

std::string drains_status_text(const std::vector<StatusDrain>& d)
{
    if (d.empty()) return "drains:       none\n";
    std::string o = "drains:       " + std::to_string(d.size()) + "\n";
    for (const auto& x : d)
        o += "  " + x.kind + " " + x.label + ": " + std::to_string(x.links) + " link(s) out of the routing since " +
             when(x.since) + "\n";
    return o;
}

} // namespace ibsm::daemon
