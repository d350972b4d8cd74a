// Non-tree fabrics: a ring of switches, a 2-D mesh/torus, a 3-D torus and a
// hypercube, each switch with its own hosts.
//
// Why: fat-tree engines must recognise that these are not fat-trees and say
// so, and the general engines (SSSP, DFSSSP, Up*/Down*) need fabrics with
// cycles — a ring or torus is the smallest one where a naive shortest-path
// routing has a credit loop.
//
// Port layout of every switch: hosts on 1..hosts_per_switch, then the
// switch links (ring: +1 neighbour, -1 neighbour; torus/mesh: +x, -x, +y,
// -y; 3-D torus: +x, -x, +y, -y, +z, -z; hypercube: the neighbour across
// dimension 0, 1, ..., d-1). Ports whose neighbour does not exist (mesh edges, a dimension of size
// 1) stay uncabled. A ring of 2 or a torus dimension of 2 yields two parallel
// cables between the same pair of switches, as the wrap-around would in
// hardware. Hosts are numbered switch by switch and come first in the Fabric.
#pragma once

#include "topology/fabric.h"

namespace ibsm::topology {

struct RingParams {
    unsigned switches = 0;          // >= 2
    unsigned hosts_per_switch = 0;
};
Fabric generate_ring(const RingParams& params);

struct TorusParams {
    unsigned x = 0; // switches along x, >= 1
    unsigned y = 0; // switches along y, >= 1
    unsigned hosts_per_switch = 0;
    bool wrap = true; // false: mesh
};
Fabric generate_torus(const TorusParams& params);

struct Torus3dParams {
    unsigned x = 0, y = 0, z = 0; // switches along each axis, >= 1, at least 2 switches
    unsigned hosts_per_switch = 0;
};
// Switch (i, j, k) is named "torus3d-x00-y00-z00" and has index (k*y + j)*x + i.
Fabric generate_torus3d(const Torus3dParams& params);

struct HypercubeParams {
    unsigned dimension = 0; // 1..16: 2^d switches; switch i links to i xor 2^b on its port hosts+1+b
    unsigned hosts_per_switch = 0;
};
Fabric generate_hypercube(const HypercubeParams& params);

} // namespace ibsm::topology
