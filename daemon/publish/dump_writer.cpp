#include "daemon/publish/dump_writer.h"

#include "daemon/core/atomic_file.h"
#include "daemon/publish/report_dump.h"
#include "daemon/publish/state_dump.h"
#include "health/port_health_json.h"
#include "routing/path_file.h"
#include "routing/sl_file.h"

#include <boost/asio/post.hpp>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <sys/resource.h>
#include <unistd.h>
#include <utility>

namespace ibsm::daemon {

namespace {

// FNV-1a, 64 bits: enough to tell "changed" from "unchanged".
class Fingerprint {
public:
    template <class T>
    Fingerprint& add(const T& v)
    {
        const auto* p = reinterpret_cast<const unsigned char*>(&v);
        for (std::size_t i = 0; i < sizeof v; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ULL;
        return *this;
    }
    Fingerprint& add_bytes(const std::uint8_t* p, std::size_t n)
    {
        for (std::size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 0x100000001b3ULL;
        return *this;
    }
    Fingerprint& add(const std::string& s)
    {
        add(s.size());
        return add_bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
    }
    std::uint64_t value() const { return h_; }

private:
    std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

void add_fabric(Fingerprint& fp, const topology::Fabric& f)
{
    for (const auto& n : f.nodes()) {
        fp.add(n.guid.value()).add(n.description).add(n.ports.size());
        for (const auto& p : n.ports)
            fp.add(p.guid.value()).add(p.lid.value()).add(p.lmc).add(p.remote.has_value())
                .add(p.remote ? f.node(p.remote->node).guid.value() : 0).add(p.remote ? p.remote->port.value() : 0);
    }
}

void add_lids(Fingerprint& fp, const SubnetSnapshot& s)
{
    for (const auto& [ref, l] : s.lids.lids.entries())
        fp.add(s.found.fabric.port(ref).guid.value()).add(ref.port.value()).add(l.base.value()).add(l.lmc);
}

void add_lfts(Fingerprint& fp, const SubnetSnapshot& s)
{
    for (const auto& [id, lft] : s.tables->lfts)
        fp.add(s.found.fabric.node(id).guid.value()).add_bytes(lft.port.data(), lft.port.size());
}

// Lowers the calling thread's CPU priority to the least (Linux: a
// thread's nice value is its own). Not being able to is no reason to stop.
void run_at_lowest_priority()
{
    if (setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 19) != 0)
        spdlog::debug("dump writer: cannot lower the thread's priority: {}", std::strerror(errno));
}

} // namespace

DumpWriter::DumpWriter(std::filesystem::path dir, config::DumpConfig which) : dir_(std::move(dir)), which_(which)
{
    boost::asio::post(pool_, run_at_lowest_priority);
    boost::asio::post(report_pool_, run_at_lowest_priority);
}

void DumpWriter::publish(SnapshotPtr snap)
{
    if (!snap) return;
    newest_ = snap->generation;
    if (which_.report && snap->tables) {
        newest_report_ = snap->generation;
        // The monitor lives on the loop: its rows are copied here, not read
        // from the report thread.
        auto health = std::make_shared<const std::vector<health::PortHealth>>(
            health_source_ ? health_source_() : std::vector<health::PortHealth>{});
        boost::asio::post(report_pool_, [this, snap, health] { write_report(snap, health); });
    } else if (!which_.report && !report_removed_) {
        remove_report(); // one left by an earlier run with the report on
    }
    boost::asio::post(pool_, [this, snap = std::move(snap), which = which_] { write(snap, which); });
}

void DumpWriter::set_config(config::DumpConfig which)
{
    // Turned off (SIGHUP): a report of an older generation would mislead.
    if (which_.report && !which.report) remove_report();
    if (which.report) report_removed_ = false;
    which_ = which;
}

void DumpWriter::remove_report()
{
    report_removed_ = true;
    boost::asio::post(report_pool_, [this] {
        std::error_code ignored;
        std::filesystem::remove(dir_ / "report.html", ignored);
        report_fingerprint_ = 0;
        report_generation_ = 0;
    });
}

void DumpWriter::write_report(const SnapshotPtr& snap, const HealthRows& health)
{
    if (snap->generation < newest_report_) return; // a newer generation is queued
    const auto& s = *snap;
    // The report depends on the fabric, the LIDs, the tables and the health
    // rows; a re-route that changed none keeps the file (and its generation).
    Fingerprint fp;
    add_fabric(fp, s.found.fabric);
    add_lids(fp, s);
    fp.add(s.engine);
    add_lfts(fp, s);
    if (s.tables->pair_dlids) fp.add_bytes(s.tables->pair_dlids->offset.data(), s.tables->pair_dlids->offset.size());
    if (!health->empty()) fp.add(health::ports_to_json(*health).dump());
    if (fp.value() == report_fingerprint_) {
        ++unchanged_;
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
        const std::string html = render_generation_report(s, *health);
        write_file_atomically(dir_ / "report.html", html);
        report_fingerprint_ = fp.value();
        ++written_;
        report_generation_ = s.generation;
        report_written_ =
            std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
        if (report_failing_) spdlog::info("report.html written to {} again", dir_.string());
        report_failing_ = false;
        spdlog::info("generation {}: wrote report.html ({} KiB) to {} in {:.3f} s", s.generation, html.size() / 1024,
                     dir_.string(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    } catch (const std::exception& e) {
        ++failed_;
        report_fingerprint_ = 0;
        if (!report_failing_)
            spdlog::error("report.html for generation {} not written ({}); the SM keeps running. Make {} writable or "
                          "turn the report off (dump.report in the configuration)",
                          s.generation, e.what(), dir_.string());
        report_failing_ = true;
    }
}

void DumpWriter::publish_status(StatusFiles files)
{
    const auto seq = ++newest_status_;
    boost::asio::post(pool_, [this, seq, files = std::move(files), which = which_]() mutable {
        // A newer status replaces this one; its metrics.prom waits for the
        // newer one when that has none of its own.
        if (seq != newest_status_) {
            if (files.metrics) held_metrics_ = std::move(files.metrics);
            return;
        }
        if (!files.metrics) files.metrics = std::exchange(held_metrics_, {});
        held_metrics_ = {};
        write_status(files, which);
    });
}

void DumpWriter::write_status(const StatusFiles& files, config::DumpConfig which)
{
    try {
        write_file_atomically(dir_ / "state.json", files.state_json);
        if (files.metrics) write_file_atomically(dir_ / "metrics.prom", files.metrics());
        if (status_failing_) spdlog::info("status files written to {} again", dir_.string());
        status_failing_ = false;
    } catch (const std::exception& e) {
        // Once per failing stretch: the status is rewritten every few seconds.
        if (!status_failing_)
            spdlog::error("status files not written ({}); the SM keeps running. Make {} writable", e.what(),
                          dir_.string());
        status_failing_ = true;
    }
    summary_tail_ = files.summary_tail;
    unsigned ignored = 0;
    write_summary(which, ignored);
}

void DumpWriter::write_summary(config::DumpConfig which, unsigned& files)
{
    if (!which.summary || summary_.empty()) return;
    const std::string text = summary_tail_.empty() ? summary_ : summary_ + "\n" + summary_tail_;
    Fingerprint sf;
    sf.add(text);
    auto& last = fingerprints_["summary.txt"];
    if (last == sf.value()) {
        ++unchanged_;
        return;
    }
    try {
        write_file_atomically(dir_ / "summary.txt", text);
        last = sf.value();
        ++written_;
        ++files;
    } catch (const std::exception& e) {
        ++failed_;
        last = 0;
        spdlog::error("dump summary.txt not written ({}); the SM keeps running. Make {} writable or turn the file off "
                      "(dump.summary in the configuration)",
                      e.what(), dir_.string());
    }
}

void DumpWriter::write(const SnapshotPtr& snap, config::DumpConfig which)
{
    if (snap->generation < newest_) return; // a newer generation is queued
    const auto start = std::chrono::steady_clock::now();
    const auto& s = *snap;
    unsigned files = 0;
    auto one = [&](const char* name, bool enabled, std::uint64_t fingerprint, auto writer) {
        if (!enabled) return;
        auto& last = fingerprints_[name];
        if (last == fingerprint && fingerprint != 0) {
            ++unchanged_;
            return;
        }
        try {
            write_file_atomically(dir_ / name, writer);
            last = fingerprint;
            ++written_;
            ++files;
        } catch (const std::exception& e) {
            ++failed_;
            last = 0;
            spdlog::error("dump {} not written ({}); the SM keeps running. Make {} writable or turn the file off "
                          "(dump.* in the configuration)",
                          name, e.what(), dir_.string());
        }
    };

    const std::uint64_t lft_entries =
        s.tables ? std::uint64_t{s.tables->lfts.size()} * (std::uint64_t{s.tables->linear_fdb_top.value()} + 1) : 0;
    if (s.tables && which.lfts && which.lfts_max_entries && lft_entries > which.lfts_max_entries) {
        std::error_code ignored;
        if (std::filesystem::remove(dir_ / "lfts.dump", ignored) || !lfts_over_limit_)
            spdlog::info("dump lfts.dump not written: {} switches x {} LIDs = {} entries is more than "
                         "dump.lfts_max_entries {} (about {} MB of text); raise it or set it to 0 to have it",
                         s.tables->lfts.size(), s.tables->linear_fdb_top.value() + 1, lft_entries,
                         which.lfts_max_entries, lft_entries * 70 / 1'000'000);
        lfts_over_limit_ = true;
        fingerprints_.erase("lfts.dump");
    } else if (s.tables) {
        lfts_over_limit_ = false;
        Fingerprint lf;
        add_lids(lf, s);
        add_lfts(lf, s);
        one("lfts.dump", which.lfts, lf.value(),
            [&](std::ostream& out) { write_lfts_dump(out, s.found, s.lids.lids, *s.tables); });
    }
    // The SLs when the engine uses more than one (dfsssp); a file left from
    // an earlier routing would be read with the wrong tables, so it goes.
    if (s.tables && s.tables->sl.max_sl() > 0) {
        Fingerprint slf;
        add_lids(slf, s);
        const auto& sl = s.tables->sl;
        for (const auto& src : sl.sources()) slf.add(s.found.fabric.port(src).guid.value()).add(src.port.value());
        for (std::size_t row = 0; row < sl.sources().size(); ++row)
            for (std::uint32_t lid = 0; lid < sl.lid_limit(); ++lid) slf.add(sl.get(row, lid));
        one("sl.txt", which.sl, slf.value(),
            [&](std::ostream& out) { routing::write_sl_file(out, s.found.fabric, *s.tables); });
    } else if (fingerprints_.count("sl.txt") || std::filesystem::exists(dir_ / "sl.txt")) {
        std::error_code ignored;
        std::filesystem::remove(dir_ / "sl.txt", ignored);
        fingerprints_.erase("sl.txt");
    }
    // Per-pair path routing: the DLID of every pair (routing/path_file.h),
    // written with lfts.dump since those tables mean nothing without it; a
    // file left from an earlier path routing goes like sl.txt.
    if (s.tables && s.tables->pair_dlids) {
        const auto& dl = *s.tables->pair_dlids;
        Fingerprint pf;
        add_lids(pf, s);
        pf.add(s.engine);
        for (const auto& src : dl.sources) pf.add(s.found.fabric.port(src).guid.value()).add(src.port.value());
        pf.add_bytes(dl.offset.data(), dl.offset.size());
        one("paths.txt", which.lfts, pf.value(),
            [&](std::ostream& out) { routing::write_path_file(out, s.found.fabric, dl, s.engine); });
    } else if (fingerprints_.count("paths.txt") || std::filesystem::exists(dir_ / "paths.txt")) {
        std::error_code ignored;
        std::filesystem::remove(dir_ / "paths.txt", ignored);
        fingerprints_.erase("paths.txt");
    }
    Fingerprint tf;
    add_fabric(tf, s.found.fabric);
    add_lids(tf, s);
    tf.add(s.engine);
    one("topology.net", which.topology, tf.value(),
        [&](std::ostream& out) { write_topology_net(out, s.found, s.lids.lids, s.engine); });
    if (!s.summary.empty()) summary_ = s.summary;
    write_summary(which, files);
    if (files)
        spdlog::info("generation {}: wrote {} dump file(s) to {} in {:.3f} s", s.generation, files, dir_.string(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

} // namespace ibsm::daemon
