// A random irregular fabric of seed 002 §5: a random switch graph of a given
// average nodal degree between switches, machines scattered over the
// switches uniformly at random.
//
// Why: seed 002 measures LID assignment and path selection on such fabrics
// (128/256/512 machines on 16/32/64 switches, degree 8). generate_random
// (gen_random.h) gives every switch the same number of hosts and the same
// switch degree; here both vary, as in the paper.
//
// How it differs from the paper's GT-ITM: GT-ITM's flat "pure random" model
// cables every switch pair with a fixed probability, so the number of
// cables (and the average degree) varies from instance to instance around
// the target; here exactly round(N x degree / 2) distinct switch pairs are
// cabled, drawn uniformly among all pairs (the G(n, m) model), so every
// instance has the target average degree. Instances that are not connected
// are redrawn (GT-ITM users do the same). No parallel cables and no
// geometric (Waxman) bias. Machines: each picks its switch independently
// and uniformly (so some switches may have none).
//
// Port layout: every switch gets the same port count, the largest any switch
// needs (its machines plus its switch cables); machines on ports 1..h, then
// switch cables by neighbour index. Machines are numbered switch by switch
// and come first in the Fabric. Same parameters and seed, same fabric
// (gen_common.h's portable random draws).
#pragma once

#include "topology/fabric.h"

#include <cstdint>

namespace ibsm::topology {

struct ScatteredParams {
    unsigned switches = 0; // >= 2
    unsigned machines = 0;
    unsigned degree = 8;   // average switch-to-switch degree, 1 .. switches-1
    std::uint64_t seed = 1;
};

// Throws std::invalid_argument for impossible parameters (too few cables to
// connect the switches, more than 254 ports needed) or when no connected
// graph is drawn.
Fabric generate_scattered(const ScatteredParams& params);

} // namespace ibsm::topology
