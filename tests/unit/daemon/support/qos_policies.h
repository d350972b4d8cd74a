// QoS policies the daemon tests share.
#pragma once

#include "config/qos_config.h"

#include <optional>

namespace ibsm::test {

// Two bands: level "bulk" (SL 1) for every pair, SL 1 on VL 1 on every port
// class; CA arbitration high {VL 1: 32}, low {VL 0: 64}, VLHighLimit 4.
inline config::QosConfig two_band_policy()
{
    config::QosConfig q;
    q.enabled = true;
    q.levels = {config::QosLevel{"bulk", 1, std::nullopt, std::nullopt, std::nullopt}};
    config::QosRule all;
    all.level = "bulk";
    q.rules = {all};
    const config::QosSl2Vl two_bands{0, 1};
    q.sl2vl_ca = q.sl2vl_switch = q.sl2vl_switch_port0 = two_bands;
    q.vlarb_ca = config::QosVlArb{{{1, 32}}, {{0, 64}}, 4};
    return q;
}

} // namespace ibsm::test
