// common/parallel_for.h: every index once, workers within the count, and
// the exception of the lowest index rethrown on the caller's thread once
// every worker has stopped. Run under TSan too (scripts/test).
#include "common/parallel_for.h"

#include <catch2/catch.hpp>

#include <atomic>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using ibsm::common::max_default_workers;
using ibsm::common::parallel_for;
using ibsm::common::worker_count;

TEST_CASE("worker_count: what is asked for, else the hardware's threads within the cap")
{
    CHECK(worker_count(1) == 1);
    CHECK(worker_count(5) == 5);
    CHECK(worker_count(40) == 40);
    const unsigned d = worker_count(0);
    CHECK(d >= 1);
    CHECK(d <= max_default_workers);
    const unsigned hw = std::thread::hardware_concurrency();
    if (hw >= 1 && hw <= max_default_workers) CHECK(d == hw);
    CHECK(worker_count() == d);
}

TEST_CASE("parallel_for calls every index once, with a worker below the count")
{
    for (unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}}) {
            INFO("threads " << threads << ", n " << n);
            std::vector<std::atomic<int>> calls(n);
            std::atomic<unsigned> top_worker{0};
            parallel_for(n, threads, [&](std::size_t i, unsigned w) {
                calls[i].fetch_add(1);
                unsigned seen = top_worker.load();
                while (w > seen && !top_worker.compare_exchange_weak(seen, w)) {}
            });
            for (std::size_t i = 0; i < n; ++i) CHECK(calls[i].load() == 1);
            CHECK(top_worker.load() < worker_count(threads));
            if (n > 0) CHECK(top_worker.load() < n);
        }
    }
}

TEST_CASE("parallel_for on one thread runs in index order on the caller's thread")
{
    const auto caller = std::this_thread::get_id();
    std::vector<std::size_t> order;
    parallel_for(6, 1, [&](std::size_t i, unsigned w) {
        CHECK(w == 0);
        CHECK(std::this_thread::get_id() == caller);
        order.push_back(i);
    });
    CHECK(order == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("parallel_for uses other threads when asked for several")
{
    // Index 0 waits until index 1 has started, so two threads must run them.
    std::atomic<bool> one_started{false};
    std::vector<std::thread::id> ran(2);
    parallel_for(2, 2, [&](std::size_t i, unsigned) {
        ran[i] = std::this_thread::get_id();
        if (i == 1) one_started = true;
        while (!one_started) std::this_thread::yield();
    });
    CHECK(ran[0] != ran[1]);
}

TEST_CASE("parallel_for rethrows the lowest index's exception after every worker stopped")
{
    for (unsigned threads : {1u, 2u, 4u}) {
        INFO("threads " << threads);
        const std::size_t n = 2000;
        std::vector<std::atomic<int>> calls(n);
        std::atomic<int> running{0};
        std::atomic<int> running_at_catch{-1};
        try {
            parallel_for(n, threads, [&](std::size_t i, unsigned) {
                ++running;
                calls[i].fetch_add(1);
                std::this_thread::yield();
                --running;
                if (i == 700 || i == 701 || i == 1500) throw std::runtime_error("index " + std::to_string(i));
            });
            FAIL("nothing thrown");
        } catch (const std::runtime_error& e) {
            running_at_catch = running.load();
            CHECK(std::string(e.what()) == "index 700");
        }
        CHECK(running_at_catch.load() == 0);
        // Every index below the first that threw ran, once.
        for (std::size_t i = 0; i <= 700; ++i) CHECK(calls[i].load() == 1);
        if (threads == 1) CHECK(calls[701].load() == 0); // in order: nothing after the throw
    }
}

TEST_CASE("parallel_for: a worker thread's throw reaches the caller, whichever thread it was")
{
    // As above, the two indices run on two threads; both throw, the lower wins.
    for (int round = 0; round < 20; ++round) {
        std::atomic<bool> one_started{false};
        std::vector<std::thread::id> ran(2);
        try {
            parallel_for(2, 2, [&](std::size_t i, unsigned) {
                ran[i] = std::this_thread::get_id();
                if (i == 1) one_started = true;
                while (!one_started) std::this_thread::yield();
                throw std::runtime_error(i == 0 ? "zero" : "one");
            });
            FAIL("nothing thrown");
        } catch (const std::runtime_error& e) {
            CHECK(std::string(e.what()) == "zero");
        }
        CHECK(ran[0] != ran[1]);
    }
}

TEST_CASE("parallel_for rethrows bad_alloc as bad_alloc")
{
    CHECK_THROWS_AS(parallel_for(100, 3,
                                 [](std::size_t i, unsigned) {
                                     if (i == 42) throw std::bad_alloc();
                                 }),
                    std::bad_alloc);
}
