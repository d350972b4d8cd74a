// qos: the QoS policy as typed values (parsed by config/qos_parse.cpp,
// compiled against a fabric by the qos/ library).
//
// Why typed here: config/ owns every YAML error (file:line:key) and the
// reload rules; qos/ only sees values that already passed the schema.
//
// Shape (docs/operations.md, "Quality of service"; examples/qos.yaml):
//   port_groups: name -> which ports (GUIDs, node-description globs,
//                partitions, all CAs, all switches; a port matching any
//                selector is in the group)
//   levels:      name -> SL, optional MTU, rate and packet lifetime
//   rules:       in order, the first that matches a request gives its level
//                (service-ID ranges, P_Keys, QoS-class ranges, source and
//                destination group; an absent selector matches anything)
//   sl2vl:       SL -> VL per device class (CA ports, switch external ports,
//                switch port 0) and per port group (the group's CA ports)
//   vlarb:       high and low tables (VL, weight) and the high limit, per
//                device class (CA ports, switch external ports) and group
// Unmatched traffic keeps the routing's SL. Restart is not needed: `qos:`
// reloads (a policy that cannot fit keeps the old one).
#pragma once

#include "mad/types.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::config {

struct QosPortGroup {
    std::string name;
    std::vector<Guid> port_guids;
    std::vector<Guid> node_guids;          // every port of these nodes
    std::vector<std::string> node_desc;    // shell globs (* ? [..]) on NodeDescription
    std::vector<std::uint16_t> partitions; // members of these P_Keys (membership bit ignored)
    bool all_cas = false;
    bool all_switches = false;
    bool operator==(const QosPortGroup&) const = default;
};

// A closed range [first, last].
template <class T>
struct QosRange {
    T first{};
    T last{};
    bool contains(T v) const { return first <= v && v <= last; }
    bool operator==(const QosRange&) const = default;
};

struct QosLevel {
    std::string name;
    std::uint8_t sl = 0;                         // 0..15
    std::optional<std::uint8_t> mtu;             // IBA MTU code 1..5 (256..4096)
    std::optional<std::uint8_t> rate;            // IBA rate code (mad/link_speed.h)
    std::optional<std::uint8_t> packet_life;     // 0..63 (4.096 us * 2^n)
    bool operator==(const QosLevel&) const = default;
};

struct QosRule {
    std::vector<QosRange<std::uint64_t>> service_ids; // empty: any
    std::vector<std::uint16_t> pkeys;                 // empty: any (membership bit ignored)
    std::vector<QosRange<std::uint16_t>> qos_classes; // empty: any (12-bit)
    std::optional<std::string> source;                // port group name; absent: any
    std::optional<std::string> destination;
    std::string level;                                // level name (exists: checked by the parser)
    unsigned line = 0;                                // 1-based line in the file, for messages
    bool operator==(const QosRule&) const = default;
};

using QosSl2Vl = std::array<std::uint8_t, 16>; // SL -> VL (0..14)

struct QosVlArbEntry {
    std::uint8_t vl = 0;     // 0..14
    std::uint8_t weight = 0; // 0..255 (units of 64 bytes)
    bool operator==(const QosVlArbEntry&) const = default;
};

struct QosVlArb {
    std::vector<QosVlArbEntry> high; // at most 64 entries each
    std::vector<QosVlArbEntry> low;
    std::uint8_t high_limit = 0;     // PortInfo VLHighLimit (0..255)
    bool operator==(const QosVlArb&) const = default;
};

struct QosConfig {
    bool enabled = false; // a `qos:` section is present
    std::vector<QosPortGroup> port_groups;
    std::vector<QosLevel> levels;
    std::vector<QosRule> rules;
    std::optional<QosSl2Vl> sl2vl_ca, sl2vl_switch, sl2vl_switch_port0;
    std::vector<std::pair<std::string, QosSl2Vl>> sl2vl_groups; // group name -> table
    std::optional<QosVlArb> vlarb_ca, vlarb_switch;
    std::vector<std::pair<std::string, QosVlArb>> vlarb_groups;
    bool operator==(const QosConfig&) const = default;
};

// security.mkey: M_Key protection of every port's management state (IBA 14.2.4).
enum class MkeyMode { off, per_port, fixed };
struct MkeyConfig {
    MkeyMode mode = MkeyMode::off;
    // per_port: keyed hash of the port GUID under the secret in this file
    // (root-only, never the YAML itself); fixed: the file holds the one key.
    std::string secret_file;
    std::uint8_t protect_bits = 1;   // 0..3 (IBA 14.2.4.1)
    std::uint16_t lease_period_s = 60; // M_KeyLeasePeriod, 0 = never expires
    bool operator==(const MkeyConfig&) const = default;
};

struct SecurityConfig {
    MkeyConfig mkey;
    bool operator==(const SecurityConfig&) const = default;
};

} // namespace ibsm::config
