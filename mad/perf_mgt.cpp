// PerfMgt codecs. Offsets: IBA 16.1.2 (ClassPortInfo, table 254), 16.1.3.5
// (PortCounters, table 247) and 16.1.4.11 (PortCountersExtended); they
// agree with libibmad's IB_PC_* and IB_CPI_* fields and ibsim's answers.
#include "mad/perf_mgt.h"

#include "mad/wire.h"

namespace ibsm::mad::perf {
namespace {

constexpr std::size_t cpi_size = 72;

Smp make_request(Method method, std::uint16_t attr_id, std::uint64_t tid)
{
    Smp mad;
    auto b = mad.bytes();
    b[0] = 1; // BaseVersion
    b[1] = mgmt_class_perf;
    b[2] = 1; // ClassVersion of the PMA
    b[3] = static_cast<std::uint8_t>(method);
    mad.set_tid(tid);
    mad.set_attr_id(attr_id);
    mad.set_attr_mod(0);
    return mad;
}

template <typename Int>
Int field(std::span<const std::uint8_t> d, std::size_t bit, unsigned bits)
{
    return wire::get_as<Int>(d, bit, bits);
}

} // namespace

std::span<const std::uint8_t> attribute_data(const Smp& mad) { return mad.bytes().subspan(data_offset); }
std::span<std::uint8_t> attribute_data(Smp& mad) { return mad.bytes().subspan(data_offset); }

std::optional<ClassPortInfo> decode_class_port_info(std::span<const std::uint8_t> d)
{
    if (d.size() < cpi_size) return std::nullopt;
    ClassPortInfo v;
    v.base_version = field<std::uint8_t>(d, 0, 8);
    v.class_version = field<std::uint8_t>(d, 8, 8);
    v.capability_mask = field<std::uint16_t>(d, 16, 16);
    v.capability_mask2 = field<std::uint32_t>(d, 32, 27);
    v.resp_time_value = field<std::uint8_t>(d, 59, 5);
    return v;
}

void encode(const ClassPortInfo& v, std::span<std::uint8_t> d)
{
    wire::put(d, 0, 8, v.base_version);
    wire::put(d, 8, 8, v.class_version);
    wire::put(d, 16, 16, v.capability_mask);
    wire::put(d, 32, 27, v.capability_mask2);
    wire::put(d, 59, 5, v.resp_time_value);
}

std::optional<PortCounters> decode_port_counters(std::span<const std::uint8_t> d)
{
    if (d.size() < port_counters_size) return std::nullopt;
    PortCounters v;
    v.port_select = field<std::uint8_t>(d, 8, 8);
    v.counter_select = field<std::uint16_t>(d, 16, 16);
    v.symbol_errors = field<std::uint16_t>(d, 32, 16);
    v.link_error_recovery = field<std::uint8_t>(d, 48, 8);
    v.link_downed = field<std::uint8_t>(d, 56, 8);
    v.rcv_errors = field<std::uint16_t>(d, 64, 16);
    v.rcv_remote_physical_errors = field<std::uint16_t>(d, 80, 16);
    v.rcv_switch_relay_errors = field<std::uint16_t>(d, 96, 16);
    v.xmit_discards = field<std::uint16_t>(d, 112, 16);
    v.xmit_constraint_errors = field<std::uint8_t>(d, 128, 8);
    v.rcv_constraint_errors = field<std::uint8_t>(d, 136, 8);
    v.counter_select2 = field<std::uint8_t>(d, 144, 8);
    v.local_link_integrity_errors = field<std::uint8_t>(d, 152, 4);
    v.excessive_buffer_overrun_errors = field<std::uint8_t>(d, 156, 4);
    v.vl15_dropped = field<std::uint16_t>(d, 176, 16);
    v.xmit_data = field<std::uint32_t>(d, 192, 32);
    v.rcv_data = field<std::uint32_t>(d, 224, 32);
    v.xmit_pkts = field<std::uint32_t>(d, 256, 32);
    v.rcv_pkts = field<std::uint32_t>(d, 288, 32);
    v.xmit_wait = field<std::uint32_t>(d, 320, 32);
    return v;
}

void encode(const PortCounters& v, std::span<std::uint8_t> d)
{
    wire::put(d, 8, 8, v.port_select);
    wire::put(d, 16, 16, v.counter_select);
    wire::put(d, 32, 16, v.symbol_errors);
    wire::put(d, 48, 8, v.link_error_recovery);
    wire::put(d, 56, 8, v.link_downed);
    wire::put(d, 64, 16, v.rcv_errors);
    wire::put(d, 80, 16, v.rcv_remote_physical_errors);
    wire::put(d, 96, 16, v.rcv_switch_relay_errors);
    wire::put(d, 112, 16, v.xmit_discards);
    wire::put(d, 128, 8, v.xmit_constraint_errors);
    wire::put(d, 136, 8, v.rcv_constraint_errors);
    wire::put(d, 144, 8, v.counter_select2);
    wire::put(d, 152, 4, v.local_link_integrity_errors);
    wire::put(d, 156, 4, v.excessive_buffer_overrun_errors);
    wire::put(d, 176, 16, v.vl15_dropped);
    wire::put(d, 192, 32, v.xmit_data);
    wire::put(d, 224, 32, v.rcv_data);
    wire::put(d, 256, 32, v.xmit_pkts);
    wire::put(d, 288, 32, v.rcv_pkts);
    wire::put(d, 320, 32, v.xmit_wait);
}

std::optional<PortCountersExtended> decode_port_counters_extended(std::span<const std::uint8_t> d)
{
    if (d.size() < port_counters_extended_size) return std::nullopt;
    PortCountersExtended v;
    v.port_select = field<std::uint8_t>(d, 8, 8);
    v.counter_select = field<std::uint16_t>(d, 16, 16);
    v.xmit_data = wire::get(d, 64, 64);
    v.rcv_data = wire::get(d, 128, 64);
    v.xmit_pkts = wire::get(d, 192, 64);
    v.rcv_pkts = wire::get(d, 256, 64);
    v.unicast_xmit_pkts = wire::get(d, 320, 64);
    v.unicast_rcv_pkts = wire::get(d, 384, 64);
    v.multicast_xmit_pkts = wire::get(d, 448, 64);
    v.multicast_rcv_pkts = wire::get(d, 512, 64);
    return v;
}

void encode(const PortCountersExtended& v, std::span<std::uint8_t> d)
{
    wire::put(d, 8, 8, v.port_select);
    wire::put(d, 16, 16, v.counter_select);
    wire::put(d, 64, 64, v.xmit_data);
    wire::put(d, 128, 64, v.rcv_data);
    wire::put(d, 192, 64, v.xmit_pkts);
    wire::put(d, 256, 64, v.rcv_pkts);
    wire::put(d, 320, 64, v.unicast_xmit_pkts);
    wire::put(d, 384, 64, v.unicast_rcv_pkts);
    wire::put(d, 448, 64, v.multicast_xmit_pkts);
    wire::put(d, 512, 64, v.multicast_rcv_pkts);
}

Smp make_class_port_info_get(std::uint64_t tid) { return make_request(Method::get, attr::class_port_info, tid); }

Smp make_port_counters_get(PortNum port, std::uint64_t tid)
{
    Smp mad = make_request(Method::get, attr::port_counters, tid);
    wire::put(attribute_data(mad), 8, 8, port.value());
    return mad;
}

Smp make_port_counters_extended_get(PortNum port, std::uint64_t tid)
{
    Smp mad = make_request(Method::get, attr::port_counters_extended, tid);
    wire::put(attribute_data(mad), 8, 8, port.value());
    return mad;
}

Smp make_port_counters_clear(PortNum port, std::uint16_t counter_select, std::uint8_t counter_select2,
                             std::uint64_t tid)
{
    Smp mad = make_request(Method::set, attr::port_counters, tid);
    PortCounters pc;
    pc.port_select = port.value();
    pc.counter_select = counter_select;
    pc.counter_select2 = counter_select2;
    encode(pc, attribute_data(mad));
    return mad;
}

} // namespace ibsm::mad::perf
