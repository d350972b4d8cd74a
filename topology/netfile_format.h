// Small vocabulary shared by the net-file reader and writer: how
// ibnetdiscover names nodes ("S-<guid>", "H-<guid>", "R-<guid>") and how it
// prints a link's rate ("4xQDR").
//
// Why a separate file: the reader must accept exactly what the writer emits
// (round trip), so both sides take these spellings from one place.
#pragma once

#include "mad/types.h"
#include "topology/fabric.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::topology::netfile {

// "S-0002c90200000001" for switches, "H-..." for CAs, "R-..." for routers.
std::string node_name(NodeType type, Guid guid);

// The GUID encoded in a name of the form node_name() produces, with the type
// its prefix implies; nullopt for free-form names such as "Switch1".
struct NamedGuid {
    NodeType type;
    Guid guid;
};
std::optional<NamedGuid> parse_node_name(std::string_view name);

// The header keyword ibnetdiscover uses: "Switch", "Ca", "Rt".
const char* type_keyword(NodeType type);
// The GUID line keyword before a header: "switchguid", "caguid", "rtguid".
const char* guid_keyword(NodeType type);

// Link rate as ibnetdiscover prints it ("4xSDR", "12xEDR"); empty when the
// port's width or speed is unknown.
std::string link_rate(const Port& port);

struct LinkRate {
    std::uint8_t width = 0;     // IBA LinkWidthActive encoding
    std::uint8_t speed = 0;     // IBA LinkSpeedActive encoding
    std::uint8_t speed_ext = 0; // IBA LinkSpeedExtActive encoding
};
// Parses a token like "4xQDR"; nullopt if the token is not a link rate.
// "FDR10" reads as QDR (lossy: the Port has no field for that vendor mode).
std::optional<LinkRate> parse_link_rate(std::string_view token);

// Hex without "0x" or leading zeros, the way ibnetdiscover prints port GUIDs
// in parentheses.
std::string bare_hex(std::uint64_t v);

} // namespace ibsm::topology::netfile
