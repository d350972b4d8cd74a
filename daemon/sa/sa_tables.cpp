#include "daemon/sa/sa_tables.h"

#include "daemon/core/vl_tables_held.h"
#include "daemon/sa/record_collector.h"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

namespace ibsm::daemon {

using namespace sa_detail;

namespace {

// The ports an endport stands for: itself for a CA, 0..N for a switch, or
// only `asked` (when the query names a port and it exists).
template <typename F>
void for_ports(const topology::Fabric& f, PortRef endport, int asked, F&& each)
{
    const auto& n = f.node(endport.node);
    if (!n.is_switch()) {
        each(endport.port.value());
        return;
    }
    for (unsigned p = 0; p <= n.num_ports(); ++p)
        if (asked < 0 || static_cast<unsigned>(asked) == p) each(static_cast<std::uint8_t>(p));
}

// For one CA endport: the query's port components set to what the CA's
// record holds (so a query naming another port still finds it, as OpenSM
// answers), restored when the endport is done.
class CaPortQuery {
public:
    using Bytes = std::vector<std::pair<std::size_t, std::uint8_t>>;
    CaPortQuery(Collector& c, Bytes bytes) : c_(c), bytes_(std::move(bytes))
    {
        for (auto& [byte, v] : bytes_) {
            const auto old = c_.query_u8(byte);
            c_.set_query_u8(byte, v);
            v = old;
        }
    }
    ~CaPortQuery()
    {
        for (const auto& [byte, v] : bytes_) c_.set_query_u8(byte, v);
    }
    CaPortQuery(const CaPortQuery&) = delete;
    CaPortQuery& operator=(const CaPortQuery&) = delete;

private:
    Collector& c_;
    Bytes bytes_;
};

} // namespace

SaAnswer sa_sl2vl_records(const SaRequest& req)
{
    Collector c(req, sa::sl2vl_record_components(), sa::sl2vl_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto* held = req.snapshot.vl_tables.get();
    if (!held || held->sl2vl.empty()) return c.done();
    const auto& f = fabric_of(req);
    // -1: any port. (An optional here made GCC 12 at -O3 warn maybe-uninitialized.)
    const int in = c.selects(1) ? int(c.query_u8(2)) : -1;
    const int out = c.selects(2) ? int(c.query_u8(3)) : -1;
    for_endports(req, sel, [&](PortRef endport, Lid lid) {
        const auto& n = f.node(endport.node);
        if (!n.is_switch()) {
            // A CA's in and out are reserved (0) and the query's ignored
            // (osmtest asks a CA's table with ports it made up; OpenSM
            // answers it, osm_sa_slvl_record.c).
            if (c.enough()) return;
            const CaPortQuery keep(c, {{2, 0}, {3, 0}});
            if (auto t = held->sl2vl_of(n.guid, false, 0, endport.port.value()))
                c.offer(sa::encode(sa::Sl2VlRecord{lid, 0, 0, *t}));
            return;
        }
        for_ports(f, endport, out, [&](std::uint8_t o) {
            for_ports(f, endport, in, [&](std::uint8_t i) {
                if (c.enough()) return;
                if (auto t = held->sl2vl_of(n.guid, true, i, o)) c.offer(sa::encode(sa::Sl2VlRecord{lid, i, o, *t}));
            });
        });
    });
    return c.done();
}

SaAnswer sa_vlarb_records(const SaRequest& req)
{
    Collector c(req, sa::vlarb_record_components(), sa::vlarb_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto* held = req.snapshot.vl_tables.get();
    const auto& f = fabric_of(req);
    const auto& port_info = req.snapshot.found.port_info;
    const int port = c.selects(1) ? int(c.query_u8(2)) : -1; // -1: any port
    for_endports(req, sel, [&](PortRef endport, Lid lid) {
        const auto& node = f.node(endport.node);
        // A CA's record names its own port whatever port the query gave
        // (OpenSM's osm_sa_vlarb_record.c: "we must be looking on port 0").
        const CaPortQuery keep(c, node.is_switch() ? CaPortQuery::Bytes{}
                                                   : CaPortQuery::Bytes{{2, endport.port.value()}});
        for_ports(f, endport, port, [&](std::uint8_t p) {
            const auto blocks = held ? held->vlarb_of(node.guid, p) : std::span<const VlTablesHeld::VlArb>{};
            const auto pi = port_info.find(PortRef{endport.node, PortNum(p)});
            for (std::uint8_t b = 1; b <= 4; ++b) {
                if (c.enough()) return;
                const auto h = std::find_if(blocks.begin(), blocks.end(), [&](const auto& v) { return v.block == b; });
                if (h != blocks.end()) {
                    c.offer(sa::encode(sa::VlArbRecord{lid, p, b, h->table}));
                    continue;
                }
                // A block wholly past the port's VLArbitrationLowCap or
                // HighCap holds no entry: the port has nothing there, and
                // the record says so (OpenSM answers every block 1..4;
                // osmtest -f q asks each). So does every block of a base
                // switch port 0, which has no arbitration table whatever its
                // PortInfo says (ibsim's claims 8 entries; smpquery vlarb
                // says "No VLArbitration tables (BSP0)"). A block within the
                // capacity that no Set of ours wrote is not answered: we do
                // not know it.
                const bool bsp0 = node.is_switch() && p == 0 && !(node.sw && node.sw->enhanced_port0);
                if (bsp0) {
                    c.offer(sa::encode(sa::VlArbRecord{lid, p, b, mad::VlArbitrationTable{}}));
                    continue;
                }
                if (pi == port_info.end()) continue;
                const unsigned cap = b <= 2 ? pi->second.vl_arb_low_cap : pi->second.vl_arb_high_cap;
                const unsigned first = (b % 2 == 0 ? 1u : 0u) * mad::vl_arb_block_entries;
                if (first >= cap) c.offer(sa::encode(sa::VlArbRecord{lid, p, b, mad::VlArbitrationTable{}}));
            }
        });
    });
    return c.done();
}

SaAnswer sa_pkey_table_records(const SaRequest& req)
{
    if (!req.trusted) return SaAnswer::error(sa::status::denied);
    Collector c(req, sa::pkey_table_record_components(), sa::pkey_table_record_size);
    if (!c.mask_ok()) return SaAnswer::error(sa::status::req_invalid);
    const auto sel = c.lid_selection(0, 0);
    const auto* held = req.snapshot.pkey_tables.get();
    if (!held) return c.done();
    const auto& f = fabric_of(req);
    const int port = c.selects(2) ? int(c.query_u8(4)) : -1; // -1: any port
    for_endports(req, sel, [&](PortRef endport, Lid lid) {
        // As VLArb: a CA's record names its own port (osm_sa_pkey_record.c).
        const CaPortQuery keep(c, f.node(endport.node).is_switch() ? CaPortQuery::Bytes{}
                                                                   : CaPortQuery::Bytes{{4, endport.port.value()}});
        for_ports(f, endport, port, [&](std::uint8_t p) {
            const auto blocks = held->find({f.node(endport.node).guid, p});
            if (blocks == held->end()) return;
            for (std::size_t b = 0; b < blocks->second.size() && !c.enough(); ++b) {
                if (c.selects(1) && c.query_u16(2) != b) continue;
                c.offer(sa::encode(sa::PKeyTableRecord{lid, static_cast<std::uint16_t>(b), p, blocks->second[b]}));
            }
        });
    });
    return c.done();
}

void register_table_records(SaAgent& agent)
{
    using namespace sa::method;
    agent.handle(sa::attr::slvl_record, sa::sl2vl_record_size, {get, get_table}, sa_sl2vl_records);
    agent.handle(sa::attr::vlarb_record, sa::vlarb_record_size, {get, get_table}, sa_vlarb_records);
    agent.handle(sa::attr::pkey_table_record, sa::pkey_table_record_size, {get, get_table}, sa_pkey_table_records);
}

} // namespace ibsm::daemon
