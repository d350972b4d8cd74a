// The counter poller's memory per monitored port, exactly: the heap that
// one port's entry takes in each table kept between counter sweeps.
//
// Why a program: an RSS difference (perf_bench.sh) mixes the tables with
// allocator slack, the snapshot and the transport; this counts the tables
// alone, with the daemon's own types and the C library's own allocator.
//
// Data structures: the two tables that live as long as a port is polled:
// the poller's `std::map<PortId, PortTracker>` (daemon/health/perf_poller.h:
// exported counters plus the registers' last values) and the health
// monitor's `CounterTable` copy (daemon/health/health_monitor.h). Each sweep
// also builds a transient CounterTable for its observers (freed at once).
//
// Algorithm: fill each table with N entries as a read leaves them (`last`
// set) and read glibc's allocated bytes (mallinfo2().uordblks, chunk
// headers included) before and after; bytes / N is the cost per port.
//
// usage: perf_table_bytes [N]   (default 20000)
#include "health/counters.h"
#include "health/port_health.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

namespace {

std::size_t heap_in_use() { return mallinfo2().uordblks; }

ibsm::health::PortId port_id(std::size_t i)
{
    return {ibsm::Guid{0x0002c90200000000ULL + i / 36}, ibsm::PortNum{static_cast<std::uint8_t>(1 + i % 36)}};
}

template <class Map, class Fill>
double bytes_per_entry(std::size_t n, Fill fill)
{
    const std::size_t before = heap_in_use();
    Map m;
    for (std::size_t i = 0; i < n; ++i) fill(m, i);
    const std::size_t after = heap_in_use();
    if (m.size() != n) {
        std::fprintf(stderr, "perf_table_bytes: %zu entries, expected %zu\n", m.size(), n);
        std::exit(1);
    }
    return static_cast<double>(after - before) / static_cast<double>(n);
}

} // namespace

int main(int argc, char** argv)
{
    const std::size_t n = argc > 1 ? std::stoul(argv[1]) : 20000;
    if (n == 0) {
        std::fprintf(stderr, "usage: perf_table_bytes [N > 0]\n");
        return 2;
    }
    using Trackers = std::map<ibsm::health::PortId, ibsm::health::PortTracker>;
    using Table = ibsm::health::CounterTable;
    const double tracker = bytes_per_entry<Trackers>(n, [](Trackers& m, std::size_t i) {
        auto& t = m[port_id(i)];
        t.last = ibsm::health::CounterRead{};
    });
    const double table = bytes_per_entry<Table>(n, [](Table& m, std::size_t i) { m[port_id(i)]; });
    std::printf("entries %zu\n", n);
    std::printf("poller trackers: sizeof(value) %zu B, heap %.1f B per port\n",
                sizeof(Trackers::value_type), tracker);
    std::printf("health monitor table: sizeof(value) %zu B, heap %.1f B per port\n", sizeof(Table::value_type),
                table);
    std::printf("kept between sweeps: %.1f B per port (each sweep also builds and frees one %.1f B/port copy)\n",
                tracker + table, table);
    return 0;
}
