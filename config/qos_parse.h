// Reading `qos:` and `security:` (config/qos_config.h). Internal to config/:
// parse.cpp calls these for the top-level keys, after `routing:` and
// `partitions:` (rules and groups may name partitions; VLs must be below
// routing.max_vls).
//
// Errors name file, line and the key with the entry's name or index,
// e.g. `ibsmd.yaml:12: key 'qos.rules[2].level': unknown level 'bluk'`.
#pragma once

#include "config/config.h"
#include "config/yaml_reader.h"

#include <string_view>
#include <vector>

namespace ibsm::config::detail {

// At most this many port groups: the compiled policy keeps a port's groups
// in one 64-bit mask.
inline constexpr std::size_t max_qos_groups = 64;
// At most this many entries in a VLArb high or low table (IBA 14.2.5.9).
inline constexpr std::size_t max_vlarb_entries = 64;

QosConfig read_qos(const Reader& r, const Entry& at, const std::vector<PartitionConfig>& partitions,
                   unsigned max_vls);
SecurityConfig read_security(const Reader& r, const Entry& at);

// The keys of `security:`, for the schema (security.mkey).
inline constexpr std::string_view security_keys[] = {"mkey"};

// Names of the config's values as the YAML writes them (describe, reload):
// rate code -> Gb/s text ("2.5", "100"); MTU codes are mad::mtu_bytes.
std::string rate_gbps_text(std::uint8_t code);
std::string_view to_string(MkeyMode mode);

} // namespace ibsm::config::detail
