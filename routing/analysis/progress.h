// Progress of the analysis' long stages, for a caller that shows it.
//
// Why: on 11 664 hosts `ibsm analyze` works for seconds per stage; the tool
// shows how far it is, but the analysis does no I/O, so it only reports
// through a callback the caller gives (Options::progress).
//
// Data structures: per stage, the total of work items, an atomic count of
// those done, and the last whole percent reported.
//
// Algorithm: workers call tick() per item (an atomic add); only when the
// whole percent grows is the callback called, under a mutex, so it is
// called at most 101 times per stage, never concurrently, with growing
// counts. begin() reports 0 % so a stage is named as soon as it starts.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string_view>

namespace ibsm::routing::analysis {

// stage ("prepare", "trace", "ebb", "shifts"), items done, items in the stage.
using ProgressFn = std::function<void(std::string_view stage, std::size_t done, std::size_t total)>;

class StageProgress {
public:
    // `fn` may be empty (no reporting); it must outlive this object.
    StageProgress(const ProgressFn& fn, std::string_view stage, std::size_t total)
        : fn_(fn), stage_(stage), total_(total == 0 ? 1 : total)
    {
        if (fn_) fn_(stage_, 0, total_);
    }

    // Any thread: `n` more items done.
    void tick(std::size_t n = 1)
    {
        if (!fn_) return;
        const std::size_t done = done_.fetch_add(n, std::memory_order_relaxed) + n;
        const std::size_t percent = done * 100 / total_;
        if (percent <= reported_.load(std::memory_order_relaxed)) return;
        std::lock_guard<std::mutex> lock(mutex_);
        if (percent <= reported_.load(std::memory_order_relaxed)) return;
        reported_.store(percent, std::memory_order_relaxed);
        fn_(stage_, done, total_);
    }

private:
    const ProgressFn& fn_;
    std::string_view stage_;
    std::size_t total_;
    std::atomic<std::size_t> done_{0};
    std::atomic<std::size_t> reported_{0};
    std::mutex mutex_;
};

} // namespace ibsm::routing::analysis
