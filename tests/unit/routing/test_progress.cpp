// Progress reports of the engine chain and the analysis (routing/engine.h
// Options::progress, routing/analysis/progress.h): every stage is named,
// its counts only grow and end at its total, stages do not interleave, and
// the callback is never entered by two threads at once.
#include "lidassign/base_lids.h"
#include "routing/analysis/analyze.h"
#include "routing/chain.h"
#include "routing/registry.h"
#include "test_minhop_fabrics.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

using namespace ibsm;
using namespace ibsm::routing;
using namespace ibsm::test;

namespace {

struct Call {
    std::string stage;
    std::size_t done, total;
};

struct Recorder {
    std::vector<Call> calls;
    std::atomic<int> inside{0};
    bool overlapped = false;
    analysis::ProgressFn fn()
    {
        return [this](std::string_view stage, std::size_t done, std::size_t total) {
            if (inside.fetch_add(1) != 0) overlapped = true;
            calls.push_back(Call{std::string(stage), done, total});
            inside.fetch_sub(1);
        };
    }
    // Stage names in the order they first appear; checks each stage's calls
    // are one contiguous run with growing counts ending at the total.
    std::vector<std::string> stages() const
    {
        std::vector<std::string> order;
        std::map<std::string, std::size_t> last_done;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const Call& c = calls[i];
            INFO(c.stage << " " << c.done << "/" << c.total);
            if (order.empty() || order.back() != c.stage) {
                CHECK(std::find(order.begin(), order.end(), c.stage) == order.end());
                order.push_back(c.stage);
            } else if (c.total == calls[i - 1].total) {
                CHECK(c.done >= last_done[c.stage]);
            }
            CHECK(c.done <= c.total);
            last_done[c.stage] = c.done;
            const bool stage_ends = i + 1 == calls.size() || calls[i + 1].stage != c.stage;
            if (stage_ends) CHECK(c.done == c.total);
        }
        return order;
    }
};

} // namespace

TEST_CASE("The chain reports the engine's stage with minhop's per-switch counts, then the verification")
{
    auto t = two_level(8, 4, 6);
    auto lids = simple_lids(t.fabric);
    Recorder rec;
    Options options;
    options.progress = rec.fn();
    auto out = run_chain(default_registry(), ChainSpec{{"minhop"}, true}, t.fabric, lids, options);
    REQUIRE(out.tables);
    CHECK_FALSE(rec.overlapped);
    CHECK(rec.stages() == std::vector<std::string>{"route (minhop)", "verify (minhop)"});
    // minhop's own counts: one per switch.
    bool per_switch = false;
    for (const auto& c : rec.calls) per_switch |= c.stage == "route (minhop)" && c.total == 12 && c.done == 12;
    CHECK(per_switch);
}

TEST_CASE("Without a callback nothing is reported and the results are the same")
{
    auto t = two_level(4, 2, 3);
    auto lids = simple_lids(t.fabric);
    Recorder rec;
    Options quiet, loud;
    loud.progress = rec.fn();
    auto a = run_chain(default_registry(), ChainSpec{{"minhop"}, true}, t.fabric, lids, quiet);
    auto b = run_chain(default_registry(), ChainSpec{{"minhop"}, true}, t.fabric, lids, loud);
    REQUIRE(a.tables);
    REQUIRE(b.tables);
    CHECK(a.tables->lfts.size() == b.tables->lfts.size());
    for (const auto& [node, lft] : a.tables->lfts) CHECK(lft.port == b.tables->lfts.at(node).port);
    CHECK_FALSE(rec.calls.empty());
}

TEST_CASE("The analysis reports its stages in order from its worker threads, one call at a time")
{
    auto t = two_level(8, 4, 6);
    auto lids = simple_lids(t.fabric);
    auto out = run_chain(default_registry(), ChainSpec{{"minhop"}, true}, t.fabric, lids, Options{});
    REQUIRE(out.tables);
    lidassign::apply_lids(lids, t.fabric);
    Recorder rec;
    analysis::Options o;
    o.ebb.bisections = 300;
    o.threads = 4;
    o.progress = rec.fn();
    auto report = analysis::analyze(t.fabric, *out.tables, o);
    CHECK_FALSE(rec.overlapped);
    CHECK(rec.stages() == std::vector<std::string>{"prepare", "trace", "credit_loops", "ebb", "shifts"});
    for (const auto& c : rec.calls) {
        if (c.stage == "ebb") CHECK(c.total == 300);
        if (c.stage == "shifts") CHECK(c.total == 47); // 48 hosts: shifts 1..47
        if (c.stage == "trace") CHECK(c.total == 60);  // 48 hosts + 12 switches
    }
    // At most one call per whole percent, plus the 0 % at the start.
    std::map<std::string, std::size_t> per_stage;
    for (const auto& c : rec.calls) ++per_stage[c.stage];
    for (const auto& [stage, n] : per_stage) CHECK(n <= 101);
    CHECK(report.ebb->bisections == 300);
}
