// The verdict's wording, shared by the full and the incremental gate (see
// verdict_parts.h).
#include "routing/verdict_parts.h"

#include <algorithm>

namespace ibsm::routing::detail {

namespace a = analysis;

namespace {

const char* class_label(a::PairClass c)
{
    switch (c) {
    case a::PairClass::ca_to_ca: return "CA";
    case a::PairClass::ca_to_switch: return "CA→switch";
    case a::PairClass::switch_to_ca: return "switch→CA";
    case a::PairClass::switch_to_switch: return "switch";
    }
    return "?";
}

std::string example(const a::Network& net, std::int32_t source, std::uint32_t lid)
{
    if (source < 0) return {};
    const std::int32_t owner = net.lid_owner(lid);
    return ", e.g. " + net.endpoint(source).name + " → " + (owner >= 0 ? net.endpoint(owner).name : "?") +
           " (LID " + std::to_string(lid) + ")";
}

// "credit loop on VL 0 in CA traffic: a[1] → b[2] → c[3] → a[1]" (at most 8 links shown).
std::string credit_loop_text(const a::Network& net, const a::CreditLoops& loops, const char* traffic)
{
    for (const a::VlCreditResult& v : loops.vls) {
        if (v.cycle.empty()) continue;
        std::string text = "credit loop on VL " + std::to_string(v.vl) + " in " + traffic + ": ";
        const std::size_t shown = std::min<std::size_t>(v.cycle.size(), 8);
        for (std::size_t i = 0; i < shown; ++i) text += net.port_label(net.channel(v.cycle[i]).tail) + " → ";
        text += shown < v.cycle.size() ? "… (" + std::to_string(v.cycle.size()) + " links)"
                                       : net.port_label(net.channel(v.cycle.front()).tail);
        return text;
    }
    return {};
}

} // namespace

Tallies tallies_of(const a::Connectivity& c)
{
    Tallies t;
    for (std::size_t k = 0; k < a::pair_class_count; ++k) {
        const a::PairStats& s = c.classes[k];
        t[k].counts = PairCounts{s.pairs, s.unreachable, s.loops};
        if (!s.unreachable_examples.empty()) {
            t[k].unreachable_source = s.unreachable_examples.front().source;
            t[k].unreachable_lid = s.unreachable_examples.front().lid;
        }
        if (!s.loop_examples.empty()) {
            t[k].loop_source = s.loop_examples.front().source;
            t[k].loop_lid = s.loop_examples.front().lid;
        }
    }
    return t;
}

LidTally tally_of(const a::Connectivity& c)
{
    LidTally t;
    for (std::size_t k = 0; k < a::pair_class_count; ++k) {
        const a::PairStats& s = c.classes[k];
        t.n[k] = {static_cast<std::uint32_t>(s.pairs), static_cast<std::uint32_t>(s.unreachable),
                  static_cast<std::uint32_t>(s.loops)};
        if (!s.unreachable_examples.empty())
            t.example[k][0] = std::min_element(s.unreachable_examples.begin(), s.unreachable_examples.end())->source;
        if (!s.loop_examples.empty())
            t.example[k][1] = std::min_element(s.loop_examples.begin(), s.loop_examples.end())->source;
    }
    return t;
}

Tallies tallies_of(const std::vector<LidTally>& by_lid)
{
    Tallies t;
    for (std::size_t lid = 0; lid < by_lid.size(); ++lid) {
        const LidTally& l = by_lid[lid];
        for (std::size_t k = 0; k < a::pair_class_count; ++k) {
            t[k].counts.pairs += l.n[k][0];
            t[k].counts.unreachable += l.n[k][1];
            t[k].counts.looping += l.n[k][2];
            if (t[k].unreachable_source < 0 && l.example[k][0] >= 0) {
                t[k].unreachable_source = l.example[k][0];
                t[k].unreachable_lid = static_cast<std::uint32_t>(lid);
            }
            if (t[k].loop_source < 0 && l.example[k][1] >= 0) {
                t[k].loop_source = l.example[k][1];
                t[k].loop_lid = static_cast<std::uint32_t>(lid);
            }
        }
    }
    return t;
}

std::vector<std::tuple<std::uint64_t, std::uint8_t, std::uint16_t, std::uint8_t>>
lid_keys(const topology::Fabric& fabric, const lidassign::LidMap& lids)
{
    std::vector<std::tuple<std::uint64_t, std::uint8_t, std::uint16_t, std::uint8_t>> out;
    for (const auto& [port, pl] : lids.entries()) {
        const std::uint64_t guid = port.node.value < fabric.node_count() ? fabric.node(port.node).guid.value() : 0;
        out.emplace_back(guid, port.port.value(), pl.base.value(), pl.lmc);
    }
    return out;
}

std::vector<std::string> table_problems(const lidassign::LidMap& lids, const RoutingTables& tables,
                                        const VerifyOptions& options)
{
    std::vector<std::string> problems;
    if (lids.top().value() > tables.linear_fdb_top.value())
        problems.push_back("LinearFDBTop " + std::to_string(tables.linear_fdb_top.value()) + " is below the top LID " +
                           std::to_string(lids.top().value()));
    const std::uint8_t sl_top = tables.sl.max_sl();
    if (tables.vls_used > options.max_vls)
        problems.push_back("needs " + std::to_string(tables.vls_used) + " VLs, the ports offer " +
                           std::to_string(options.max_vls));
    if (!tables.sl.empty() && sl_top >= std::max<std::uint8_t>(tables.vls_used, 1))
        problems.push_back("uses SL " + std::to_string(sl_top) + " but maps only " +
                           std::to_string(std::max<std::uint8_t>(tables.vls_used, 1)) + " VL(s)");
    return problems;
}

void pair_problems(const a::Network& net, const Tallies& tallies, Verdict& v, std::vector<std::string>& problems)
{
    v.ca_to_ca = tallies[0].counts;
    v.ca_to_switch = tallies[1].counts;
    v.switch_to_ca = tallies[2].counts;
    v.switch_to_switch = tallies[3].counts;
    for (auto c : {a::PairClass::ca_to_ca, a::PairClass::ca_to_switch, a::PairClass::switch_to_ca,
                   a::PairClass::switch_to_switch}) {
        if (c == a::PairClass::switch_to_switch && !v.switch_pairs_checked) continue;
        const ClassTally& t = tallies[static_cast<std::size_t>(c)];
        if (t.counts.unreachable)
            problems.push_back(group_digits(t.counts.unreachable) + " " + class_label(c) + " pairs unreachable" +
                               example(net, t.unreachable_source, t.unreachable_lid));
        if (t.counts.looping)
            problems.push_back(group_digits(t.counts.looping) + " " + class_label(c) + " pairs in forwarding loops" +
                               example(net, t.loop_source, t.loop_lid));
    }
}

void credit_problems(const a::Network& net, const a::CdgBuilder& cdg, Verdict& v, std::vector<std::string>& problems)
{
    const a::CreditLoops ca_loops = cdg.result(a::CdgBuilder::ca_only);
    v.ca_credit_loop = ca_loops.has_loop();
    if (v.ca_credit_loop) problems.push_back(credit_loop_text(net, ca_loops, "CA traffic"));
    if (v.switch_pairs_checked) {
        const a::CreditLoops all = cdg.result(a::CdgBuilder::with_switches);
        v.switch_credit_loop = all.has_loop();
        if (v.switch_credit_loop && !v.ca_credit_loop)
            problems.push_back(credit_loop_text(net, all, "CA and switch traffic"));
    }
}

std::string join_problems(const std::vector<std::string>& problems)
{
    std::string out;
    for (const auto& p : problems) out += (out.empty() ? "" : "; ") + p;
    return out;
}

} // namespace ibsm::routing::detail
