// Why: --print-config must show the policy ibsmd runs with, in a form that
// can be pasted back. So values go out as the YAML spells them (MTU in
// bytes, rate in Gb/s, P_Keys and service IDs in hex, ranges FIRST-LAST),
// and selectors that were not given are left out, as the file left them.
#include "config/qos_describe.h"

#include "config/config.h"
#include "config/qos_parse.h"
#include "mad/port_codes.h"

#include <cstdio>

namespace ibsm::config {
namespace {

std::string hex(std::uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

template <class T, class F>
std::vector<std::string> range_texts(const std::vector<QosRange<T>>& ranges, F&& show)
{
    std::vector<std::string> out;
    for (const auto& r : ranges) out.push_back(r.first == r.last ? show(r.first) : show(r.first) + "-" + show(r.last));
    return out;
}

void emit_group(YAML::Emitter& out, const QosPortGroup& g)
{
    out << YAML::Flow << YAML::BeginMap;
    if (!g.node_desc.empty()) out << YAML::Key << "node_desc" << YAML::Value << YAML::Flow << g.node_desc;
    auto guids = [&](const char* key, const std::vector<Guid>& list) {
        if (list.empty()) return;
        out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (auto guid : list) out << guid.str();
        out << YAML::EndSeq;
    };
    guids("port_guids", g.port_guids);
    guids("node_guids", g.node_guids);
    if (!g.partitions.empty()) {
        out << YAML::Key << "partitions" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (auto pk : g.partitions) out << hex16(pk);
        out << YAML::EndSeq;
    }
    if (g.all_cas) out << YAML::Key << "all_cas" << YAML::Value << true;
    if (g.all_switches) out << YAML::Key << "all_switches" << YAML::Value << true;
    out << YAML::EndMap;
}

void emit_level(YAML::Emitter& out, const QosLevel& l)
{
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "sl" << YAML::Value << static_cast<unsigned>(l.sl);
    if (l.mtu) out << YAML::Key << "mtu" << YAML::Value << mad::mtu_bytes(*l.mtu);
    if (l.rate) out << YAML::Key << "rate" << YAML::Value << detail::rate_gbps_text(*l.rate);
    if (l.packet_life) out << YAML::Key << "packet_life" << YAML::Value << static_cast<unsigned>(*l.packet_life);
    out << YAML::EndMap;
}

void emit_rule(YAML::Emitter& out, const QosRule& r)
{
    out << YAML::Flow << YAML::BeginMap;
    if (r.source) out << YAML::Key << "source" << YAML::Value << *r.source;
    if (r.destination) out << YAML::Key << "destination" << YAML::Value << *r.destination;
    if (!r.service_ids.empty())
        out << YAML::Key << "service_id" << YAML::Value << YAML::Flow
            << range_texts(r.service_ids, [](std::uint64_t v) { return hex(v); });
    if (!r.pkeys.empty()) {
        out << YAML::Key << "pkey" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (auto pk : r.pkeys) out << hex16(pk);
        out << YAML::EndSeq;
    }
    if (!r.qos_classes.empty())
        out << YAML::Key << "qos_class" << YAML::Value << YAML::Flow
            << range_texts(r.qos_classes, [](std::uint16_t v) { return std::to_string(v); });
    out << YAML::Key << "level" << YAML::Value << r.level << YAML::EndMap;
}

void emit_sl2vl(YAML::Emitter& out, const QosSl2Vl& t)
{
    out << YAML::Flow << YAML::BeginSeq;
    for (auto vl : t) out << static_cast<unsigned>(vl);
    out << YAML::EndSeq;
}

void emit_vlarb(YAML::Emitter& out, const QosVlArb& t)
{
    auto entries = [&](const char* key, const std::vector<QosVlArbEntry>& list) {
        out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (const auto& e : list)
            out << YAML::Flow << YAML::BeginMap << YAML::Key << "vl" << YAML::Value << static_cast<unsigned>(e.vl)
                << YAML::Key << "weight" << YAML::Value << static_cast<unsigned>(e.weight) << YAML::EndMap;
        out << YAML::EndSeq;
    };
    out << YAML::Flow << YAML::BeginMap;
    entries("high", t.high);
    entries("low", t.low);
    out << YAML::Key << "high_limit" << YAML::Value << static_cast<unsigned>(t.high_limit) << YAML::EndMap;
}

} // namespace

void emit_qos(YAML::Emitter& out, const QosConfig& q)
{
    if (!q.enabled) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
    }
    out << YAML::BeginMap;
    out << YAML::Key << "port_groups" << YAML::Value << YAML::BeginMap;
    for (const auto& g : q.port_groups) {
        out << YAML::Key << g.name << YAML::Value;
        emit_group(out, g);
    }
    out << YAML::EndMap;
    out << YAML::Key << "levels" << YAML::Value << YAML::BeginMap;
    for (const auto& l : q.levels) {
        out << YAML::Key << l.name << YAML::Value;
        emit_level(out, l);
    }
    out << YAML::EndMap;
    out << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
    for (const auto& r : q.rules) emit_rule(out, r);
    out << YAML::EndSeq;

    out << YAML::Key << "sl2vl" << YAML::Value << YAML::BeginMap;
    const std::pair<const char*, const std::optional<QosSl2Vl>*> classes[] = {
        {"ca", &q.sl2vl_ca}, {"switch", &q.sl2vl_switch}, {"switch_port0", &q.sl2vl_switch_port0}};
    for (const auto& [key, table] : classes)
        if (*table) {
            out << YAML::Key << key << YAML::Value;
            emit_sl2vl(out, **table);
        }
    if (!q.sl2vl_groups.empty()) {
        out << YAML::Key << "groups" << YAML::Value << YAML::BeginMap;
        for (const auto& [name, table] : q.sl2vl_groups) {
            out << YAML::Key << name << YAML::Value;
            emit_sl2vl(out, table);
        }
        out << YAML::EndMap;
    }
    out << YAML::EndMap;

    out << YAML::Key << "vlarb" << YAML::Value << YAML::BeginMap;
    const std::pair<const char*, const std::optional<QosVlArb>*> arb[] = {{"ca", &q.vlarb_ca},
                                                                          {"switch", &q.vlarb_switch}};
    for (const auto& [key, table] : arb)
        if (*table) {
            out << YAML::Key << key << YAML::Value;
            emit_vlarb(out, **table);
        }
    if (!q.vlarb_groups.empty()) {
        out << YAML::Key << "groups" << YAML::Value << YAML::BeginMap;
        for (const auto& [name, table] : q.vlarb_groups) {
            out << YAML::Key << name << YAML::Value;
            emit_vlarb(out, table);
        }
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
    out << YAML::EndMap;
}

void emit_mkey(YAML::Emitter& out, const MkeyConfig& k)
{
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "mode" << YAML::Value << std::string(detail::to_string(k.mode));
    if (!k.secret_file.empty()) out << YAML::Key << "secret_file" << YAML::Value << k.secret_file;
    out << YAML::Key << "protect_bits" << YAML::Value << static_cast<unsigned>(k.protect_bits);
    out << YAML::Key << "lease_period_s" << YAML::Value << k.lease_period_s;
    out << YAML::EndMap;
}

std::string qos_text(const QosConfig& qos)
{
    YAML::Emitter out;
    out.SetMapFormat(YAML::Flow);
    out.SetSeqFormat(YAML::Flow);
    emit_qos(out, qos);
    return out.c_str();
}

std::string mkey_text(const MkeyConfig& mkey)
{
    YAML::Emitter out;
    emit_mkey(out, mkey);
    return out.c_str();
}

} // namespace ibsm::config
