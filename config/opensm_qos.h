// OpenSM's qos-policy.conf read into ibsmd's `qos:` (`ibsm import-opensm`).
//
// Why: a site's QoS policy lives in qos-policy.conf (OpenSM's
// doc/QoS_management_in_OpenSM.txt and `man opensm`, "QOS CONFIGURATION");
// ibsmd's qos: (config/qos_config.h) says the same things in YAML. What it
// cannot say is refused with the file and line, never dropped silently.
//
// Data structures: the sections of the file (port-groups, qos-setup,
// qos-levels, qos-match-rules, qos-ulps) each read into the QosConfig being
// built; partition names resolved through the NAME=PKEY heads of a
// partitions.conf, when the caller has one.
//
// Algorithm (the mapping, section by section):
// - port-group: port-guid values and ranges -> port_guids (a range of more
//   than 4096 GUIDs is refused), pkey -> partitions, partition NAME -> its
//   P_Key, node-type CA / SWITCH / ALL -> all_cas / all_switches. Refused:
//   port-name (ibsmd selects all ports of a node by its description, not
//   one port), node-type ROUTER and SELF.
// - qos-setup: OpenSM parses and ignores it; so does this (a note says so).
// - qos-level: sl, mtu-limit, rate-limit, packet-life. Refused: pkey and
//   path-bits. DEFAULT: applied to what no rule matches; with SL 0 and no
//   limits that is what ibsmd does without a rule (the path keeps the
//   routing's SL), otherwise it becomes a last rule with no selector.
// - qos-match-rule: qos-class, service-id, pkey (ranges of up to 4096 P_Keys
//   are listed one by one), source, destination (one group each; a list of
//   groups is refused), qos-level-name.
// - qos-ulps, after the match rules as in OpenSM: default, sdp, rds, iser
//   (their Service IDs: 0x1PPPP, 0x106PPPP; RDS port 0x48CA, iSER 0x0CBC),
//   srp and any with target-port-guid, source-port-guid,
//   source-target-port-guid (a group of those GUIDs), ipoib and any with
//   pkey (ipoib's default 0x7fff), any with service-id. Each SL becomes a
//   level "ulp-sl-N".
//
// Pure: reads the streams it is handed.
#pragma once

#include "config/config.h"

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace ibsm::config {

struct OpensmQos {
    QosConfig qos;
    std::vector<std::string> notes; // "FILE:LINE: what was taken differently"
};

// The NAME=PKEY heads of a partitions.conf (OpenSM's "Name=PKey[,flags] :
// members ;"), for `partition: NAME` in port groups.
std::map<std::string, std::uint16_t> partition_names(std::istream& partitions_conf);

// Throws ConfigError "FILE:LINE: ..." for what has no equivalent or is not
// OpenSM's grammar.
OpensmQos import_opensm_qos(std::istream& in, const std::string& name,
                            const std::map<std::string, std::uint16_t>& partitions = {});

} // namespace ibsm::config
