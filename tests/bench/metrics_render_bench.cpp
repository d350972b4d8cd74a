// The exposition text of one scrape at each metrics.port_series, on the
// fat-trees of docs/scale.md: series, bytes raw and gzipped, and the CPU
// a render and its gzip take (the work a scrape does off the loop; the loop
// itself only takes the snapshot).
//
// Why a program beside metrics_bench.sh: the series count and the text are
// a function of the fabric and the counters, not of ibsim, so all four
// choices at 27 648 hosts take seconds here instead of a bring-up each;
// metrics_bench.sh measures the running daemon's CPU per scrape.
//
// Data structures: the fabric from `generate_pgft` (the same generator and
// parameters as tests/bench/fabrics.sh), one health::PortHealth row per
// linked port end as the health monitor lists them: counters read twice
// (a 60 s interval, every counter supported, traffic in every row), node
// descriptions as topogen writes them, and symbol errors on
// --erring-permille of the ports (default 1: one in a thousand).
//
// Algorithm: for each choice, render RUNS times (to_prometheus, as the
// endpoint does) and gzip each (level 1, as the endpoint does); print the
// median CPU of each step (CLOCK_PROCESS_CPUTIME_ID: one thread here).
//
// usage: metrics_render_bench HOSTS [--erring-permille N] [--runs R]
//   HOSTS: 3456 | 27648 (fabrics.sh's PGFTs)
#include "cpu_time.h"
#include "daemon/metrics/gzip.h"
#include "daemon/publish/port_series.h"
#include "daemon/publish/status.h"
#include "topology/gen_pgft.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace ibsm;

namespace {

topology::PgftParams params(unsigned hosts)
{
    if (hosts == 3456) return {{12, 12, 24}, {1, 12, 12}, {1, 1, 1}};
    if (hosts == 27648) return {{24, 24, 48}, {1, 24, 24}, {1, 1, 1}};
    if (hosts == 648) return {{18, 36}, {1, 18}, {1, 1}};
    std::fprintf(stderr, "metrics_render_bench: hosts 648, 3456 or 27648, not %u\n", hosts);
    std::exit(2);
}

std::vector<health::PortHealth> rows_of(const topology::Fabric& f, unsigned erring_permille)
{
    std::vector<health::PortHealth> rows;
    std::size_t k = 0;
    for (const auto& n : f.nodes()) {
        for (unsigned p = 1; p <= n.num_ports(); ++p) {
            const auto& port = n.port(PortNum(static_cast<std::uint8_t>(p)));
            if (!port.remote) continue;
            health::PortHealth r;
            r.id = {n.guid, PortNum(static_cast<std::uint8_t>(p))};
            r.node_desc = n.description;
            const auto& far = f.node(port.remote->node);
            r.remote = health::PortId{far.guid, port.remote->port};
            health::PortCounters c;
            c.supported.fill(true);
            c.extended = true;
            c.reads = 2;
            c.interval_s = 60;
            const double load = double((k * 7919) % 1000) / 1000.0; // spread, deterministic
            c.xmit_bytes_per_s = 12.5e9 * load;
            c.rcv_bytes_per_s = 12.5e9 * (1 - load);
            c.xmit_pkts_per_s = c.xmit_bytes_per_s / 4096;
            c.rcv_pkts_per_s = c.rcv_bytes_per_s / 4096;
            c.xmit_wait_share = load / 10;
            c.total[health::index(health::Counter::xmit_data)] = static_cast<std::uint64_t>(c.xmit_bytes_per_s * 15);
            c.total[health::index(health::Counter::rcv_data)] = static_cast<std::uint64_t>(c.rcv_bytes_per_s * 15);
            c.total[health::index(health::Counter::xmit_pkts)] = static_cast<std::uint64_t>(c.xmit_pkts_per_s * 60);
            c.total[health::index(health::Counter::rcv_pkts)] = static_cast<std::uint64_t>(c.rcv_pkts_per_s * 60);
            c.total[health::index(health::Counter::xmit_wait)] = static_cast<std::uint64_t>(c.xmit_wait_share * 6e7);
            if (erring_permille && (k * 2654435761u) % 1000 < erring_permille) {
                c.total[health::index(health::Counter::symbol_errors)] = 3;
                c.delta[health::index(health::Counter::symbol_errors)] = 1;
            }
            r.counters = c;
            rows.push_back(std::move(r));
            ++k;
        }
    }
    return rows;
}

std::size_t series(const std::string& text)
{
    std::size_t n = 0;
    for (std::size_t at = 0; at < text.size();) {
        const auto end = text.find('\n', at);
        if (text[at] != '#') ++n;
        at = end == std::string::npos ? text.size() : end + 1;
    }
    return n;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: metrics_render_bench HOSTS [--erring-permille N] [--runs R]\n");
        return 2;
    }
    const unsigned hosts = static_cast<unsigned>(std::atoi(argv[1]));
    unsigned erring = 1, runs = 3;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--erring-permille") erring = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (a == "--runs") runs = static_cast<unsigned>(std::max(1, std::atoi(argv[i + 1])));
    }
    const auto fabric = topology::generate_pgft(params(hosts));
    const auto rows = rows_of(fabric, erring);
    std::vector<Guid> switches;
    for (const auto& n : fabric.nodes())
        if (n.is_switch()) switches.push_back(n.guid);
    daemon::DaemonStatus status;
    status.state = "up";
    status.switches = fabric.switch_count();
    status.cas = fabric.ca_count();
    std::printf("%u hosts, %zu switches, %zu linked ports, %u per mille of ports with symbol errors, median of %u\n",
                hosts, fabric.switch_count(), rows.size(), erring, runs);
    std::printf("%-8s %10s %12s %12s %10s %10s\n", "series", "samples", "raw bytes", "gzip bytes", "render s", "gzip s");
    for (auto choice : {config::PortSeries::all, config::PortSeries::fabric, config::PortSeries::errors,
                        config::PortSeries::none}) {
        const daemon::PortSelection sel{choice, daemon::switch_guids(switches)};
        std::vector<double> render_s, gzip_s;
        std::string text, z;
        for (unsigned r = 0; r < runs; ++r) {
            double t0 = bench::cpu_seconds();
            text = daemon::to_prometheus(status, sel, &rows);
            double t1 = bench::cpu_seconds();
            z = daemon::metrics::gzip(text);
            double t2 = bench::cpu_seconds();
            render_s.push_back(t1 - t0);
            gzip_s.push_back(t2 - t1);
        }
        std::printf("%-8s %10zu %12zu %12zu %10.3f %10.3f\n", std::string(config::to_string(choice)).c_str(),
                    series(text), text.size(), z.size(), median(render_s), median(gzip_s));
    }
    return 0;
}
