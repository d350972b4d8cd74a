// The events feed: every follower present when an event is published gets
// it, stamped with the time and its kind; followers may leave (or make
// others leave, or join) while an event is handed out.
#include "daemon/core/event_feed.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

using namespace ibsm;

TEST_CASE("publish stamps time and kind over the producer's fields; other values are carried as value", "[feed]")
{
    double now = 100.5;
    daemon::EventFeed feed([&] { return now; });
    std::vector<nlohmann::json> seen;
    feed.follow([&](const nlohmann::json& e) { seen.push_back(e); });
    feed.publish("trap", {{"number", 128}, {"time", 1}, {"event", "forged"}});
    now = 101;
    feed.publish("count", 7);
    feed.publish("reload");
    feed.publish("nothing", nullptr);
    REQUIRE(seen.size() == 4);
    CHECK(seen[0] == nlohmann::json{{"time", 100.5}, {"event", "trap"}, {"number", 128}});
    CHECK(seen[1] == nlohmann::json{{"time", 101}, {"event", "count"}, {"value", 7}});
    CHECK(seen[2] == nlohmann::json{{"time", 101}, {"event", "reload"}});
    CHECK(seen[3] == nlohmann::json{{"time", 101}, {"event", "nothing"}});
    CHECK(feed.published() == 4);
}

TEST_CASE("followers may leave, make others leave or join while an event is handed out", "[feed]")
{
    daemon::EventFeed feed([] { return 1.0; });
    std::vector<int> calls;
    std::uint64_t b = 0, c = 0;
    const auto a = feed.follow([&](const nlohmann::json&) {
        calls.push_back(1);
        feed.unfollow(b); // b leaves before its turn: it does not get this event
        if (!c) c = feed.follow([&](const nlohmann::json&) { calls.push_back(3); });
    });
    b = feed.follow([&](const nlohmann::json&) { calls.push_back(2); });
    feed.publish("x");
    // c joined during the event: it gets the next one, not this one.
    CHECK(calls == std::vector<int>{1});
    CHECK(feed.followers() == 2);
    feed.publish("y");
    CHECK(calls == std::vector<int>{1, 1, 3});

    // A follower that leaves during its own call.
    std::uint64_t self = 0;
    int once = 0;
    self = feed.follow([&](const nlohmann::json&) {
        ++once;
        feed.unfollow(self);
    });
    feed.unfollow(a);
    feed.publish("z");
    feed.publish("z");
    CHECK(once == 1);
    CHECK(feed.followers() == 1);
    // Unfollowing an unknown id is harmless.
    feed.unfollow(12345);
    CHECK(feed.followers() == 1);
}

TEST_CASE("the default clock is Unix time", "[feed]")
{
    daemon::EventFeed feed;
    double t = 0;
    feed.follow([&](const nlohmann::json& e) { t = e["time"].get<double>(); });
    const double before =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    feed.publish("tick");
    CHECK(t >= before);
    CHECK(t < before + 60);
}
