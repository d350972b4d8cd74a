#include "topology/netfile_format.h"

#include <array>
#include <charconv>
#include <cstdio>

namespace ibsm::topology::netfile {

namespace {

char type_prefix(NodeType type)
{
    switch (type) {
    case NodeType::switch_node: return 'S';
    case NodeType::ca: return 'H';
    case NodeType::router: return 'R';
    }
    return '?';
}

struct WidthName {
    std::uint8_t code;
    std::string_view name;
};
constexpr std::array<WidthName, 5> widths{{{1, "1x"}, {2, "4x"}, {4, "8x"}, {8, "12x"}, {16, "2x"}}};

// Speeds without the extended field set, then the extended ones (which
// override LinkSpeedActive when non-zero, IBA 14.2.5.6).
struct SpeedName {
    std::uint8_t speed;
    std::uint8_t ext;
    std::string_view name;
};
constexpr std::array<SpeedName, 8> speeds{{{1, 0, "SDR"},
                                           {2, 0, "DDR"},
                                           {4, 0, "QDR"},
                                           {0, 1, "FDR"},
                                           {0, 2, "EDR"},
                                           {0, 4, "HDR"},
                                           {0, 8, "NDR"},
                                           {0, 16, "XDR"}}};

} // namespace

std::string node_name(NodeType type, Guid guid)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "%c-%016llx", type_prefix(type), static_cast<unsigned long long>(guid.value()));
    return buf;
}

std::optional<NamedGuid> parse_node_name(std::string_view name)
{
    if (name.size() != 18 || name[1] != '-') return std::nullopt;
    NodeType type;
    switch (name[0]) {
    case 'S': type = NodeType::switch_node; break;
    case 'H': type = NodeType::ca; break;
    case 'R': type = NodeType::router; break;
    default: return std::nullopt;
    }
    std::uint64_t v = 0;
    auto digits = name.substr(2);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (ec != std::errc{} || ptr != digits.data() + digits.size()) return std::nullopt;
    return NamedGuid{type, Guid(v)};
}

const char* type_keyword(NodeType type)
{
    switch (type) {
    case NodeType::switch_node: return "Switch";
    case NodeType::ca: return "Ca";
    case NodeType::router: return "Rt";
    }
    return "?";
}

const char* guid_keyword(NodeType type)
{
    switch (type) {
    case NodeType::switch_node: return "switchguid";
    case NodeType::ca: return "caguid";
    case NodeType::router: return "rtguid";
    }
    return "?";
}

std::string link_rate(const Port& port)
{
    std::string_view w, s;
    for (const auto& e : widths)
        if (e.code == port.link_width_active) w = e.name;
    for (const auto& e : speeds) {
        bool match = port.link_speed_ext_active != 0 ? e.ext == port.link_speed_ext_active
                                                     : (e.ext == 0 && e.speed == port.link_speed_active);
        if (match) s = e.name;
    }
    if (w.empty() || s.empty()) return {};
    return std::string(w) + std::string(s);
}

std::optional<LinkRate> parse_link_rate(std::string_view token)
{
    auto x = token.find('x');
    if (x == std::string_view::npos) return std::nullopt;
    LinkRate r;
    for (const auto& e : widths)
        if (token.substr(0, x + 1) == e.name) r.width = e.code;
    for (const auto& e : speeds)
        if (token.substr(x + 1) == e.name) {
            r.speed = e.speed;
            r.speed_ext = e.ext;
        }
    // FDR10 (a vendor mode reported outside PortInfo) signals like QDR; the
    // Port has no field for it, so it reads as QDR.
    if (token.substr(x + 1) == "FDR10") r.speed = 4;
    if (r.width == 0 || (r.speed == 0 && r.speed_ext == 0)) return std::nullopt;
    return r;
}

std::string bare_hex(std::uint64_t v)
{
    char buf[20];
    std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace ibsm::topology::netfile
