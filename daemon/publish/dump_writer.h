// The dump files of each generation (lfts.dump, topology.net, summary.txt,
// sl.txt when the routing uses several SLs, paths.txt for a per-pair path
// routing: the DLID of every pair, routing/path_file.h),
// written by an observer that never holds up the SM.
//
// Why: at 11 664 hosts lfts.dump is 1.5 GB and takes 5 s to write; a
// re-route that waited for it would miss its target by 20x, and a full or
// read-only disk must not stop the SM. So the files are written on their own
// thread, only when their content changed, and a failure is logged with
// what to do, never thrown.
//
// Data structures: a one-thread pool; the newest generation handed over
// (atomic); per file, on the writer thread only, a 64-bit fingerprint of
// what it was last written from.
//
// Algorithm: publish() posts a job holding the snapshot (shared, immutable);
// a job whose generation is older than the newest handed over is skipped,
// so a burst of re-routes writes the last one only. Each enabled file is
// fingerprinted from its inputs (tables, LIDs, fabric) and rewritten
// (atomically: temp, fsync, rename) when the fingerprint differs.
//
// report.html (dump.report, report_dump.h) has its own thread: it runs the
// whole route analysis, seconds on a large fabric, and must not hold up the
// other dumps or the status files; like them it skips stale generations.
// With a health source its link health overlay is the source's rows taken
// when the generation is handed over: a new generation redraws the page when
// the routing or the rows changed; a counter sweep alone does not (the rows
// of the moment are `ibsm ports`, the page is the generation's record).
//
// Both threads run at the lowest CPU priority (nice 19): at 27 648 hosts
// lfts.dump takes seconds of CPU after every generation, and on a busy
// machine it took them from the event loop (the SA answered 17 200
// PathRecord Gets/s while it wrote, half its rate). Files are written as
// soon as nothing else wants the CPU; a lone `--once` waits as long as before.
//
// The daemon's status (status_reporter.h) goes through the same thread:
// state.json and metrics.prom are replaced on every publish_status() (the
// temp-and-rename is node_exporter's textfile convention), and summary.txt
// is the snapshot's summary followed by the status' activity text.
#pragma once

#include "config/config.h"
#include "daemon/core/subnet.h"
#include "health/port_health.h"

#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ibsm::daemon {

// The status files' contents, formatted on the loop (status.h).
struct StatusFiles {
    std::string state_json; // state.json
    // metrics.prom, formatted on the writer thread: with a row per monitored
    // port it runs to tens of megabytes, too long to build on the event loop.
    // Empty: metrics.prom stays as it is (a status tick during a sweep).
    std::function<std::string()> metrics;
    std::string summary_tail; // appended to summary.txt
};

class DumpWriter {
public:
    DumpWriter(std::filesystem::path dir, config::DumpConfig which);
    ~DumpWriter()
    {
        report_pool_.join();
        pool_.join();
    }

    // Loop thread: the health rows report.html draws (the HealthMonitor's);
    // called on the loop at each publish() that draws a report.
    using HealthSource = std::function<std::vector<health::PortHealth>()>;
    void set_health_source(HealthSource source) { health_source_ = std::move(source); }
    // Loop thread: what to write from the next publish() on (SIGHUP).
    void set_config(config::DumpConfig which);
    // Loop thread: writes `snap`'s files in the background.
    void publish(SnapshotPtr snap);
    // Loop thread: writes state.json and metrics.prom, and summary.txt again
    // with the new tail, in the background; an older job not yet started is
    // skipped.
    void publish_status(StatusFiles files);
    // Waits for the jobs handed over so far (shutdown, tests).
    void drain()
    {
        report_pool_.join();
        pool_.join();
    }

    // The newest report.html written (0: none yet) and when (Unix seconds);
    // any thread.
    std::uint64_t report_generation() const { return report_generation_; }
    double report_written() const { return report_written_; }
    std::filesystem::path report_path() const { return dir_ / "report.html"; }

    // Files written / skipped unchanged / failed so far (any thread).
    std::uint64_t written() const { return written_; }
    std::uint64_t unchanged() const { return unchanged_; }
    std::uint64_t failed() const { return failed_; }

private:
    void write(const SnapshotPtr& snap, config::DumpConfig which);
    using HealthRows = std::shared_ptr<const std::vector<health::PortHealth>>;
    void write_report(const SnapshotPtr& snap, const HealthRows& health);
    void remove_report();
    void write_status(const StatusFiles& files, config::DumpConfig which);
    // summary.txt from the last snapshot's summary and the status tail.
    void write_summary(config::DumpConfig which, unsigned& files);

    std::filesystem::path dir_;
    config::DumpConfig which_;
    bool lfts_over_limit_ = false; // lfts.dump left out (dump.lfts_max_entries), said once
    std::atomic<std::uint64_t> newest_{0};
    std::atomic<std::uint64_t> written_{0}, unchanged_{0}, failed_{0};
    std::atomic<std::uint64_t> newest_status_{0};
    // Writer thread: the metrics of a status a newer one without metrics
    // replaced, written with that one.
    std::function<std::string()> held_metrics_;
    std::map<std::string, std::uint64_t> fingerprints_; // writer thread only
    std::string summary_, summary_tail_;                // writer thread only
    bool status_failing_ = false;                       // writer thread only
    std::atomic<std::uint64_t> newest_report_{0};
    std::atomic<std::uint64_t> report_generation_{0};
    std::atomic<double> report_written_{0};
    std::uint64_t report_fingerprint_ = 0; // report thread only
    bool report_failing_ = false;          // report thread only
    bool report_removed_ = false;          // loop thread only: removal posted, report off since
    HealthSource health_source_;           // loop thread only
    boost::asio::thread_pool pool_{1};
    boost::asio::thread_pool report_pool_{1};
};

} // namespace ibsm::daemon
