// Times one phase of a sweep and counts its SMPs.
//
// Why: every phase gets one log line ("phase <name> <seconds> s <n> SMPs
// cpu <seconds> s <detail>", parsed by the integration tests) and one row of
// summary.txt, so the operator sees where a sweep's time and SMPs went. The
// CPU time is the whole process's (every thread: the loop, the workers
// that route, the simulator library's receiver): how much of the machine a
// phase took, and per SMP what the SMP phases cost (docs/scale.md).
#pragma once

#include "daemon/core/sweep_outcome.h"
#include "mad/transport.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <string>

namespace ibsm::daemon {

class PhaseClock {
public:
    using Clock = std::chrono::steady_clock;

    explicit PhaseClock(const mad::Transport& t)
        : transport_(t), start_(Clock::now()), cpu_(process_cpu_seconds()), smps_(t.counters().requests)
    {
    }

    // The phase's figures since construction; logs them.
    PhaseStats finish(std::string name, std::string detail) const
    {
        PhaseStats p{std::move(name), std::chrono::duration<double>(Clock::now() - start_).count(),
                     transport_.counters().requests - smps_, std::move(detail)};
        spdlog::info("phase {:<8} {:8.3f} s {:8} SMPs  cpu {:.3f} s  {}", p.name, p.seconds, p.smps,
                     process_cpu_seconds() - cpu_, p.detail);
        return p;
    }

private:
    static double process_cpu_seconds()
    {
        timespec ts{};
        if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }

    const mad::Transport& transport_;
    Clock::time_point start_;
    double cpu_;
    std::uint64_t smps_;
};

} // namespace ibsm::daemon
