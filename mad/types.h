// Strong value types shared by every layer: GUIDs, LIDs, port numbers and
// directed-route paths. Host byte order everywhere; only the codecs in mad/
// convert to and from wire order.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm {

// 64-bit EUI-64 identifier of a node, port or system.
class Guid {
public:
    constexpr Guid() = default;
    constexpr explicit Guid(std::uint64_t v) : v_(v) {}
    constexpr std::uint64_t value() const { return v_; }
    constexpr bool is_zero() const { return v_ == 0; }
    constexpr auto operator<=>(const Guid&) const = default;

    // "0x0002c90300001234" (16 hex digits), the form infiniband-diags prints.
    std::string str() const
    {
        char buf[19];
        std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v_));
        return buf;
    }

private:
    std::uint64_t v_ = 0;
};

// "0x001c": how LIDs, attribute IDs and MAD status words are printed.
inline std::string hex16(std::uint16_t v)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%04x", static_cast<unsigned>(v));
    return buf;
}

// 16-bit local identifier. 0 is "no LID"; 1..0xBFFF unicast; 0xC000..0xFFFE
// multicast; 0xFFFF permissive.
class Lid {
public:
    static constexpr std::uint16_t max_unicast = 0xBFFF;
    static constexpr std::uint16_t permissive = 0xFFFF;

    constexpr Lid() = default;
    constexpr explicit Lid(std::uint16_t v) : v_(v) {}
    constexpr std::uint16_t value() const { return v_; }
    constexpr bool valid_unicast() const { return v_ >= 1 && v_ <= max_unicast; }
    constexpr explicit operator bool() const { return v_ != 0; }
    constexpr auto operator<=>(const Lid&) const = default;

private:
    std::uint16_t v_ = 0;
};

// Physical port number of a node: 0 is a switch's management port, 1..254
// external ports. 255 (OpenSM's "drop") is not a valid port here.
class PortNum {
public:
    static constexpr std::uint8_t max_port = 254;

    constexpr PortNum() = default;
    constexpr explicit PortNum(std::uint8_t v) : v_(v) {}
    constexpr std::uint8_t value() const { return v_; }
    constexpr auto operator<=>(const PortNum&) const = default;

private:
    std::uint8_t v_ = 0;
};

// A directed-route path: the output port taken at each hop, starting at the
// SM's own node. Index 0 of the SMP's InitialPath is reserved (always 0), so
// the hop list here maps to InitialPath[1..hops]. At most 63 hops (IBA 14.2.2).
class DrPath {
public:
    static constexpr std::size_t max_hops = 63;

    constexpr DrPath() = default;

    constexpr std::size_t hops() const { return hops_; }
    constexpr std::uint8_t operator[](std::size_t i) const { return ports_[i]; }
    constexpr bool full() const { return hops_ == max_hops; }

    // A new path one hop longer. Precondition: !full().
    constexpr DrPath extended(PortNum out) const
    {
        DrPath p = *this;
        p.ports_[p.hops_++] = out.value();
        return p;
    }

    // "0,1,3,5" as ibnetdiscover/smpquery -D print it (leading 0 = local).
    std::string str() const
    {
        std::string s = "0";
        for (std::size_t i = 0; i < hops_; ++i) {
            s += ',';
            s += std::to_string(ports_[i]);
        }
        return s;
    }

    // Parses the form str() prints; a leading "0" hop is accepted and dropped.
    static std::optional<DrPath> parse(std::string_view text);

    constexpr bool operator==(const DrPath& o) const
    {
        if (hops_ != o.hops_) return false;
        for (std::size_t i = 0; i < hops_; ++i)
            if (ports_[i] != o.ports_[i]) return false;
        return true;
    }

private:
    std::array<std::uint8_t, max_hops> ports_{};
    std::uint8_t hops_ = 0;
};

inline std::optional<DrPath> DrPath::parse(std::string_view text)
{
    DrPath p;
    bool first = true;
    while (!text.empty()) {
        auto comma = text.find(',');
        auto tok = text.substr(0, comma);
        if (tok.empty() || tok.size() > 3) return std::nullopt;
        unsigned v = 0;
        for (char c : tok) {
            if (c < '0' || c > '9') return std::nullopt;
            v = v * 10 + static_cast<unsigned>(c - '0');
        }
        if (v > 255) return std::nullopt;
        if (!(first && v == 0)) {
            if (p.full()) return std::nullopt;
            p = p.extended(PortNum(static_cast<std::uint8_t>(v)));
        }
        first = false;
        if (comma == std::string_view::npos) break;
        text.remove_prefix(comma + 1);
        if (text.empty()) return std::nullopt;
    }
    return p;
}

} // namespace ibsm

template <> struct std::hash<ibsm::Guid> {
    std::size_t operator()(const ibsm::Guid& g) const noexcept { return std::hash<std::uint64_t>{}(g.value()); }
};
template <> struct std::hash<ibsm::Lid> {
    std::size_t operator()(const ibsm::Lid& l) const noexcept { return l.value(); }
};
