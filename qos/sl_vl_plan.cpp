// The one SL/VL budget (see header for the combination).
//
// Why here and pure: the daemon needs the budget before routing (how many
// layers the engines may take) and the plan after it (what to program, the
// masks the gate checks, the SL the SA gives); `ibsm` and the tests need the
// same numbers without a fabric.
//
// Data structures: the policy's classes as the sorted list of SLs in use
// (SL 0 first), a QoS SL2VL table as 16 band numbers; a widened table is the
// programmed SL -> VL.
//
// Algorithm: bands = highest VL any configured SL2VL table names + 1 (every
// entry counts, not only the levels' SLs: with one layer the tables are
// programmed as written, and a host may use any SL); classes = distinct level
// SLs plus SL 0. The routing gets min(max_vls / bands, 16 / classes) layers.
// With L layers, host SL c*L+l travels on VL band(class c's SL)*L + l; SLs
// past classes*L (no host is told to use them) take class 0's VL for their
// layer, so stray traffic stays deadlock-free too.
#include "qos/sl_vl_plan.h"

#include <algorithm>
#include <set>

namespace ibsm::qos {

namespace {

constexpr unsigned num_sls = 16;
constexpr std::size_t max_vlarb_entries = 64; // IBA 7.6.9: 64 entries per priority

std::vector<std::uint8_t> class_sls(const config::QosConfig& qos)
{
    std::set<std::uint8_t> sls{0};
    for (const auto& l : qos.levels) sls.insert(static_cast<std::uint8_t>(l.sl & 0x0f));
    return {sls.begin(), sls.end()};
}

// Every configured SL2VL table with the name messages use.
std::vector<std::pair<std::string, const config::QosSl2Vl*>> sl2vl_tables(const config::QosConfig& qos)
{
    std::vector<std::pair<std::string, const config::QosSl2Vl*>> out;
    if (qos.sl2vl_ca) out.emplace_back("sl2vl.ca", &*qos.sl2vl_ca);
    if (qos.sl2vl_switch) out.emplace_back("sl2vl.switch", &*qos.sl2vl_switch);
    if (qos.sl2vl_switch_port0) out.emplace_back("sl2vl.switch_port0", &*qos.sl2vl_switch_port0);
    for (const auto& [group, table] : qos.sl2vl_groups) out.emplace_back("sl2vl.groups." + group, &table);
    return out;
}

struct Bands {
    unsigned count = 1;
    std::string where; // "sl2vl.ca maps SL 3 to VL 9" for the highest VL
};

Bands bands_of(const config::QosConfig& qos)
{
    Bands b;
    for (const auto& [name, table] : sl2vl_tables(qos))
        for (unsigned sl = 0; sl < num_sls; ++sl) {
            const unsigned vl = (*table)[sl];
            if (vl + 1 > b.count) {
                b.count = vl + 1;
                b.where = name + " maps SL " + std::to_string(sl) + " to VL " + std::to_string(vl);
            }
        }
    return b;
}

std::string plural(unsigned n, const char* one, const char* many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string qos_numbers(const RoutingBudget& b)
{
    return "qos has " + plural(b.levels, "level", "levels") + " in " + plural(b.classes, "SL class", "SL classes") +
           " and " + plural(b.bands, "VL band", "VL bands");
}

struct Shape {
    std::vector<std::uint8_t> sls; // class c's SL
    unsigned layers = 1;
};

// The programmed table: `bands` (nullopt: every SL in band 0) widened to L layers.
std::array<std::uint8_t, 16> widen(const std::optional<config::QosSl2Vl>& bands, const Shape& s)
{
    config::QosSl2Vl b{};
    if (bands) b = *bands;
    std::array<std::uint8_t, 16> out{};
    if (s.layers <= 1) return b;
    for (unsigned sl = 0; sl < num_sls; ++sl) {
        const unsigned cls = sl / s.layers;
        const unsigned layer = sl % s.layers;
        const unsigned band = b[cls < s.sls.size() ? s.sls[cls] : 0];
        out[sl] = static_cast<std::uint8_t>(band * s.layers + layer);
    }
    return out;
}

std::vector<config::QosVlArbEntry> widen(const std::vector<config::QosVlArbEntry>& entries, unsigned layers)
{
    std::vector<config::QosVlArbEntry> out;
    out.reserve(entries.size() * layers);
    for (const auto& e : entries)
        for (unsigned l = 0; l < layers; ++l)
            out.push_back({static_cast<std::uint8_t>(e.vl * layers + l), e.weight});
    return out;
}

// Without a configured arbitration: every VL of the plan weight 64 in the
// low table, as without a policy.
config::QosVlArb default_vlarb(unsigned vls)
{
    config::QosVlArb a;
    for (unsigned vl = 0; vl < vls; ++vl) a.low.push_back({static_cast<std::uint8_t>(vl), 64});
    return a;
}

// The arbitration tables of one class of port, or the message when widening
// overflows the 64 entries a table holds.
std::string fill_vlarb(PortVlTables& t, const std::optional<config::QosVlArb>& configured, unsigned layers,
                       unsigned vls, const std::string& name)
{
    const config::QosVlArb a = configured ? *configured : default_vlarb(vls);
    t.high = widen(a.high, configured ? layers : 1);
    t.low = widen(a.low, configured ? layers : 1);
    t.high_limit = a.high_limit;
    for (const auto* table : {&t.high, &t.low})
        if (table->size() > max_vlarb_entries)
            return name + (table == &t.high ? " high" : " low") + " has " +
                   std::to_string(table->size() / layers) + " entries, " + std::to_string(layers) +
                   " routing layers make " + std::to_string(table->size()) + " > 64";
    return {};
}

template <class T>
const T* find_named(const std::vector<std::pair<std::string, T>>& list, const std::string& name)
{
    for (const auto& [n, v] : list)
        if (n == name) return &v;
    return nullptr;
}

} // namespace

std::optional<RoutingBudget> routing_budget(const config::QosConfig& qos, unsigned max_vls, std::string* why)
{
    RoutingBudget b;
    max_vls = std::clamp(max_vls, 1u, 15u);
    if (!qos.enabled) {
        b.layers = max_vls;
        b.explain = "no qos: routing gets " + plural(max_vls, "layer", "layers");
        return b;
    }
    const Bands bands = bands_of(qos);
    b.bands = bands.count;
    b.classes = static_cast<unsigned>(class_sls(qos).size());
    b.levels = static_cast<unsigned>(qos.levels.size());
    if (b.bands > max_vls) {
        if (why)
            *why = bands.where + ": " + qos_numbers(b) + ", ports carry " + plural(max_vls, "VL", "VLs") + ": " +
                   std::to_string(b.bands) + " > " + std::to_string(max_vls);
        return std::nullopt;
    }
    b.layers = std::min(max_vls / b.bands, num_sls / b.classes);
    b.explain = qos_numbers(b) + ", ports carry " + plural(max_vls, "VL", "VLs") + ": routing gets " +
                plural(b.layers, "layer", "layers");
    return b;
}

std::string budget_refusal(const std::string& engine, unsigned layers_needed, const RoutingBudget& budget,
                           unsigned max_vls)
{
    const std::string head = engine + " needs " + plural(layers_needed, "layer", "layers") + ", " +
                             qos_numbers(budget);
    if (layers_needed * budget.bands > max_vls)
        return head + ", ports carry " + plural(max_vls, "VL", "VLs") + ": " + std::to_string(layers_needed) +
               " × " + std::to_string(budget.bands) + " = " + std::to_string(layers_needed * budget.bands) + " > " +
               std::to_string(max_vls);
    if (layers_needed * budget.classes > num_sls)
        return head + ": " + std::to_string(layers_needed) + " × " + std::to_string(budget.classes) + " = " +
               std::to_string(layers_needed * budget.classes) + " SLs > 16";
    return head + ", ports carry " + plural(max_vls, "VL", "VLs") + ": routing gets " +
           plural(budget.layers, "layer", "layers");
}

std::variant<SlVlPlan, std::string> plan_sl_vl(const config::QosConfig& qos, unsigned layers, unsigned max_vls)
{
    SlVlPlan p;
    p.layers = std::max(1u, layers);
    max_vls = std::clamp(max_vls, 1u, 15u);
    if (!qos.enabled) {
        // Today's tables: identity over the routing's VLs, every VL weighted
        // (the programmer caps both by each port's operational VLs).
        p.vls = p.layers;
        for (unsigned sl = 0; sl < num_sls; ++sl) p.ca.sl2vl[sl] = static_cast<std::uint8_t>(sl % p.layers);
        p.ca.low = default_vlarb(max_vls).low;
        p.switch_external = p.ca;
        p.switch_port0 = p.ca;
        p.switch_port0.low.clear();
        for (unsigned sl = 0; sl < num_sls; ++sl) {
            p.vl_mask_of_routing_sl[sl] = static_cast<std::uint16_t>(1u << (sl % p.layers));
            p.class_of_sl[sl] = 0;
        }
        return p;
    }
    std::string why;
    const auto budget = routing_budget(qos, max_vls, &why);
    if (!budget) return why;
    if (p.layers > budget->layers)
        return budget_refusal("the routing", p.layers, *budget, max_vls);

    p.from_policy = true;
    Shape shape{class_sls(qos), p.layers};
    p.vls = budget->bands * p.layers;
    for (std::size_t c = 0; c < shape.sls.size(); ++c) p.class_of_sl[shape.sls[c]] = static_cast<std::uint8_t>(c);

    p.ca.sl2vl = widen(qos.sl2vl_ca, shape);
    p.switch_external.sl2vl = widen(qos.sl2vl_switch, shape);
    p.switch_port0.sl2vl = widen(qos.sl2vl_switch_port0, shape);
    if (auto e = fill_vlarb(p.ca, qos.vlarb_ca, p.layers, p.vls, "vlarb.ca"); !e.empty()) return e;
    if (auto e = fill_vlarb(p.switch_external, qos.vlarb_switch, p.layers, p.vls, "vlarb.switch"); !e.empty())
        return e;

    // Groups with a table of their own, in configuration order of the groups.
    for (std::size_t g = 0; g < qos.port_groups.size(); ++g) {
        const std::string& name = qos.port_groups[g].name;
        const auto* sl2vl = find_named(qos.sl2vl_groups, name);
        const auto* vlarb = find_named(qos.vlarb_groups, name);
        if (!sl2vl && !vlarb) continue;
        PortVlTables t = p.ca;
        if (sl2vl) t.sl2vl = widen(std::optional<config::QosSl2Vl>(*sl2vl), shape);
        if (vlarb)
            if (auto e = fill_vlarb(t, *vlarb, p.layers, p.vls, "vlarb.groups." + name); !e.empty()) return e;
        p.ca_groups.emplace_back(g, std::move(t));
    }

    // Between switches a pair on layer l may carry any class's SL: its VLs
    // are those the external and port-0 tables give each class on layer l.
    for (unsigned l = 0; l < num_sls; ++l) {
        const unsigned layer = l % p.layers;
        std::uint16_t mask = 0;
        for (std::size_t c = 0; c < shape.sls.size(); ++c) {
            const unsigned sl = p.layers <= 1 ? shape.sls[c] : static_cast<unsigned>(c) * p.layers + layer;
            mask = static_cast<std::uint16_t>(mask | 1u << p.switch_external.sl2vl[sl] |
                                              1u << p.switch_port0.sl2vl[sl]);
        }
        p.vl_mask_of_routing_sl[l] = mask;
    }
    return p;
}

} // namespace ibsm::qos
