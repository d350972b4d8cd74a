// Times one phase of a sweep and counts its SMPs.
//
// Why: every phase gets one log line ("phase <name> <seconds> s <n> SMPs
// <detail>", parsed by the integration tests) and one row of summary.txt,
// so the operator sees where a sweep's time and SMPs went.
#pragma once

#include "daemon/core/sweep_outcome.h"
#include "mad/transport.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace ibsm::daemon {

class PhaseClock {
public:
    using Clock = std::chrono::steady_clock;

    explicit PhaseClock(const mad::Transport& t) : transport_(t), start_(Clock::now()), smps_(t.counters().requests) {}

    // The phase's figures since construction; logs them.
    PhaseStats finish(std::string name, std::string detail) const
    {
        PhaseStats p{std::move(name), std::chrono::duration<double>(Clock::now() - start_).count(),
                     transport_.counters().requests - smps_, std::move(detail)};
        spdlog::info("phase {:<8} {:8.3f} s {:8} SMPs  {}", p.name, p.seconds, p.smps, p.detail);
        return p;
    }

private:
    const mad::Transport& transport_;
    Clock::time_point start_;
    std::uint64_t smps_;
};

} // namespace ibsm::daemon
