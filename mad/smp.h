// A subnet management packet (IBA 14.2.1): the fixed 256-byte MAD with the
// SMP header, in wire order. Accessors convert to host order; the builders
// produce directed-route (class 0x81) and LID-routed (class 0x01) Get/Set
// requests and the GetResp the SM sends when someone queries its SMInfo.
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <span>

namespace ibsm::mad {

inline constexpr std::size_t mad_size = 256;
inline constexpr std::size_t smp_data_offset = 64;
inline constexpr std::size_t smp_data_size = 64;

inline constexpr std::uint8_t mgmt_class_lid_routed = 0x01;
inline constexpr std::uint8_t mgmt_class_directed_route = 0x81;

enum class Method : std::uint8_t {
    get = 0x01,
    set = 0x02,
    get_resp = 0x81,
    trap = 0x05,
    trap_repress = 0x07,
};

// MAD status values (IBA 13.4.7, table 27-2 in bits 2..4) an SM answers
// requests it cannot serve with.
namespace mad_status {
inline constexpr std::uint16_t bad_version = 1 << 2;
inline constexpr std::uint16_t method_unsupported = 2 << 2;
inline constexpr std::uint16_t method_attribute_unsupported = 3 << 2;
inline constexpr std::uint16_t invalid_field = 7 << 2;
} // namespace mad_status

// Attribute IDs (IBA table 145) this SM uses.
namespace attr {
inline constexpr std::uint16_t notice = 0x0002;
inline constexpr std::uint16_t node_description = 0x0010;
inline constexpr std::uint16_t node_info = 0x0011;
inline constexpr std::uint16_t switch_info = 0x0012;
inline constexpr std::uint16_t port_info = 0x0015;
inline constexpr std::uint16_t sl2vl_table = 0x0017;
inline constexpr std::uint16_t vl_arbitration = 0x0018;
inline constexpr std::uint16_t linear_forwarding_table = 0x0019;
inline constexpr std::uint16_t sm_info = 0x0020;
} // namespace attr

class Smp {
public:
    Smp() { bytes_.fill(0); }
    // Wraps received bytes; shorter input is zero-padded (callers check size first).
    static Smp from_bytes(std::span<const std::uint8_t> in);

    std::span<std::uint8_t, mad_size> bytes() { return bytes_; }
    std::span<const std::uint8_t, mad_size> bytes() const { return bytes_; }

    std::uint8_t base_version() const { return bytes_[0]; }
    std::uint8_t mgmt_class() const { return bytes_[1]; }
    std::uint8_t class_version() const { return bytes_[2]; }
    // Method including the response bit (0x80).
    std::uint8_t method() const { return bytes_[3]; }
    bool is_response() const { return (bytes_[3] & 0x80) != 0; }
    bool directed_route() const { return mgmt_class() == mgmt_class_directed_route; }
    // Status without the D bit (DR SMPs carry the direction in bit 15).
    std::uint16_t status() const;
    bool direction_inbound() const { return directed_route() && (bytes_[4] & 0x80) != 0; }
    std::uint8_t hop_pointer() const { return bytes_[6]; }
    std::uint8_t hop_count() const { return bytes_[7]; }
    std::uint64_t tid() const;
    std::uint16_t attr_id() const;
    std::uint32_t attr_mod() const;
    std::uint64_t mkey() const;
    Lid dr_slid() const;
    Lid dr_dlid() const;

    std::span<std::uint8_t, smp_data_size> data() { return std::span<std::uint8_t, mad_size>(bytes_).subspan<smp_data_offset, smp_data_size>(); }
    std::span<const std::uint8_t, smp_data_size> data() const { return std::span<const std::uint8_t, mad_size>(bytes_).subspan<smp_data_offset, smp_data_size>(); }
    // InitialPath[i] / ReturnPath[i], i in 0..63 (DR only).
    std::uint8_t initial_path(std::size_t i) const { return bytes_[128 + i]; }
    std::uint8_t return_path(std::size_t i) const { return bytes_[192 + i]; }

    void set_method(std::uint8_t m) { bytes_[3] = m; }
    void set_status(std::uint16_t s);
    void set_tid(std::uint64_t tid);
    void set_attr_id(std::uint16_t id);
    void set_attr_mod(std::uint32_t mod);
    void set_mkey(std::uint64_t mkey);

private:
    std::array<std::uint8_t, mad_size> bytes_;
};

// Directed-route request along `path` from the local port (DrSLID = DrDLID =
// permissive, HopPointer 0, HopCount = path.hops(), InitialPath[1..] = path).
Smp make_dr_request(Method method, const DrPath& path, std::uint16_t attr_id, std::uint32_t attr_mod,
                    std::uint64_t tid, std::span<const std::uint8_t> data = {});
// LID-routed request to `dlid`.
Smp make_lid_request(Method method, Lid dlid, std::uint16_t attr_id, std::uint32_t attr_mod, std::uint64_t tid,
                     std::span<const std::uint8_t> data = {});
// The GetResp to a received request (same class, TID, attribute, path fields
// with the direction bit set for DR), carrying `data`.
Smp make_get_resp(const Smp& request, std::span<const std::uint8_t> data, std::uint16_t status = 0);
// The SubnTrapRepress(Notice) answering `trap` (IBA 14.2.5.1, C14-12): the
// trap turned around to its issuer with its TID, attribute modifier and
// Notice, so the issuer stops repeating it.
Smp make_trap_repress(const Smp& trap);

} // namespace ibsm::mad
