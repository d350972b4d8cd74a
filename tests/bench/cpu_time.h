// CPU seconds of the whole process (all threads), for the benchmarks:
// unlike wall time, it does not grow when other work shares the cores.
#pragma once

#include <ctime>

namespace ibsm::bench {

inline double cpu_seconds()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

} // namespace ibsm::bench
