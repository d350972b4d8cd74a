#include "daemon/health/isolation_store.h"

#include "daemon/core/atomic_file.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <ctime>
#include <optional>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace ibsm::daemon {

namespace {

constexpr int format_version = 1;

// "0x0002c90300001234", as Guid::str() writes it.
std::optional<Guid> parse_guid(const std::string& text)
{
    if (text.size() < 3 || text.compare(0, 2, "0x") != 0) return std::nullopt;
    std::uint64_t v = 0;
    const auto* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data() + 2, end, v, 16);
    if (ec != std::errc() || p != end) return std::nullopt;
    return Guid(v);
}

struct Parsed {
    Isolations isolations;
    NoDiscover no_discover;
};

Parsed parse(const std::string& text)
{
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("version", 0) != format_version || !j.contains("isolated") ||
        !j["isolated"].is_array())
        throw std::runtime_error("expected {\"version\": 1, \"isolated\": [...]}");
    Parsed parsed;
    Isolations& out = parsed.isolations;
    for (const auto& e : j["isolated"]) {
        const auto guid = parse_guid(e.at("node_guid").get<std::string>());
        const auto port = e.at("port").get<unsigned>();
        if (!guid || guid->is_zero() || port == 0 || port > 254)
            throw std::runtime_error("bad entry " + e.dump());
        out[health::PortId{*guid, PortNum(static_cast<std::uint8_t>(port))}] =
            Isolation{e.value("rule", std::string("operator")), e.value("reason", std::string()), e.value("since", 0.0)};
    }
    if (j.contains("no_discover")) {
        if (!j["no_discover"].is_array()) throw std::runtime_error("expected \"no_discover\": [...]");
        for (const auto& e : j["no_discover"]) {
            const auto guid = parse_guid(e.at("node_guid").get<std::string>());
            if (!guid || guid->is_zero()) throw std::runtime_error("bad entry " + e.dump());
            parsed.no_discover[*guid] =
                Isolation{e.value("rule", std::string()), e.value("reason", std::string()), e.value("since", 0.0)};
        }
    }
    return parsed;
}

} // namespace

IsolationStore::IsolationStore(std::filesystem::path state_dir) : file_(std::move(state_dir) / "isolated_links.json") {}

IsolationStore::Loaded IsolationStore::load() const
{
    Loaded out;
    out.error = load_or_set_aside(
        file_,
        [&](const std::string& text) {
            auto parsed = parse(text);
            out.isolations = std::move(parsed.isolations);
            out.no_discover = std::move(parsed.no_discover);
        },
        "no link is isolated from it: isolate the links again (`ibsm port isolate`) or restore a good copy and "
        "restart");
    return out;
}

void IsolationStore::save(const Isolations& isolations, const NoDiscover& no_discover) const
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [id, iso] : isolations)
        list.push_back({{"node_guid", id.node.str()},
                        {"port", id.port.value()},
                        {"rule", iso.rule},
                        {"reason", iso.reason},
                        {"since", iso.since}});
    nlohmann::json j{{"version", format_version}, {"isolated", list}};
    if (!no_discover.empty()) {
        nlohmann::json nodes = nlohmann::json::array();
        for (const auto& [guid, why] : no_discover)
            nodes.push_back({{"node_guid", guid.str()}, {"rule", why.rule}, {"reason", why.reason}, {"since", why.since}});
        j["no_discover"] = std::move(nodes);
    }
    write_file_atomically(file_, j.dump(2) + "\n");
}

} // namespace ibsm::daemon
