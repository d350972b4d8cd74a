#include "daemon/sa/sa_services.h"

#include "daemon/sa/path_dlids.h"
#include "mad/sa/component_mask.h"

namespace ibsm::daemon {

namespace sa = mad::sa;

namespace {
constexpr std::uint64_t id_bits = (1ull << 0) | (1ull << 1); // ServiceID, ServiceGID
constexpr std::uint64_t pkey_bit = 1ull << 2;                // ServiceP_Key
constexpr std::uint64_t lease_bit = 1ull << 4;               // ServiceLease
constexpr std::uint32_t indefinite = 0xffffffffu;
constexpr std::uint16_t default_pkey = 0xffff;
} // namespace

void ServiceRecords::expire()
{
    const auto now = now_();
    std::erase_if(records_, [&](const auto& kv) { return kv.second.expires && *kv.second.expires <= now; });
}

std::vector<std::uint8_t> ServiceRecords::answer(const Entry& e, bool trusted) const
{
    auto r = e.record;
    if (!trusted) r.service_key = {};
    if (e.expires) {
        const auto left = std::chrono::ceil<std::chrono::seconds>(*e.expires - now_()).count();
        r.service_lease = static_cast<std::uint32_t>(std::max<long long>(0, left));
    }
    return sa::encode(r);
}

SaAnswer ServiceRecords::handle(const SaRequest& req)
{
    const auto mask = req.header.component_mask;
    const auto table = sa::service_record_components();
    if (!sa::mask_valid(table, mask)) return SaAnswer::error(sa::status::req_invalid);
    const auto q = sa::decode_service_record(req.record);
    if (!q) return SaAnswer::error(sa::status::req_invalid);
    expire();
    const std::vector<std::uint8_t> query(req.record.begin(), req.record.begin() + sa::service_record_size);
    const auto method = req.header.method;

    if (method == sa::method::set) {
        if ((mask & id_bits) != id_bits) return SaAnswer::error(sa::status::insufficient_components);
        // The service must live on a port of this subnet.
        auto port = req.snapshot.found.fabric.find_port(sa::gid_guid(q->service_gid));
        if (!port) return SaAnswer::error(sa::status::invalid_gid);
        // A registration that names no partition is in the default one, and
        // one that gives no lease lives until deleted (OpenSM's
        // sr_rcv_process_set_method; osmtest registers both ways).
        auto rec = *q;
        if (!(mask & pkey_bit)) rec.service_pkey = default_pkey;
        if (!(mask & lease_bit)) rec.service_lease = indefinite;
        Entry e{rec, std::nullopt};
        if (rec.service_lease != indefinite) e.expires = now_() + std::chrono::seconds(rec.service_lease);
        auto& slot = records_[Key{rec.service_id, rec.service_gid, rec.service_pkey}];
        slot = e;
        return SaAnswer{sa::status::ok, {answer(slot, req.trusted)}};
    }
    SaAnswer out;
    for (auto it = records_.begin(); it != records_.end();) {
        const auto bytes = sa::encode(it->second.record);
        // ServiceLease changes as time passes: never part of the match.
        if (!sa::matches(table, mask & ~(1ull << 4), query, bytes)) {
            ++it;
            continue;
        }
        out.records.push_back(answer(it->second, req.trusted));
        if (method == sa::method::delete_) {
            it = records_.erase(it);
            continue;
        }
        ++it;
    }
    if (method == sa::method::delete_ && out.records.empty()) return SaAnswer::error(sa::status::no_records);
    if (method == sa::method::delete_ && out.records.size() > 1) out.records.resize(1);
    return out;
}

void ServiceRecords::register_with(SaAgent& agent)
{
    using namespace sa::method;
    agent.handle(sa::attr::service_record, sa::service_record_size, {get, get_table, set, delete_},
                 [this](const SaRequest& r) { return handle(r); });
}

} // namespace ibsm::daemon
