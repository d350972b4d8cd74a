// What every fabric record handler does the same way (IBA 15.2.4): check
// the component mask against the record's table, turn a queried LID (any of
// a port's LMC range) into the port and its base LID, build candidates and
// keep those whose selected components equal the query's.
//
// Why shared: sa_records.cpp (fabric records), sa_tables.cpp (the
// tables records) and mcast_service.cpp (MFT records) answer the same
// way; one copy keeps their LID and mask rules the same.
#pragma once

#include "daemon/sa/path_dlids.h"
#include "daemon/sa/sa_agent.h"
#include "mad/sa/component_mask.h"
#include "mad/sa/records.h"

#include <algorithm>
#include <optional>

namespace ibsm::daemon::sa_detail {

namespace sa = mad::sa;
using topology::PortRef;

// Builds the answer of one record type: the query (LID normalised), the
// component table, and the records that match.
class Collector {
public:
    Collector(const SaRequest& req, sa::ComponentTable table, std::size_t size)
        : req_(req), table_(table), query_(req.record.begin(), req.record.begin() + std::min(size, req.record.size()))
    {
        query_.resize(std::max(size, sa::table_bytes(table)), 0);
    }

    bool mask_ok() const { return sa::mask_valid(table_, req_.header.component_mask); }
    bool selects(unsigned component) const { return (req_.header.component_mask >> component) & 1; }
    std::uint16_t query_u16(std::size_t byte) const
    {
        return static_cast<std::uint16_t>(query_[byte] << 8 | query_[byte + 1]);
    }
    std::uint8_t query_u8(std::size_t byte) const { return query_[byte]; }
    // Rewrites one byte of the query (a component a CA's record fills by
    // itself, whatever was asked); the caller restores it.
    void set_query_u8(std::size_t byte, std::uint8_t v) { query_[byte] = v; }

    // When the query's LID (16 bits at `byte`) is selected: the port owning
    // it, with the query rewritten to the port's base LID. nullopt: no LID
    // asked. A LID nobody owns yields a port of nothing (found = false).
    struct LidSel {
        bool asked = false;
        bool found = false;
        PortRef endport;
    };
    LidSel lid_selection(unsigned component, std::size_t byte)
    {
        LidSel sel;
        if (!selects(component)) return sel;
        sel.asked = true;
        const auto& lids = req_.snapshot.lids.lids;
        const auto port = lids.port_of(Lid(query_u16(byte)));
        if (!port) return sel;
        const auto range = lids.lids_of(*port);
        sel.found = true;
        sel.endport = *port;
        query_[byte] = static_cast<std::uint8_t>(range->base.value() >> 8);
        query_[byte + 1] = static_cast<std::uint8_t>(range->base.value() & 0xff);
        return sel;
    }

    void offer(std::vector<std::uint8_t> rec)
    {
        if (sa::matches(table_, req_.header.component_mask, query_, rec)) out_.records.push_back(std::move(rec));
    }
    // A Get with two answers is already an error; stop building.
    bool enough() const { return req_.header.method == sa::method::get && out_.records.size() > 1; }

    SaAnswer done() { return std::move(out_); }

private:
    const SaRequest& req_;
    sa::ComponentTable table_;
    std::vector<std::uint8_t> query_;
    SaAnswer out_;
};

inline const topology::Fabric& fabric_of(const SaRequest& r) { return r.snapshot.found.fabric; }

inline std::optional<Lid> base_lid(const SubnetSnapshot& s, PortRef endport)
{
    auto l = s.lids.lids.lids_of(endport);
    if (!l) return std::nullopt;
    return l->base;
}

// The endports (CA/router ports with a LID, switch port 0) of the snapshot,
// or only `sel`'s when the query named a LID.
template <typename F>
void for_endports(const SaRequest& req, const Collector::LidSel& sel, F&& f)
{
    if (sel.asked) {
        if (sel.found) f(sel.endport, *base_lid(req.snapshot, sel.endport));
        return;
    }
    for (const auto& [port, range] : req.snapshot.lids.lids.entries()) f(port, range.base);
}

} // namespace ibsm::daemon::sa_detail
