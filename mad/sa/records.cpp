#include "mad/sa/records.h"

#include "mad/wire.h"

#include <algorithm>
#include <utility>

namespace ibsm::mad::sa {
namespace {

using wire::get;
using wire::get_as;
using wire::put;

// An embedded SMP attribute: encode it in its 64-byte form and copy the
// first `bytes` into the record at `at`.
template <typename Attr>
void embed(const Attr& a, std::span<std::uint8_t> out, std::size_t at, std::size_t bytes)
{
    std::array<std::uint8_t, 64> tmp{};
    encode(a, std::span<std::uint8_t, 64>(tmp));
    std::copy_n(tmp.begin(), bytes, out.begin() + static_cast<std::ptrdiff_t>(at));
}

// The 64-byte form of an embedded attribute (zero-padded) for its decoder.
std::array<std::uint8_t, 64> extract(std::span<const std::uint8_t> in, std::size_t at, std::size_t bytes)
{
    std::array<std::uint8_t, 64> tmp{};
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(at), bytes, tmp.begin());
    return tmp;
}

void put_gid(std::span<std::uint8_t> out, std::size_t byte, const Gid& g)
{
    std::copy(g.begin(), g.end(), out.begin() + static_cast<std::ptrdiff_t>(byte));
}
Gid get_gid(std::span<const std::uint8_t> in, std::size_t byte)
{
    Gid g{};
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(byte), 16, g.begin());
    return g;
}

// NodeInfo's fields (IBA 14.2.5.3) as components, starting at `base`.
constexpr std::array<Component, 15> node_record_table{{
    {0, 16}, {16, 16},                                    // LID, reserved
    {32, 8}, {40, 8}, {48, 8}, {56, 8},                   // BaseVersion, ClassVersion, NodeType, NumPorts
    {64, 64}, {128, 64}, {192, 64},                       // SystemImageGUID, NodeGUID, PortGUID
    {256, 16}, {272, 16}, {288, 32}, {320, 8}, {328, 24}, // PartitionCap, DeviceID, Revision, LocalPortNum, VendorID
    {352, 512},                                           // NodeDescription
}};

// PortInfo's fields (IBA 14.2.5.6) in order, reserved ones included, after
// EndportLID, PortNum and Options; offsets relative to the record.
constexpr std::array<Component, 58> port_info_record_table{{
    {0, 16}, {16, 8}, {24, 8},
    {32 + 0, 64},   {32 + 64, 64},  {32 + 128, 16}, {32 + 144, 16}, {32 + 160, 32}, // MKey..CapabilityMask
    {32 + 192, 16}, {32 + 208, 16}, {32 + 224, 8},                                   // DiagCode, LeasePeriod, LocalPortNum
    {32 + 232, 8},  {32 + 240, 8},  {32 + 248, 8},                                   // LinkWidth Enabled/Supported/Active
    {32 + 256, 4},  {32 + 260, 4},  {32 + 264, 4},  {32 + 268, 4},                  // SpeedSupported, State, PhysState, DownDefault
    {32 + 272, 2},  {32 + 274, 3},  {32 + 277, 3},                                   // MKeyProtect, reserved, LMC
    {32 + 280, 4},  {32 + 284, 4},  {32 + 288, 4},  {32 + 292, 4},                  // SpeedActive, SpeedEnabled, NeighborMTU, MasterSMSL
    {32 + 296, 4},  {32 + 300, 4},  {32 + 304, 8},  {32 + 312, 8},  {32 + 320, 8},  // VLCap, InitType, VLHighLimit, VLArb caps
    {32 + 328, 4},  {32 + 332, 4},  {32 + 336, 3},  {32 + 339, 5},  {32 + 344, 4},  // InitTypeReply, MTUCap, VLStall, HOQLife, OpVLs
    {32 + 348, 1},  {32 + 349, 1},  {32 + 350, 1},  {32 + 351, 1},                  // PartEnf in/out, FilterRaw in/out
    {32 + 352, 16}, {32 + 368, 16}, {32 + 384, 16}, {32 + 400, 8},                  // M/P/Q_Key violations, GUIDCap
    {32 + 408, 1},  {32 + 409, 2},  {32 + 411, 5},  {32 + 416, 3},  {32 + 419, 5},  // ClientRereg, res, SubnetTO, res, RespTime
    {32 + 424, 4},  {32 + 428, 4},  {32 + 432, 16}, {32 + 448, 8},  {32 + 456, 24}, // LocalPhyErr, Overrun, MaxCredit, res, RTLatency
    {32 + 480, 16}, {32 + 496, 4},  {32 + 500, 4},  {32 + 504, 3},  {32 + 507, 5},  // CapMask2, SpeedExt Active/Supported, res, Enabled
}};

// SwitchInfo's fields (IBA 14.2.5.4) after LID and reserved.
constexpr std::array<Component, 21> switch_info_record_table{{
    {0, 16}, {16, 16},
    {32 + 0, 16}, {32 + 16, 16}, {32 + 32, 16}, {32 + 48, 16},  // Linear/Random/Multicast FDBCap, LinearFDBTop
    {32 + 64, 8}, {32 + 72, 8}, {32 + 80, 8},                   // DefaultPort, DefaultMcast primary / not primary
    {32 + 88, 5}, {32 + 93, 1}, {32 + 94, 2},                   // LifeTimeValue, PortStateChange, OptimizedSL2VL
    {32 + 96, 16}, {32 + 112, 16},                              // LIDsPerPort, PartitionEnforcementCap
    {32 + 128, 1}, {32 + 129, 1}, {32 + 130, 1}, {32 + 131, 1}, // In/Outbound enforcement, FilterRaw in/out caps
    {32 + 132, 1}, {32 + 133, 3}, {32 + 136, 16},               // EnhancedPort0, reserved, MulticastFDBTop
}};

constexpr std::array<Component, 4> lft_record_table{{{0, 16}, {16, 16}, {32, 32}, {64, 512}}};

constexpr std::array<Component, 7> sm_info_record_table{{
    {0, 16}, {16, 16}, {32, 64}, {96, 64}, {160, 32}, {192, 4}, {196, 4},
}};

constexpr std::array<Component, 5> link_record_table{{{0, 16}, {16, 8}, {24, 8}, {32, 16}, {48, 16}}};

constexpr std::array<Component, 12> guid_info_record_table{{
    {0, 16}, {16, 8}, {24, 8}, {32, 32},
    {64, 64}, {128, 64}, {192, 64}, {256, 64}, {320, 64}, {384, 64}, {448, 64}, {512, 64},
}};

constexpr std::array<Component, 37> service_record_table = [] {
    std::array<Component, 37> t{};
    t[0] = {0, 64};     // ServiceID
    t[1] = {64, 128};   // ServiceGID
    t[2] = {192, 16};   // ServiceP_Key
    t[3] = {208, 16};   // reserved
    t[4] = {224, 32};   // ServiceLease
    t[5] = {256, 128};  // ServiceKey
    t[6] = {384, 512};  // ServiceName
    for (std::uint16_t i = 0; i < 16; ++i) t[7 + i] = {static_cast<std::uint16_t>(896 + 8 * i), 8};
    for (std::uint16_t i = 0; i < 8; ++i) t[23 + i] = {static_cast<std::uint16_t>(1024 + 16 * i), 16};
    for (std::uint16_t i = 0; i < 4; ++i) t[31 + i] = {static_cast<std::uint16_t>(1152 + 32 * i), 32};
    for (std::uint16_t i = 0; i < 2; ++i) t[35 + i] = {static_cast<std::uint16_t>(1280 + 64 * i), 64};
    return t;
}();

constexpr std::array<Component, 24> path_record_table{{
    {0, 32}, {32, 32},             // ServiceID (two components, as OpenSM counts them)
    {64, 128}, {192, 128},         // DGID, SGID
    {320, 16}, {336, 16},          // DLID, SLID
    {352, 1}, {353, 3}, {356, 20}, // RawTraffic, reserved, FlowLabel
    {376, 8}, {384, 8},            // HopLimit, TClass
    {392, 1}, {393, 7}, {400, 16}, // Reversible, NumbPath, P_Key
    {416, 12}, {428, 4},           // QoSClass, SL
    {432, 2}, {434, 6}, {440, 2}, {442, 6}, {448, 2}, {450, 6}, // MTU, rate, packet life (selector, value)
    {456, 8}, {464, 48},           // Preference, reserved
}};

constexpr std::array<Component, 22> multipath_record_table{{
    {0, 1}, {1, 3}, {4, 20}, {24, 8}, {32, 8},  // RawTraffic, reserved, FlowLabel, HopLimit, TClass
    {40, 1}, {41, 7}, {48, 16},                 // Reversible, NumbPath, P_Key
    {64, 12}, {76, 4},                          // QoSClass, SL
    {80, 2}, {82, 6}, {88, 2}, {90, 6}, {96, 2}, {98, 6},
    {104, 8}, {112, 2}, {114, 6},               // ServiceID 8 MSBs, IndependenceSelector, reserved
    {120, 8}, {128, 8}, {136, 56},              // SGIDCount, DGIDCount, ServiceID 56 LSBs
}};

constexpr std::array<Component, 13> inform_info_table{{
    {0, 128}, {128, 16}, {144, 16}, {160, 16}, // GID, LIDRangeBegin/End, reserved
    {176, 8}, {184, 8}, {192, 16}, {208, 16},  // IsGeneric, Subscribe, Type, TrapNumber/DeviceID
    {224, 24}, {248, 3}, {251, 5}, {256, 8},   // QPN, reserved, RespTimeValue, reserved
    {264, 24},                                 // ProducerType/VendorID
}};

constexpr std::array<Component, 16> inform_info_record_table{{
    {0, 128}, {128, 16}, {144, 48},                                  // SubscriberGID, Enum, reserved
    {192 + 0, 128}, {192 + 128, 16}, {192 + 144, 16}, {192 + 160, 16},
    {192 + 176, 8}, {192 + 184, 8}, {192 + 192, 16}, {192 + 208, 16},
    {192 + 224, 24}, {192 + 248, 3}, {192 + 251, 5}, {192 + 256, 8}, {192 + 264, 24},
}};

// LID, InputPortNum, OutputPortNum, reserved, SLtoVLMappingTable.
constexpr std::array<Component, 5> sl2vl_record_table{{{0, 16}, {16, 8}, {24, 8}, {32, 32}, {64, 64}}};
// LID, Position, reserved, BlockNum, reserved, MulticastForwardingTable
// (component bits as OpenSM's IB_MFTR_COMPMASK_* number them).
constexpr std::array<Component, 6> mft_record_table{{{0, 16}, {16, 4}, {20, 3}, {23, 9}, {32, 32}, {64, 512}}};
// LID, BlockNum, PortNum, reserved, P_KeyTable.
constexpr std::array<Component, 5> pkey_table_record_table{{{0, 16}, {16, 16}, {32, 8}, {40, 24}, {64, 512}}};
// LID, OutputPortNum, BlockNum, reserved, VLArbitrationTable.
constexpr std::array<Component, 5> vlarb_record_table{{{0, 16}, {16, 8}, {24, 8}, {32, 32}, {64, 512}}};

} // namespace

ComponentTable sl2vl_record_components() { return sl2vl_record_table; }
ComponentTable mft_record_components() { return mft_record_table; }
ComponentTable pkey_table_record_components() { return pkey_table_record_table; }
ComponentTable vlarb_record_components() { return vlarb_record_table; }
ComponentTable node_record_components() { return node_record_table; }
ComponentTable port_info_record_components() { return port_info_record_table; }
ComponentTable switch_info_record_components() { return switch_info_record_table; }
ComponentTable lft_record_components() { return lft_record_table; }
ComponentTable sm_info_record_components() { return sm_info_record_table; }
ComponentTable link_record_components() { return link_record_table; }
ComponentTable guid_info_record_components() { return guid_info_record_table; }
ComponentTable service_record_components() { return service_record_table; }
ComponentTable path_record_components() { return path_record_table; }
ComponentTable multipath_record_components() { return multipath_record_table; }
ComponentTable inform_info_components() { return inform_info_table; }
ComponentTable inform_info_record_components() { return inform_info_record_table; }

Gid make_gid(std::uint64_t prefix, Guid guid)
{
    Gid g{};
    put(g, 0, 64, prefix);
    put(g, 64, 64, guid.value());
    return g;
}
std::uint64_t gid_prefix(const Gid& g) { return get(g, 0, 64); }
Guid gid_guid(const Gid& g) { return Guid(get(g, 64, 64)); }

// ---- NodeRecord
std::optional<NodeRecord> decode_node_record(std::span<const std::uint8_t> d)
{
    if (d.size() < node_record_size) return std::nullopt;
    NodeRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    auto ni = decode_node_info(extract(d, 4, 40));
    auto nd = decode_node_description(extract(d, 44, 64));
    if (!ni || !nd) return std::nullopt;
    r.node_info = *ni;
    r.description = *nd;
    return r;
}
std::vector<std::uint8_t> encode(const NodeRecord& r)
{
    std::vector<std::uint8_t> out(node_record_size, 0);
    put(out, 0, 16, r.lid.value());
    embed(r.node_info, out, 4, 40);
    embed(r.description, out, 44, 64);
    return out;
}

// ---- PortInfoRecord
std::optional<PortInfoRecord> decode_port_info_record(std::span<const std::uint8_t> d)
{
    if (d.size() < port_info_record_size) return std::nullopt;
    PortInfoRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.port_num = d[2];
    r.options = d[3];
    auto pi = decode_port_info(extract(d, 4, 64));
    if (!pi) return std::nullopt;
    r.port_info = *pi;
    return r;
}
std::vector<std::uint8_t> encode(const PortInfoRecord& r)
{
    std::vector<std::uint8_t> out(port_info_record_size, 0);
    put(out, 0, 16, r.lid.value());
    out[2] = r.port_num;
    out[3] = r.options;
    embed(r.port_info, out, 4, 64);
    return out;
}

// ---- SwitchInfoRecord
std::optional<SwitchInfoRecord> decode_switch_info_record(std::span<const std::uint8_t> d)
{
    if (d.size() < switch_info_record_size) return std::nullopt;
    auto si = decode_switch_info(extract(d, 4, 20));
    if (!si) return std::nullopt;
    return SwitchInfoRecord{Lid(get_as<std::uint16_t>(d, 0, 16)), *si};
}
std::vector<std::uint8_t> encode(const SwitchInfoRecord& r)
{
    std::vector<std::uint8_t> out(switch_info_record_size, 0);
    put(out, 0, 16, r.lid.value());
    embed(r.switch_info, out, 4, 20);
    return out;
}

// ---- LinearForwardingTableRecord
std::optional<LftRecord> decode_lft_record(std::span<const std::uint8_t> d)
{
    if (d.size() < lft_record_size) return std::nullopt;
    LftRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.block = get_as<std::uint16_t>(d, 16, 16);
    std::copy_n(d.begin() + 8, 64, r.ports.begin());
    return r;
}
std::vector<std::uint8_t> encode(const LftRecord& r)
{
    std::vector<std::uint8_t> out(lft_record_size, 0);
    put(out, 0, 16, r.lid.value());
    put(out, 16, 16, r.block);
    std::copy(r.ports.begin(), r.ports.end(), out.begin() + 8);
    return out;
}

// ---- SMInfoRecord
std::optional<SmInfoRecord> decode_sm_info_record(std::span<const std::uint8_t> d)
{
    if (d.size() < sm_info_record_size) return std::nullopt;
    auto si = decode_sm_info(extract(d, 4, 21));
    if (!si) return std::nullopt;
    return SmInfoRecord{Lid(get_as<std::uint16_t>(d, 0, 16)), *si};
}
std::vector<std::uint8_t> encode(const SmInfoRecord& r)
{
    std::vector<std::uint8_t> out(sm_info_record_size, 0);
    put(out, 0, 16, r.lid.value());
    embed(r.sm_info, out, 4, 21);
    return out;
}

// ---- LinkRecord
std::optional<LinkRecord> decode_link_record(std::span<const std::uint8_t> d)
{
    if (d.size() < link_record_size) return std::nullopt;
    return LinkRecord{Lid(get_as<std::uint16_t>(d, 0, 16)), d[2], d[3], Lid(get_as<std::uint16_t>(d, 32, 16))};
}
std::vector<std::uint8_t> encode(const LinkRecord& r)
{
    std::vector<std::uint8_t> out(link_record_size, 0);
    put(out, 0, 16, r.from_lid.value());
    out[2] = r.from_port;
    out[3] = r.to_port;
    put(out, 32, 16, r.to_lid.value());
    return out;
}

// ---- GUIDInfoRecord
std::optional<GuidInfoRecord> decode_guid_info_record(std::span<const std::uint8_t> d)
{
    if (d.size() < guid_info_record_size) return std::nullopt;
    GuidInfoRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.block = d[2];
    for (std::size_t i = 0; i < 8; ++i) r.guids[i] = Guid(get(d, 64 + 64 * i, 64));
    return r;
}
std::vector<std::uint8_t> encode(const GuidInfoRecord& r)
{
    std::vector<std::uint8_t> out(guid_info_record_size, 0);
    put(out, 0, 16, r.lid.value());
    out[2] = r.block;
    for (std::size_t i = 0; i < 8; ++i) put(out, 64 + 64 * i, 64, r.guids[i].value());
    return out;
}

// ---- ServiceRecord
std::optional<ServiceRecord> decode_service_record(std::span<const std::uint8_t> d)
{
    if (d.size() < service_record_size) return std::nullopt;
    ServiceRecord r;
    r.service_id = get(d, 0, 64);
    r.service_gid = get_gid(d, 8);
    r.service_pkey = get_as<std::uint16_t>(d, 192, 16);
    r.service_lease = get_as<std::uint32_t>(d, 224, 32);
    std::copy_n(d.begin() + 32, 16, r.service_key.begin());
    std::copy_n(d.begin() + 48, 64, r.service_name.begin());
    std::copy_n(d.begin() + 112, 16, r.data8.begin());
    for (std::size_t i = 0; i < 8; ++i) r.data16[i] = get_as<std::uint16_t>(d, 1024 + 16 * i, 16);
    for (std::size_t i = 0; i < 4; ++i) r.data32[i] = get_as<std::uint32_t>(d, 1152 + 32 * i, 32);
    for (std::size_t i = 0; i < 2; ++i) r.data64[i] = get(d, 1280 + 64 * i, 64);
    return r;
}
std::vector<std::uint8_t> encode(const ServiceRecord& r)
{
    std::vector<std::uint8_t> out(service_record_size, 0);
    put(out, 0, 64, r.service_id);
    put_gid(out, 8, r.service_gid);
    put(out, 192, 16, r.service_pkey);
    put(out, 224, 32, r.service_lease);
    std::copy(r.service_key.begin(), r.service_key.end(), out.begin() + 32);
    std::copy(r.service_name.begin(), r.service_name.end(), out.begin() + 48);
    std::copy(r.data8.begin(), r.data8.end(), out.begin() + 112);
    for (std::size_t i = 0; i < 8; ++i) put(out, 1024 + 16 * i, 16, r.data16[i]);
    for (std::size_t i = 0; i < 4; ++i) put(out, 1152 + 32 * i, 32, r.data32[i]);
    for (std::size_t i = 0; i < 2; ++i) put(out, 1280 + 64 * i, 64, r.data64[i]);
    return out;
}

// ---- PathRecord
std::optional<PathRecord> decode_path_record(std::span<const std::uint8_t> d)
{
    if (d.size() < path_record_size) return std::nullopt;
    PathRecord r;
    r.service_id = get(d, 0, 64);
    r.dgid = get_gid(d, 8);
    r.sgid = get_gid(d, 24);
    r.dlid = Lid(get_as<std::uint16_t>(d, 320, 16));
    r.slid = Lid(get_as<std::uint16_t>(d, 336, 16));
    r.raw_traffic = get(d, 352, 1) != 0;
    r.flow_label = get_as<std::uint32_t>(d, 356, 20);
    r.hop_limit = get_as<std::uint8_t>(d, 376, 8);
    r.tclass = get_as<std::uint8_t>(d, 384, 8);
    r.reversible = get(d, 392, 1) != 0;
    r.numb_path = get_as<std::uint8_t>(d, 393, 7);
    r.pkey = get_as<std::uint16_t>(d, 400, 16);
    r.qos_class = get_as<std::uint16_t>(d, 416, 12);
    r.sl = get_as<std::uint8_t>(d, 428, 4);
    r.mtu_selector = get_as<std::uint8_t>(d, 432, 2);
    r.mtu = get_as<std::uint8_t>(d, 434, 6);
    r.rate_selector = get_as<std::uint8_t>(d, 440, 2);
    r.rate = get_as<std::uint8_t>(d, 442, 6);
    r.packet_life_selector = get_as<std::uint8_t>(d, 448, 2);
    r.packet_life = get_as<std::uint8_t>(d, 450, 6);
    r.preference = get_as<std::uint8_t>(d, 456, 8);
    return r;
}
std::vector<std::uint8_t> encode(const PathRecord& r)
{
    std::vector<std::uint8_t> out(path_record_size, 0);
    put(out, 0, 64, r.service_id);
    put_gid(out, 8, r.dgid);
    put_gid(out, 24, r.sgid);
    put(out, 320, 16, r.dlid.value());
    put(out, 336, 16, r.slid.value());
    put(out, 352, 1, r.raw_traffic);
    put(out, 356, 20, r.flow_label);
    put(out, 376, 8, r.hop_limit);
    put(out, 384, 8, r.tclass);
    put(out, 392, 1, r.reversible);
    put(out, 393, 7, r.numb_path);
    put(out, 400, 16, r.pkey);
    put(out, 416, 12, r.qos_class);
    put(out, 428, 4, r.sl);
    put(out, 432, 2, r.mtu_selector);
    put(out, 434, 6, r.mtu);
    put(out, 440, 2, r.rate_selector);
    put(out, 442, 6, r.rate);
    put(out, 448, 2, r.packet_life_selector);
    put(out, 450, 6, r.packet_life);
    put(out, 456, 8, r.preference);
    return out;
}

// ---- MultiPathRecord
std::optional<MultiPathRecord> decode_multipath_record(std::span<const std::uint8_t> d)
{
    if (d.size() < multipath_record_fixed_size) return std::nullopt;
    MultiPathRecord r;
    r.raw_traffic = get(d, 0, 1) != 0;
    r.flow_label = get_as<std::uint32_t>(d, 4, 20);
    r.hop_limit = get_as<std::uint8_t>(d, 24, 8);
    r.tclass = get_as<std::uint8_t>(d, 32, 8);
    r.reversible = get(d, 40, 1) != 0;
    r.numb_path = get_as<std::uint8_t>(d, 41, 7);
    r.pkey = get_as<std::uint16_t>(d, 48, 16);
    r.qos_class = get_as<std::uint16_t>(d, 64, 12);
    r.sl = get_as<std::uint8_t>(d, 76, 4);
    r.mtu_selector = get_as<std::uint8_t>(d, 80, 2);
    r.mtu = get_as<std::uint8_t>(d, 82, 6);
    r.rate_selector = get_as<std::uint8_t>(d, 88, 2);
    r.rate = get_as<std::uint8_t>(d, 90, 6);
    r.packet_life_selector = get_as<std::uint8_t>(d, 96, 2);
    r.packet_life = get_as<std::uint8_t>(d, 98, 6);
    r.service_id = get(d, 104, 8) << 56 | get(d, 136, 56);
    r.independence = get_as<std::uint8_t>(d, 112, 2);
    const std::size_t sgids = d[15], dgids = d[16];
    if (d.size() < multipath_record_fixed_size + 16 * (sgids + dgids)) return std::nullopt;
    const std::size_t at = multipath_record_fixed_size;
    for (std::size_t i = 0; i < sgids; ++i) r.sgids.push_back(get_gid(d, at + 16 * i));
    for (std::size_t i = 0; i < dgids; ++i) r.dgids.push_back(get_gid(d, at + 16 * (sgids + i)));
    return r;
}
std::vector<std::uint8_t> encode(const MultiPathRecord& r)
{
    std::vector<std::uint8_t> out(multipath_record_fixed_size + 16 * (r.sgids.size() + r.dgids.size()), 0);
    put(out, 0, 1, r.raw_traffic);
    put(out, 4, 20, r.flow_label);
    put(out, 24, 8, r.hop_limit);
    put(out, 32, 8, r.tclass);
    put(out, 40, 1, r.reversible);
    put(out, 41, 7, r.numb_path);
    put(out, 48, 16, r.pkey);
    put(out, 64, 12, r.qos_class);
    put(out, 76, 4, r.sl);
    put(out, 80, 2, r.mtu_selector);
    put(out, 82, 6, r.mtu);
    put(out, 88, 2, r.rate_selector);
    put(out, 90, 6, r.rate);
    put(out, 96, 2, r.packet_life_selector);
    put(out, 98, 6, r.packet_life);
    put(out, 104, 8, r.service_id >> 56);
    put(out, 112, 2, r.independence);
    put(out, 120, 8, r.sgids.size());
    put(out, 128, 8, r.dgids.size());
    put(out, 136, 56, r.service_id & ((1ull << 56) - 1));
    std::size_t at = multipath_record_fixed_size;
    for (const auto& g : r.sgids) put_gid(out, std::exchange(at, at + 16), g);
    for (const auto& g : r.dgids) put_gid(out, std::exchange(at, at + 16), g);
    return out;
}

// ---- InformInfo
namespace {
InformInfo decode_ii(std::span<const std::uint8_t> d)
{
    InformInfo r;
    r.gid = get_gid(d, 0);
    r.lid_range_begin = Lid(get_as<std::uint16_t>(d, 128, 16));
    r.lid_range_end = Lid(get_as<std::uint16_t>(d, 144, 16));
    r.is_generic = d[22] != 0;
    r.subscribe = d[23] != 0;
    r.type = get_as<std::uint16_t>(d, 192, 16);
    r.trap_number_or_device_id = get_as<std::uint16_t>(d, 208, 16);
    r.qpn = get_as<std::uint32_t>(d, 224, 24);
    r.resp_time_value = get_as<std::uint8_t>(d, 251, 5);
    r.producer_type_or_vendor_id = get_as<std::uint32_t>(d, 264, 24);
    return r;
}
void encode_ii(const InformInfo& r, std::span<std::uint8_t> out)
{
    put_gid(out, 0, r.gid);
    put(out, 128, 16, r.lid_range_begin.value());
    put(out, 144, 16, r.lid_range_end.value());
    out[22] = r.is_generic ? 1 : 0;
    out[23] = r.subscribe ? 1 : 0;
    put(out, 192, 16, r.type);
    put(out, 208, 16, r.trap_number_or_device_id);
    put(out, 224, 24, r.qpn);
    put(out, 251, 5, r.resp_time_value);
    put(out, 264, 24, r.producer_type_or_vendor_id);
}
} // namespace

std::optional<InformInfo> decode_inform_info(std::span<const std::uint8_t> d)
{
    if (d.size() < inform_info_size) return std::nullopt;
    return decode_ii(d);
}
std::vector<std::uint8_t> encode(const InformInfo& r)
{
    std::vector<std::uint8_t> out(inform_info_size, 0);
    encode_ii(r, out);
    return out;
}

std::optional<InformInfoRecord> decode_inform_info_record(std::span<const std::uint8_t> d)
{
    if (d.size() < inform_info_record_size) return std::nullopt;
    InformInfoRecord r;
    r.subscriber_gid = get_gid(d, 0);
    r.subscriber_enum = get_as<std::uint16_t>(d, 128, 16);
    r.inform_info = decode_ii(d.subspan(24));
    return r;
}
std::vector<std::uint8_t> encode(const InformInfoRecord& r)
{
    std::vector<std::uint8_t> out(inform_info_record_size, 0);
    put_gid(out, 0, r.subscriber_gid);
    put(out, 128, 16, r.subscriber_enum);
    encode_ii(r.inform_info, std::span<std::uint8_t>(out).subspan(24));
    return out;
}

// ---- SLtoVLMappingTableRecord
std::optional<Sl2VlRecord> decode_sl2vl_record(std::span<const std::uint8_t> d)
{
    if (d.size() < sl2vl_record_size) return std::nullopt;
    Sl2VlRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.in_port = get_as<std::uint8_t>(d, 16, 8);
    r.out_port = get_as<std::uint8_t>(d, 24, 8);
    auto t = decode_sl2vl_table(extract(d, 8, 8));
    if (!t) return std::nullopt;
    r.table = *t;
    return r;
}
std::vector<std::uint8_t> encode(const Sl2VlRecord& r)
{
    std::vector<std::uint8_t> out(sl2vl_record_size, 0);
    put(out, 0, 16, r.lid.value());
    put(out, 16, 8, r.in_port);
    put(out, 24, 8, r.out_port);
    embed(r.table, out, 8, 8);
    return out;
}

// ---- MulticastForwardingTableRecord
std::optional<MftRecord> decode_mft_record(std::span<const std::uint8_t> d)
{
    if (d.size() < mft_record_size) return std::nullopt;
    MftRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.position = get_as<std::uint8_t>(d, 16, 4);
    r.block = get_as<std::uint16_t>(d, 23, 9);
    auto t = decode_multicast_forwarding_table(extract(d, 8, 64));
    if (!t) return std::nullopt;
    r.table = *t;
    return r;
}
std::vector<std::uint8_t> encode(const MftRecord& r)
{
    std::vector<std::uint8_t> out(mft_record_size, 0);
    put(out, 0, 16, r.lid.value());
    put(out, 16, 4, r.position & 0xfu);
    put(out, 23, 9, r.block & 0x1ffu);
    embed(r.table, out, 8, 64);
    return out;
}

// ---- P_KeyTableRecord
std::optional<PKeyTableRecord> decode_pkey_table_record(std::span<const std::uint8_t> d)
{
    if (d.size() < pkey_table_record_size) return std::nullopt;
    PKeyTableRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.block = get_as<std::uint16_t>(d, 16, 16);
    r.port = get_as<std::uint8_t>(d, 32, 8);
    auto t = decode_pkey_table(extract(d, 8, 64));
    if (!t) return std::nullopt;
    r.table = *t;
    return r;
}
std::vector<std::uint8_t> encode(const PKeyTableRecord& r)
{
    std::vector<std::uint8_t> out(pkey_table_record_size, 0);
    put(out, 0, 16, r.lid.value());
    put(out, 16, 16, r.block);
    put(out, 32, 8, r.port);
    embed(r.table, out, 8, 64);
    return out;
}

// ---- VLArbitrationTableRecord
std::optional<VlArbRecord> decode_vlarb_record(std::span<const std::uint8_t> d)
{
    if (d.size() < vlarb_record_size) return std::nullopt;
    VlArbRecord r;
    r.lid = Lid(get_as<std::uint16_t>(d, 0, 16));
    r.port = get_as<std::uint8_t>(d, 16, 8);
    r.block = get_as<std::uint8_t>(d, 24, 8);
    auto t = decode_vl_arbitration(extract(d, 8, 64));
    if (!t) return std::nullopt;
    r.table = *t;
    return r;
}
std::vector<std::uint8_t> encode(const VlArbRecord& r)
{
    std::vector<std::uint8_t> out(vlarb_record_size, 0);
    put(out, 0, 16, r.lid.value());
    put(out, 16, 8, r.port);
    put(out, 24, 8, r.block);
    embed(r.table, out, 8, 64);
    return out;
}

} // namespace ibsm::mad::sa
