// Allowed ranges of every numeric ibsmd setting, in one place: the YAML parser,
// the command-line overrides and the daemon's own flag parser all check against
// these, so a range is never stated twice.
#pragma once

#include <cstdint>

namespace ibsm::config {

struct Range {
    std::uint64_t lo;
    std::uint64_t hi;
    constexpr bool contains(std::uint64_t v) const { return v >= lo && v <= hi; }
};

namespace limits {
inline constexpr Range lmc{0, 7};                        // PortInfo LMC is 3 bits
inline constexpr Range max_vls{1, 15};                   // data VLs 0..14
inline constexpr Range max_reverse_hops{0, 65535};       // OpenSM's is 16 bits
inline constexpr Range dump_lfts_max_entries{0, 1'000'000'000'000}; // switches x LIDs; 0: no limit
inline constexpr Range smp_window{1, 4096};              // SMPs outstanding at once
inline constexpr Range smp_timeout_ms{1, 60000};         // per-SMP response timeout
inline constexpr Range smp_retries{0, 100};              // resends after a timeout
inline constexpr Range sm_priority{0, 15};               // SMInfo Priority is 4 bits
inline constexpr Range sm_port{1, 254};                  // physical port number of the local CA
inline constexpr Range subnet_timeout{0, 31};            // PortInfo SubnetTimeOut is 5 bits
inline constexpr Range packet_life_time{0, 31};          // SwitchInfo LifeTimeValue is 5 bits
inline constexpr Range sm_polling_interval_s{1, 3600};   // a standby's SMInfo poll of the master
inline constexpr Range sm_polling_retries{0, 100};       // unanswered polls tolerated before taking over
inline constexpr Range sweep_interval_s{0, 86400};       // light sweep period; 0 disables them; at most a day
inline constexpr Range sweep_retry_interval_s{1, 86400}; // retry delay while not up; 0 would spin
inline constexpr Range sweep_debounce_ms{0, 10000};      // 0: route at the first event
inline constexpr Range perf_interval_s{1, 86400};        // counter sweep period, at most a day
inline constexpr Range perf_window{1, 256};              // PMA requests in flight
inline constexpr Range sweep_debounce_max_ms{0, 60000};  // and at least sweep.debounce_ms (checked in parse.cpp)
inline constexpr Range log_max_size_mb{0, 1048576};      // 0: no cap; at most 1 TiB
inline constexpr Range health_per_interval{0, 0xffffffffULL}; // a counter's increase in one interval; 0: off
inline constexpr Range health_flapping_downs{1, 1000};       // link-downs that make a link flapping
inline constexpr Range health_flapping_window_s{1, 86400};   // at most a day
inline constexpr Range health_unresponsive_sweeps{1, 100};   // the sweeps looked back on
inline constexpr Range health_unresponsive_timeouts{1, 100}; // and at most health.unresponsive.sweeps
inline constexpr Range health_event_count{1, 1000000};        // reboots, traps, Set errors, illegal answers
inline constexpr Range health_event_window_s{1, 86400};       // at most a day
inline constexpr Range health_isolation_budget_percent{0, 100};
} // namespace limits

} // namespace ibsm::config
