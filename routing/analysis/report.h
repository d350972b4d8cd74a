// The analyzer's result as plain named data, and its text and JSON forms.
//
// Why: the analysis works on indices; the report carries names, GUIDs and
// ports so it can be printed, compared in tests, or turned into JSON without
// the Network it came from. Formatting returns strings (no I/O here).
#pragma once

#include "mad/types.h"
#include "routing/analysis/connectivity.h"
#include "routing/analysis/ebb.h"
#include "routing/analysis/shifts.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::routing::analysis {

struct NamedPort {
    std::string name; // node display name
    Guid guid;        // node GUID
    unsigned port = 0;
};

// A directed link: traffic leaves `from` and arrives at `to`.
struct NamedLink {
    NamedPort from;
    NamedPort to;
};

struct NamedPair {
    std::string source;      // endpoint display name
    Guid source_guid;        // node GUID
    std::uint32_t dlid = 0;
    std::string destination; // endpoint owning dlid
};

struct ClassReport {
    PairClass cls = PairClass::ca_to_ca;
    bool counted = true; // false: switch sources excluded by options
    std::uint64_t pairs = 0, delivered = 0, unreachable = 0, loops = 0;
    double hops_mean = 0, shortest_mean = 0, stretch_mean = 0, stretch_max = 0;
    unsigned hops_max = 0;
    std::uint64_t nonminimal = 0;
    std::vector<NamedPair> unreachable_examples, loop_examples;
};

struct VlCreditReport {
    unsigned vl = 0;
    std::uint64_t dependencies = 0;
    std::vector<NamedLink> cycle; // empty: no credit loop on this VL
};

struct CreditReport {
    bool computed = false;
    std::vector<VlCreditReport> vls;
    bool has_loop() const
    {
        for (const auto& v : vls)
            if (!v.cycle.empty()) return true;
        return false;
    }
};

struct LoadReport {
    std::uint64_t channels = 0, max = 0;
    double mean = 0;
    std::optional<NamedLink> max_link;
};

// One directed channel's load for the drawing (ibsm report): the routes of
// efi_all over it, and a few of them as examples.
struct LinkLoad {
    NamedLink link;
    std::uint64_t load = 0;
    bool switch_link = false; // both ends switches
    std::vector<NamedPair> examples;
};

struct LidReport {
    std::size_t ca_ports = 0, switches_with_lid = 0;
    std::size_t lids = 0; // LIDs owned, every LMC LID counted
    std::uint32_t min_lid = 0, max_lid = 0;
    std::uint32_t linear_fdb_top = 0;
    std::vector<unsigned> lmcs; // distinct LMC values in use
    std::size_t switches_without_lft = 0;
};

struct Report {
    std::string engine;
    std::size_t switches = 0, hosts = 0, links = 0;
    LidReport lids;
    std::vector<ClassReport> classes; // ca_to_ca, ca_to_switch, switch_to_ca, switch_to_switch
    CreditReport credit_ca_only;       // CA-originated traffic
    CreditReport credit_all;           // CA and switch traffic (computed unless switch traffic is off)
    std::uint64_t efi_routes = 0;
    LoadReport efi_all, efi_switch_links;
    // Scored over a per-pair path routing: CA destinations on the DLID each
    // pair uses (RoutingTables::pair_dlids); pairs of the map whose ports the
    // fabric does not have.
    bool pair_routes = false;
    std::uint64_t pair_missing = 0;
    // Every channel, filled only with Options::keep_link_loads (not in to_json).
    std::vector<LinkLoad> link_loads;
    std::optional<EbbResult> ebb;
    std::optional<ShiftResult> shifts;
    std::string host_order; // "name" or "given"
    std::vector<std::pair<std::string, double>> seconds; // stage timings

    const ClassReport& of(PairClass c) const { return classes.at(static_cast<std::size_t>(c)); }
};

std::string to_text(const Report& r);
std::string to_json(const Report& r);
// "a[3] -> b[1]"
std::string link_label(const NamedLink& l);

} // namespace ibsm::routing::analysis
