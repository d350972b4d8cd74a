#include "routing/analysis/report.h"

#include <charconv>
#include <cstdio>

namespace ibsm::routing::analysis {

namespace {

// Minimal JSON emitter: objects/arrays with automatic commas, pretty-printed.
class Json {
public:
    std::string take() { return std::move(out_); }

    Json& open(char c)
    {
        out_ += c;
        first_ = true;
        ++depth_;
        return *this;
    }
    Json& close(char c)
    {
        --depth_;
        if (!first_) newline();
        out_ += c;
        first_ = false;
        return *this;
    }
    Json& key(const char* k)
    {
        sep();
        str_raw(k);
        out_ += ": ";
        pending_value_ = true;
        return *this;
    }
    Json& obj(const char* k) { return key(k).open('{'); }
    Json& arr(const char* k) { return key(k).open('['); }
    Json& obj() { return item().open('{'); }
    Json& item()
    {
        sep();
        pending_value_ = true;
        return *this;
    }
    Json& s(const std::string& v)
    {
        value_start();
        str_raw(v);
        return *this;
    }
    Json& b(bool v)
    {
        value_start();
        out_ += v ? "true" : "false";
        return *this;
    }
    Json& u(std::uint64_t v)
    {
        value_start();
        out_ += std::to_string(v);
        return *this;
    }
    Json& d(double v)
    {
        value_start();
        char buf[32];
        auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, ec == std::errc() ? p : buf);
        return *this;
    }
    Json& null()
    {
        value_start();
        out_ += "null";
        return *this;
    }

private:
    void newline()
    {
        out_ += '\n';
        out_.append(static_cast<std::size_t>(depth_) * 2, ' ');
    }
    void sep()
    {
        if (!first_) out_ += ',';
        newline();
        first_ = false;
    }
    void value_start()
    {
        if (!pending_value_) sep();
        pending_value_ = false;
        first_ = false;
    }
    void str_raw(const std::string& v)
    {
        out_ += '"';
        for (char c : v) {
            switch (c) {
            case '"': out_ += "\\\""; break;
            case '\\': out_ += "\\\\"; break;
            case '\n': out_ += "\\n"; break;
            case '\t': out_ += "\\t"; break;
            case '\r': out_ += "\\r"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
                    out_ += buf;
                } else {
                    out_ += c;
                }
            }
        }
        out_ += '"';
    }

    std::string out_;
    bool first_ = true;
    bool pending_value_ = false;
    int depth_ = 0;
};

void json_port(Json& j, const char* k, const NamedPort& p)
{
    j.obj(k);
    j.key("name").s(p.name);
    j.key("guid").s(p.guid.str());
    j.key("port").u(p.port);
    j.close('}');
}

void json_link(Json& j, const NamedLink& l)
{
    j.obj();
    json_port(j, "from", l.from);
    json_port(j, "to", l.to);
    j.close('}');
}

void json_pairs(Json& j, const char* k, const std::vector<NamedPair>& pairs)
{
    j.arr(k);
    for (const NamedPair& p : pairs) {
        j.obj();
        j.key("source").s(p.source);
        j.key("source_guid").s(p.source_guid.str());
        j.key("dlid").u(p.dlid);
        j.key("destination").s(p.destination);
        j.close('}');
    }
    j.close(']');
}

void json_credit(Json& j, const char* k, const CreditReport& c)
{
    j.obj(k);
    j.key("computed").b(c.computed);
    if (c.computed) {
        j.key("has_loop").b(c.has_loop());
        j.arr("vls");
        for (const VlCreditReport& v : c.vls) {
            j.obj();
            j.key("vl").u(v.vl);
            j.key("dependencies").u(v.dependencies);
            j.key("has_loop").b(!v.cycle.empty());
            j.arr("cycle");
            for (const NamedLink& l : v.cycle) json_link(j, l);
            j.close(']');
            j.close('}');
        }
        j.close(']');
    }
    j.close('}');
}

void json_load(Json& j, const char* k, const LoadReport& l)
{
    j.obj(k);
    j.key("channels").u(l.channels);
    j.key("max").u(l.max);
    j.key("mean").d(l.mean);
    if (l.max_link)
        j.key("max_link").s(link_label(*l.max_link));
    else
        j.key("max_link").null();
    j.close('}');
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
    j.open('{');
    j.key("engine").s(r.engine);
    j.obj("fabric");
    j.key("switches").u(r.switches);
    j.key("hosts").u(r.hosts);
    j.key("links").u(r.links);
    j.close('}');

    j.obj("lids");
    j.key("ca_ports").u(r.lids.ca_ports);
    j.key("switches").u(r.lids.switches_with_lid);
    j.key("lids").u(r.lids.lids);
    j.key("min").u(r.lids.min_lid);
    j.key("max").u(r.lids.max_lid);
    j.key("linear_fdb_top").u(r.lids.linear_fdb_top);
    j.arr("lmc");
    for (unsigned l : r.lids.lmcs) j.item().u(l);
    j.close(']');
    j.key("switches_without_lft").u(r.lids.switches_without_lft);
    j.close('}');

    j.obj("pairs");
    for (const ClassReport& c : r.classes) {
        j.obj(to_string(c.cls));
        j.key("counted").b(c.counted);
        j.key("pairs").u(c.pairs);
        j.key("delivered").u(c.delivered);
        j.key("unreachable").u(c.unreachable);
        j.key("loops").u(c.loops);
        j.obj("hops");
        j.key("mean").d(c.hops_mean);
        j.key("max").u(c.hops_max);
        j.key("shortest_mean").d(c.shortest_mean);
        j.close('}');
        j.obj("stretch");
        j.key("mean").d(c.stretch_mean);
        j.key("max").d(c.stretch_max);
        j.key("nonminimal_pairs").u(c.nonminimal);
        j.close('}');
        json_pairs(j, "unreachable_examples", c.unreachable_examples);
        json_pairs(j, "loop_examples", c.loop_examples);
        j.close('}');
    }
    j.close('}');

    j.obj("credit_loops");
    json_credit(j, "ca_traffic", r.credit_ca_only);
    json_credit(j, "all_traffic", r.credit_all);
    j.close('}');

    j.obj("edge_forwarding");
    j.key("routes").u(r.efi_routes);
    j.key("pair_routes").b(r.pair_routes);
    json_load(j, "all_links", r.efi_all);
    json_load(j, "switch_links", r.efi_switch_links);
    j.close('}');

    if (r.ebb) {
        const EbbResult& e = *r.ebb;
        j.obj("ebb");
        j.key("value").d(e.ebb);
        j.key("min").d(e.min);
        j.key("max").d(e.max);
        j.key("bisections").u(e.bisections);
        j.key("seed").u(e.seed);
        j.key("pattern").s(e.bidirectional ? "bidirectional" : "unidirectional");
        j.key("hosts").u(e.hosts);
        j.key("flows_per_pattern").u(e.flows_per_pattern);
        j.key("unroutable_flows").u(e.unroutable_flows);
        j.close('}');
    } else {
        j.key("ebb").null();
    }
    if (r.shifts) {
        const ShiftResult& s = *r.shifts;
        j.obj("shifts");
        j.key("average").d(s.average);
        j.key("min").d(s.minimum);
        j.key("worst_shift").u(s.worst_shift);
        j.key("hosts").u(s.hosts);
        j.key("order").s(r.host_order);
        j.key("unroutable_flows").u(s.unroutable_flows);
        j.close('}');
    } else {
        j.key("shifts").null();
    }

    j.obj("seconds");
    for (const auto& [stage, sec] : r.seconds) j.key(stage.c_str()).d(sec);
    j.close('}');
    j.close('}');
    return j.take() + "\n";
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
