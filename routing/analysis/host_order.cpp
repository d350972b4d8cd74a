#include "routing/analysis/host_order.h"

#include <charconv>
#include <stdexcept>
#include <unordered_map>

namespace ibsm::routing::analysis {

namespace {

std::string trim(std::string s)
{
    auto hash = s.find('#');
    if (hash != std::string::npos) s.erase(hash);
    auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    auto e = s.find_last_not_of(" \t\r\n");
    s = s.substr(b, e - b + 1);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return s;
}

} // namespace

std::vector<std::int32_t> resolve_host_order(const Network& net, const std::vector<std::string>& lines)
{
    const auto& fabric = net.fabric();
    std::unordered_map<std::string, std::vector<std::int32_t>> by_name;
    std::unordered_map<std::uint64_t, std::vector<std::int32_t>> by_guid; // node and port GUIDs
    for (std::int32_t e : net.hosts_by_name()) {
        const Endpoint& ep = net.endpoint(e);
        const auto& node = fabric.node(ep.port.node);
        by_name[node.description].push_back(e);
        by_name[node.description + "/" + std::to_string(ep.port.port.value())].push_back(e);
        by_guid[node.guid.value()].push_back(e);
        Guid pg = fabric.port(ep.port).guid;
        if (!pg.is_zero() && pg != node.guid) by_guid[pg.value()].push_back(e);
    }
    // A node's ports in port order (hosts_by_name lists them that way within a node).
    std::vector<std::int32_t> order;
    std::vector<std::size_t> seen_on(net.endpoints().size(), 0);
    for (std::size_t ln = 0; ln < lines.size(); ++ln) {
        std::string tok = trim(lines[ln]);
        if (tok.empty()) continue;
        const std::string where = "line " + std::to_string(ln + 1) + ": ";
        std::vector<std::int32_t> hit;
        if (tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
            std::uint64_t g = 0;
            auto [p, ec] = std::from_chars(tok.data() + 2, tok.data() + tok.size(), g, 16);
            if (ec != std::errc() || p != tok.data() + tok.size())
                throw std::invalid_argument(where + "bad GUID '" + tok + "'");
            auto it = by_guid.find(g);
            if (it != by_guid.end()) hit = it->second;
        } else if (auto it = by_name.find(tok); it != by_name.end()) {
            hit = it->second;
        } else if (tok.find_first_not_of("0123456789") == std::string::npos) {
            unsigned long lid = 0;
            auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), lid);
            if (ec != std::errc() || lid > 0xFFFF) throw std::invalid_argument(where + "bad LID '" + tok + "'");
            std::int32_t e = net.lid_owner(static_cast<std::uint32_t>(lid));
            if (e >= 0 && net.endpoint(e).is_switch)
                throw std::invalid_argument(where + "LID " + tok + " belongs to switch " + net.endpoint(e).name +
                                            ", not a host");
            if (e >= 0) hit.push_back(e);
        }
        if (hit.empty()) {
            for (const auto& n : fabric.nodes())
                if (n.is_switch() && (n.description == tok || n.guid.str() == tok))
                    throw std::invalid_argument(where + "'" + tok + "' is a switch, not a host");
            throw std::invalid_argument(where + "'" + tok + "' names no host (CA port with a LID) in the topology");
        }
        for (std::int32_t e : hit) {
            auto ei = static_cast<std::size_t>(e);
            if (seen_on[ei])
                throw std::invalid_argument(where + "host " + net.endpoint(e).name + " already listed on line " +
                                            std::to_string(seen_on[ei]));
            seen_on[ei] = ln + 1;
            order.push_back(e);
        }
    }
    if (order.empty()) throw std::invalid_argument("the host order names no hosts");
    return order;
}

} // namespace ibsm::routing::analysis
