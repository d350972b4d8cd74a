#include "daemon/maint/drain_store.h"

#include "daemon/core/atomic_file.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <ctime>
#include <fstream>
#include <sstream>

namespace ibsm::daemon {

namespace {

constexpr int format_version = 1;

Guid guid_of(const nlohmann::json& v)
{
    const auto s = v.get<std::string>();
    std::uint64_t g = 0;
    if (s.size() < 3 || s.size() > 18 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        throw std::runtime_error("bad GUID '" + s + "'");
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), g, 16);
    if (ec != std::errc() || p != s.data() + s.size() || g == 0) throw std::runtime_error("bad GUID '" + s + "'");
    return Guid(g);
}

PortNum port_of(const nlohmann::json& v, unsigned min)
{
    const auto n = v.get<unsigned>();
    if (n < min || n > PortNum::max_port) throw std::runtime_error("bad port " + std::to_string(n));
    return PortNum(static_cast<std::uint8_t>(n));
}

health::PortId end_of(const nlohmann::json& e) { return {guid_of(e.at("node_guid")), port_of(e.at("port"), 1)}; }

nlohmann::json end_json(const health::PortId& id) { return {{"node_guid", id.node.str()}, {"port", id.port.value()}}; }

std::vector<DrainRecord> parse(const std::string& text)
{
    const auto j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("version", 0) != format_version || !j.contains("drains") || !j["drains"].is_array())
        throw std::runtime_error("expected {\"version\": 1, \"drains\": [...]}");
    std::vector<DrainRecord> out;
    for (const auto& e : j["drains"]) {
        DrainRecord d;
        d.kind = e.at("kind").get<std::string>();
        if (d.kind != "switch" && d.kind != "link") throw std::runtime_error("bad kind '" + d.kind + "'");
        d.node = guid_of(e.at("node_guid"));
        d.port = port_of(e.at("port"), d.kind == "link" ? 1 : 0);
        d.label = e.value("label", d.node.str());
        d.since = e.value("since", 0.0);
        for (const auto& l : e.at("links")) d.links.push_back(end_of(l));
        if (e.contains("kept") && !e["kept"].is_null()) d.kept = end_of(e["kept"]);
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace

DrainStore::DrainStore(std::filesystem::path state_dir) : file_(std::move(state_dir) / "drains.json") {}

DrainStore::Loaded DrainStore::load() const
{
    Loaded out;
    out.error = load_or_set_aside(
        file_, [&](const std::string& text) { out.drains = parse(text); },
        "nothing is drained from it: drain again (`ibsm drain`) or restore a good copy and restart");
    return out;
}

void DrainStore::save(const std::vector<DrainRecord>& drains) const
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto& d : drains) {
        nlohmann::json links = nlohmann::json::array();
        for (const auto& l : d.links) links.push_back(end_json(l));
        list.push_back({{"kind", d.kind},
                        {"node_guid", d.node.str()},
                        {"port", d.port.value()},
                        {"label", d.label},
                        {"since", d.since},
                        {"links", std::move(links)},
                        {"kept", d.kept ? end_json(*d.kept) : nlohmann::json(nullptr)}});
    }
    const nlohmann::json j{{"version", format_version}, {"drains", std::move(list)}};
    write_file_atomically(file_, j.dump(2) + "\n");
}

} // namespace ibsm::daemon
