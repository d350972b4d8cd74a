// SMP header access and the request/response builders (IBA 14.2.1.1 LID
// routed and 14.2.1.2 directed route SMP formats). Byte offsets of the
// common header: 0 BaseVersion, 1 MgmtClass, 2 ClassVersion, 3 R|Method,
// 4-5 [D|]Status, 6 HopPointer, 7 HopCount, 8-15 TID, 16-17 AttributeID,
// 20-23 AttributeModifier, 24-31 M_Key, 32-33 DrSLID, 34-35 DrDLID,
// 64-127 data, 128-191 InitialPath, 192-255 ReturnPath.
#include "mad/smp.h"

#include "mad/wire.h"

#include <algorithm>

namespace ibsm::mad {

namespace {

constexpr std::size_t off_status = 4;
constexpr std::size_t off_hop_pointer = 6;
constexpr std::size_t off_hop_count = 7;
constexpr std::size_t off_tid = 8;
constexpr std::size_t off_attr_id = 16;
constexpr std::size_t off_attr_mod = 20;
constexpr std::size_t off_mkey = 24;
constexpr std::size_t off_dr_slid = 32;
constexpr std::size_t off_dr_dlid = 34;
constexpr std::size_t off_initial_path = 128;

constexpr std::uint16_t status_direction_bit = 0x8000;

std::uint64_t be(std::span<const std::uint8_t> b, std::size_t byte_offset, unsigned bytes)
{
    return wire::get(b, byte_offset * 8, bytes * 8);
}

void put_be(std::span<std::uint8_t> b, std::size_t byte_offset, unsigned bytes, std::uint64_t v)
{
    wire::put(b, byte_offset * 8, bytes * 8, v);
}

Smp make_request_header(std::uint8_t mgmt_class, Method method, std::uint16_t attr_id, std::uint32_t attr_mod,
                        std::uint64_t tid, std::span<const std::uint8_t> data)
{
    Smp smp;
    auto b = smp.bytes();
    b[0] = 1; // BaseVersion
    b[1] = mgmt_class;
    b[2] = 1; // ClassVersion of the SM classes
    b[3] = static_cast<std::uint8_t>(method);
    smp.set_tid(tid);
    smp.set_attr_id(attr_id);
    smp.set_attr_mod(attr_mod);
    const auto n = std::min(data.size(), smp_data_size);
    std::copy_n(data.begin(), n, smp.data().begin());
    return smp;
}

} // namespace

Smp Smp::from_bytes(std::span<const std::uint8_t> in)
{
    Smp smp;
    const auto n = std::min(in.size(), mad_size);
    std::copy_n(in.begin(), n, smp.bytes_.begin());
    return smp;
}

std::uint16_t Smp::status() const
{
    const auto raw = static_cast<std::uint16_t>(be(bytes_, off_status, 2));
    return directed_route() ? static_cast<std::uint16_t>(raw & ~status_direction_bit) : raw;
}

std::uint64_t Smp::tid() const { return be(bytes_, off_tid, 8); }
std::uint16_t Smp::attr_id() const { return static_cast<std::uint16_t>(be(bytes_, off_attr_id, 2)); }
std::uint32_t Smp::attr_mod() const { return static_cast<std::uint32_t>(be(bytes_, off_attr_mod, 4)); }
std::uint64_t Smp::mkey() const { return be(bytes_, off_mkey, 8); }
Lid Smp::dr_slid() const { return Lid(static_cast<std::uint16_t>(be(bytes_, off_dr_slid, 2))); }
Lid Smp::dr_dlid() const { return Lid(static_cast<std::uint16_t>(be(bytes_, off_dr_dlid, 2))); }

// For DR SMPs the D bit shares the status word; it is routing state, not
// status, so setting the status must not flip the direction.
void Smp::set_status(std::uint16_t s)
{
    std::uint16_t raw = s;
    if (directed_route()) {
        const auto old = static_cast<std::uint16_t>(be(bytes_, off_status, 2));
        raw = static_cast<std::uint16_t>((old & status_direction_bit) | (s & ~status_direction_bit));
    }
    put_be(bytes_, off_status, 2, raw);
}

void Smp::set_tid(std::uint64_t tid) { put_be(bytes_, off_tid, 8, tid); }
void Smp::set_attr_id(std::uint16_t id) { put_be(bytes_, off_attr_id, 2, id); }
void Smp::set_attr_mod(std::uint32_t mod) { put_be(bytes_, off_attr_mod, 4, mod); }
void Smp::set_mkey(std::uint64_t mkey) { put_be(bytes_, off_mkey, 8, mkey); }

Smp make_dr_request(Method method, const DrPath& path, std::uint16_t attr_id, std::uint32_t attr_mod,
                    std::uint64_t tid, std::span<const std::uint8_t> data)
{
    Smp smp = make_request_header(mgmt_class_directed_route, method, attr_id, attr_mod, tid, data);
    auto b = smp.bytes();
    b[off_hop_pointer] = 0;
    b[off_hop_count] = static_cast<std::uint8_t>(path.hops());
    // Permissive DR LIDs: the whole route, out and back, is directed.
    put_be(b, off_dr_slid, 2, Lid::permissive);
    put_be(b, off_dr_dlid, 2, Lid::permissive);
    b[off_initial_path] = 0; // InitialPath[0] is reserved
    for (std::size_t i = 0; i < path.hops(); ++i) b[off_initial_path + 1 + i] = path[i];
    return smp;
}

// The destination LID is an address of the datagram (the umad address
// header), not a field of the SMP, so it leaves no trace in these bytes.
Smp make_lid_request(Method method, [[maybe_unused]] Lid dlid, std::uint16_t attr_id, std::uint32_t attr_mod,
                     std::uint64_t tid, std::span<const std::uint8_t> data)
{
    return make_request_header(mgmt_class_lid_routed, method, attr_id, attr_mod, tid, data);
}

Smp make_get_resp(const Smp& request, std::span<const std::uint8_t> data, std::uint16_t status)
{
    // Start from the request: class, TID, attribute, M_Key, hop count and
    // pointer, DR LIDs and both paths carry over unchanged (IBA 14.2.2: the
    // responder only turns the SMP around; the SMIs on the way back walk
    // the hop pointer down).
    Smp resp = request;
    auto b = resp.bytes();
    resp.set_method(static_cast<std::uint8_t>(Method::get_resp));
    std::fill(resp.data().begin(), resp.data().end(), std::uint8_t{0});
    const auto n = std::min(data.size(), smp_data_size);
    std::copy_n(data.begin(), n, resp.data().begin());
    if (request.directed_route()) {
        put_be(b, off_status, 2, status_direction_bit | (status & ~status_direction_bit));
    } else {
        put_be(b, off_status, 2, status);
        // Bytes past the data field are reserved in LID-routed SMPs.
        std::fill(b.begin() + off_initial_path, b.end(), std::uint8_t{0});
    }
    return resp;
}

Smp make_trap_repress(const Smp& trap)
{
    Smp r = make_get_resp(trap, trap.data());
    r.set_method(static_cast<std::uint8_t>(Method::trap_repress));
    return r;
}

} // namespace ibsm::mad
