#include "daemon/sa/path_qos.h"

#include "mad/link_speed.h"

namespace ibsm::daemon {

namespace sa = mad::sa;

std::optional<std::size_t> qos_level(const SubnetSnapshot& s, const qos::Request& request)
{
    if (!qos_active(s)) return std::nullopt;
    return s.qos_policy->match(request);
}

std::uint8_t qos_host_sl(const SubnetSnapshot& s, std::optional<std::size_t> level, std::uint8_t routing_sl)
{
    std::optional<std::uint8_t> level_sl;
    if (level && s.qos_policy) level_sl = s.qos_policy->levels().at(*level).sl;
    if (s.sl_vl) return s.sl_vl->host_sl(level_sl, routing_sl);
    return level_sl ? *level_sl : routing_sl;
}

std::optional<std::size_t> apply_path_qos(const SubnetSnapshot& s, sa::PathRecord& pr, const QosAsk& ask)
{
    if (!qos_active(s)) return std::nullopt;
    qos::Request request;
    request.source = sa::gid_guid(pr.sgid);
    request.destination = sa::gid_guid(pr.dgid);
    request.service_id = ask.service_id;
    request.pkey = static_cast<std::uint16_t>(pr.pkey & 0x7fff);
    request.qos_class = ask.qos_class;
    const auto level = s.qos_policy->match(request);
    // Unmatched: the routing's SL stands (host_sl of no level is the
    // routing SL on every plan).
    if (!level) return std::nullopt;
    const auto& l = s.qos_policy->levels().at(*level);
    pr.sl = qos_host_sl(s, level, pr.sl);
    if (l.mtu && *l.mtu < (pr.mtu & 0x3f)) pr.mtu = *l.mtu;
    if (l.rate && mad::compare_rate_codes(pr.rate & 0x3f, *l.rate) > 0) pr.rate = *l.rate;
    if (l.packet_life && request.source != request.destination) pr.packet_life = *l.packet_life;
    return level;
}

} // namespace ibsm::daemon
