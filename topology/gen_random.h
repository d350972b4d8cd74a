// A random irregular fabric: switches of one port count, each with the same
// number of hosts, the remaining ports cabled at random between switches.
//
// Why: seed 001 measures routing on such fabrics (64 switches of 24 ports, 12
// hosts each); no tree or grid structure helps an engine there, so they show
// which engines route any fabric, deadlock-free and balanced.
//
// Port layout: hosts on 1..hosts_per_switch, switch cables on the ports
// above. Every switch port is cabled, except one when the total number of
// switch ports is odd (the last switch's last port). No cable joins a switch
// to itself; two switches share at most one cable unless a switch has more
// switch ports than there are other switches.
//
// Algorithm: the configuration model — all switch ports in one list, shuffled
// with the seeded generator (gen_common.h), paired in order — then each bad
// pair (a self-cable or a second cable between two switches) is repaired by
// exchanging ends with a randomly drawn other pair until none is left. The
// result is kept only if the switches are connected; otherwise the next
// shuffle is tried. Same parameters and seed, same fabric.
#pragma once

#include "topology/fabric.h"

#include <cstdint>

namespace ibsm::topology {

struct RandomParams {
    unsigned switches = 0;          // >= 2
    unsigned hosts_per_switch = 0;
    unsigned ports_per_switch = 0;  // hosts + at least 1 (connectivity needs enough)
    std::uint64_t seed = 1;
};

// Throws std::invalid_argument for impossible parameters or when no
// connected cabling is found (too few switch ports per switch).
Fabric generate_random(const RandomParams& params);

} // namespace ibsm::topology
