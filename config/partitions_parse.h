// Reading the `partitions:` list (config.h, PartitionConfig, which is
// partition::Rule: a YAML entry means what a partitions.conf statement
// means). Internal to config/: parse.cpp calls it for the top-level key.
//
//   partitions:
//     - name: storage
//       pkey: 0x0001          # 0x0001..0x7fff (0x7fff: the default partition); absent: generated
//       ipoib: true           # default true: its IPoIB broadcast group, with
//       mtu: 5                #   mtu, rate, sl, scope (one or a list), qkey, tclass, flow_label
//       indx0: false          # this P_Key at index 0 of its members' tables
//       defmember: limited    # the membership of `members:`
//       members: [ALL_CAS]    # port GUIDs or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF
//       full: [0x0002c90300001234, SELF]
//       limited: [0x0002c90300001240]
//       both: []              # full and limited (allow_both_pkeys), else full
//       groups:               # partitions.conf's mgid= lines
//         - {mgid: "ff12:401b::16", sl: 1}
//
// Errors name file, line and the key with the entry's index,
// e.g. `ibsmd.yaml:7: key 'partitions[1].pkey': ...`.
#pragma once

#include "config/config.h"
#include "config/yaml_reader.h"

#include <vector>

namespace ibsm::config::detail {

std::vector<PartitionConfig> read_partitions(const Reader& r, const Entry& at);

} // namespace ibsm::config::detail
