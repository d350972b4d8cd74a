// OpenSM's partitions.conf read into partition rules (rules.h).
//
// Why: sites keep their partitions in this file; it must load unchanged and
// mean what it meant under OpenSM, and whatever is wrong in it must be
// said with the file and line, not guessed at.
//
// The grammar (man opensm, "PARTITION CONFIGURATION", as osm_prtn_config.c
// reads it): `#` starts a comment; a statement runs to `;` across lines;
//   [Name][=PKey][,ipoib][,<group flag>=v]...[,indx0][,defmember=full|limited|both] :
//       <member>[=full|limited|both], ... | mgid=<gid>[,<group flag>=v]... <newline> ;
// a member is a port GUID or ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF
// (NONE or nothing: no member); group flags are mtu, rate, sl, scope,
// Q_Key, TClass, FlowLabel. Keywords and flags may be shortened to any
// prefix (`limi`, `def`), tried in OpenSM's order. Numbers are C numbers
// (0x hex, leading 0 octal, else decimal).
//
// What OpenSM refuses is an error here (no ':' in a statement, a P_Key or
// port that is not a number, an mgid that is not multicast); what OpenSM
// ignores with a warning (unknown flags, flag values out of range, an IP
// group whose P_Key, rate or MTU differs from its partition's broadcast
// group) is a warning here too, with the same effect. Texts are
// `file:line: what`.
#pragma once

#include "partition/rules.h"

#include <string>
#include <string_view>
#include <vector>

namespace ibsm::partition {

struct ParseResult {
    std::vector<Rule> rules;           // every statement in file order, P_Keys assigned
    std::vector<std::string> errors;   // empty: the file parsed
    std::vector<std::string> warnings; // what was ignored, as OpenSM ignores it
    bool ok() const { return errors.empty(); }
};

ParseResult parse_partitions_conf(std::string_view text, std::string_view file_name);

} // namespace ibsm::partition
