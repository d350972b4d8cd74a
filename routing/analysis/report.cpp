#include "routing/analysis/report.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace ibsm::routing::analysis {

namespace {

using Json = nlohmann::ordered_json;

Json json_port(const NamedPort& p)
{
    return Json{{"name", p.name}, {"guid", p.guid.str()}, {"port", p.port}};
}

Json json_link(const NamedLink& l)
{
    return Json{{"from", json_port(l.from)}, {"to", json_port(l.to)}};
}

Json json_pairs(const std::vector<NamedPair>& pairs)
{
    Json a = Json::array();
    for (const NamedPair& p : pairs)
        a.push_back(Json{{"source", p.source},
                         {"source_guid", p.source_guid.str()},
                         {"dlid", p.dlid},
                         {"destination", p.destination}});
    return a;
}

Json json_credit(const CreditReport& c)
{
    Json j{{"computed", c.computed}};
    if (c.computed) {
        j["has_loop"] = c.has_loop();
        Json vls = Json::array();
        for (const VlCreditReport& v : c.vls) {
            Json cycle = Json::array();
            for (const NamedLink& l : v.cycle) cycle.push_back(json_link(l));
            vls.push_back(Json{{"vl", v.vl},
                               {"dependencies", v.dependencies},
                               {"has_loop", !v.cycle.empty()},
                               {"cycle", std::move(cycle)}});
        }
        j["vls"] = std::move(vls);
    }
    return j;
}

Json json_load(const LoadReport& l)
{
    return Json{{"channels", l.channels},
                {"max", l.max},
                {"mean", l.mean},
                {"max_link", l.max_link ? Json(link_label(*l.max_link)) : Json(nullptr)}};
}

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

void text_credit(std::string& o, const char* title, const CreditReport& c)
{
    o += "  ";
    o += title;
    if (!c.computed) {
        o += ": not computed\n";
        return;
    }
    o += c.has_loop() ? ": CREDIT LOOP\n" : ": none\n";
    for (const VlCreditReport& v : c.vls) {
        o += "    VL " + std::to_string(v.vl) + ": " + std::to_string(v.dependencies) + " dependencies, ";
        if (v.cycle.empty()) {
            o += "acyclic\n";
            continue;
        }
        o += "cycle of " + std::to_string(v.cycle.size()) + " links:\n";
        for (const NamedLink& l : v.cycle) o += "      " + link_label(l) + "\n";
    }
}

} // namespace

std::string link_label(const NamedLink& l)
{
    return l.from.name + "[" + std::to_string(l.from.port) + "] -> " + l.to.name + "[" + std::to_string(l.to.port) +
           "]";
}

std::string to_json(const Report& r)
{
    Json j;
    j["engine"] = r.engine;
    j["fabric"] = Json{{"switches", r.switches}, {"hosts", r.hosts}, {"links", r.links}};
    j["lids"] = Json{{"ca_ports", r.lids.ca_ports},
                     {"switches", r.lids.switches_with_lid},
                     {"lids", r.lids.lids},
                     {"min", r.lids.min_lid},
                     {"max", r.lids.max_lid},
                     {"linear_fdb_top", r.lids.linear_fdb_top},
                     {"lmc", r.lids.lmcs},
                     {"switches_without_lft", r.lids.switches_without_lft}};

    Json pairs = Json::object();
    for (const ClassReport& c : r.classes)
        pairs[to_string(c.cls)] =
            Json{{"counted", c.counted},
                 {"pairs", c.pairs},
                 {"delivered", c.delivered},
                 {"unreachable", c.unreachable},
                 {"loops", c.loops},
                 {"hops", Json{{"mean", c.hops_mean}, {"max", c.hops_max}, {"shortest_mean", c.shortest_mean}}},
                 {"stretch", Json{{"mean", c.stretch_mean}, {"max", c.stretch_max}, {"nonminimal_pairs", c.nonminimal}}},
                 {"unreachable_examples", json_pairs(c.unreachable_examples)},
                 {"loop_examples", json_pairs(c.loop_examples)}};
    j["pairs"] = std::move(pairs);

    j["credit_loops"] = Json{{"ca_traffic", json_credit(r.credit_ca_only)}, {"all_traffic", json_credit(r.credit_all)}};
    j["edge_forwarding"] = Json{
        {"routes", r.efi_routes}, {"pair_routes", r.pair_routes}, {"all_links", json_load(r.efi_all)}, {"switch_links", json_load(r.efi_switch_links)}};

    if (r.ebb) {
        const EbbResult& e = *r.ebb;
        j["ebb"] = Json{{"value", e.ebb},
                        {"min", e.min},
                        {"max", e.max},
                        {"bisections", e.bisections},
                        {"seed", e.seed},
                        {"pattern", e.bidirectional ? "bidirectional" : "unidirectional"},
                        {"hosts", e.hosts},
                        {"flows_per_pattern", e.flows_per_pattern},
                        {"unroutable_flows", e.unroutable_flows}};
    } else {
        j["ebb"] = nullptr;
    }
    if (r.shifts) {
        const ShiftResult& s = *r.shifts;
        j["shifts"] = Json{{"average", s.average},
                           {"min", s.minimum},
                           {"worst_shift", s.worst_shift},
                           {"hosts", s.hosts},
                           {"order", r.host_order},
                           {"unroutable_flows", s.unroutable_flows}};
    } else {
        j["shifts"] = nullptr;
    }

    Json seconds = Json::object();
    for (const auto& [stage, sec] : r.seconds) seconds[stage] = sec;
    j["seconds"] = std::move(seconds);
    // Node descriptions are bytes from the fabric (or a file), not
    // necessarily UTF-8: invalid sequences become U+FFFD instead of making
    // the whole document invalid JSON (or throwing).
    return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string to_text(const Report& r)
{
    std::string o;
    o += "Routing analysis";
    if (!r.engine.empty()) o += " (" + r.engine + ")";
    o += "\n  fabric: " + std::to_string(r.switches) + " switches, " + std::to_string(r.hosts) + " host ports, " +
         std::to_string(r.links) + " links\n";
    o += "  LIDs: " + std::to_string(r.lids.lids) + " in use (" + std::to_string(r.lids.ca_ports) + " CA ports, " +
         std::to_string(r.lids.switches_with_lid) + " switches), range " + std::to_string(r.lids.min_lid) + ".." +
         std::to_string(r.lids.max_lid) + ", LinearFDBTop " + std::to_string(r.lids.linear_fdb_top) + ", LMC";
    for (unsigned l : r.lids.lmcs) {
        o += ' ';
        o += std::to_string(l);
    }
    o += "\n";
    if (r.lids.switches_without_lft)
        o += "  WARNING: " + std::to_string(r.lids.switches_without_lft) + " switches have no forwarding table\n";

    if (r.pair_routes)
        o += "  per-pair path routing: CA destinations scored on the DLID each pair uses (path file)" +
             (r.pair_missing ? ", " + std::to_string(r.pair_missing) + " pairs name ports the fabric lacks" : std::string()) +
             "\n";
    o += "\nReachability (pairs of source port and destination LID)\n";
    for (const ClassReport& c : r.classes) {
        o += "  " + std::string(to_string(c.cls)) + ": ";
        if (!c.counted) {
            o += "not counted (switch traffic excluded)\n";
            continue;
        }
        o += std::to_string(c.pairs) + " pairs, " + std::to_string(c.unreachable) + " unreachable, " +
             std::to_string(c.loops) + " looping";
        if (c.delivered)
            o += "; hops mean " + fmt("%.3f", c.hops_mean) + " max " + std::to_string(c.hops_max) + "; stretch mean " +
                 fmt("%.4f", c.stretch_mean) + " max " + fmt("%.3f", c.stretch_max) + ", " +
                 std::to_string(c.nonminimal) + " non-minimal";
        o += "\n";
        for (const NamedPair& p : c.unreachable_examples)
            o += "    unreachable: " + p.source + " -> LID " + std::to_string(p.dlid) + " (" + p.destination + ")\n";
        for (const NamedPair& p : c.loop_examples)
            o += "    loop:        " + p.source + " -> LID " + std::to_string(p.dlid) + " (" + p.destination + ")\n";
    }

    o += "\nCredit loops (channel dependency graph cycles)\n";
    text_credit(o, "CA traffic", r.credit_ca_only);
    text_credit(o, "CA + switch traffic", r.credit_all);

    o += "\nEdge-forwarding index (" + std::to_string(r.efi_routes) + " CA-to-CA routes)\n";
    auto load = [&](const char* title, const LoadReport& l) {
        o += std::string("  ") + title + ": max " + std::to_string(l.max) + ", mean " + fmt("%.2f", l.mean) + " over " +
             std::to_string(l.channels) + " directed links";
        if (l.max_link) o += " (max on " + link_label(*l.max_link) + ")";
        o += "\n";
    };
    load("all links", r.efi_all);
    load("switch links", r.efi_switch_links);
    if (r.hosts > 1)
        o += "  max link load " + fmt("%.3f", static_cast<double>(r.efi_all.max) / static_cast<double>(r.hosts - 1)) +
             " (every host sends 1 in all, spread evenly over the others: seed 002 §5.2)\n";

    if (r.ebb) {
        const EbbResult& e = *r.ebb;
        o += "\nEffective bisection bandwidth: " + fmt("%.4f", e.ebb) + " of full (" + std::to_string(e.bisections) +
             " random " + (e.bidirectional ? "bidirectional" : "unidirectional") + " bisections, seed " +
             std::to_string(e.seed) + "; per pattern min " + fmt("%.4f", e.min) + " max " + fmt("%.4f", e.max) + ")\n";
        if (e.unroutable_flows) o += "  " + std::to_string(e.unroutable_flows) + " flows had no route (bandwidth 0)\n";
    }
    if (r.shifts) {
        const ShiftResult& s = *r.shifts;
        o += "Shift permutations (" + std::to_string(s.hosts) + " hosts in " + r.host_order + " order): average " +
             fmt("%.4f", s.average) + ", min " + fmt("%.4f", s.minimum) + " (shift " + std::to_string(s.worst_shift) +
             ")\n";
        if (s.unroutable_flows) o += "  " + std::to_string(s.unroutable_flows) + " flows had no route (bandwidth 0)\n";
    }
    return o;
}

} // namespace ibsm::routing::analysis
