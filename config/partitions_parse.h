// Reading the `partitions:` list (config.h, PartitionConfig). Internal to
// config/: parse.cpp calls it for the top-level key.
//
//   partitions:
//     - name: storage
//       pkey: 0x0001          # partition number 0x0001..0x7ffe
//       ipoib: true           # optional, default true: its broadcast group
//       full: [0x0002c90300001234, 0x0002c90300001235]
//       limited: [0x0002c90300001240]
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
