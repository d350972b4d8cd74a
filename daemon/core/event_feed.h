// The events feed: what `ibsm events --follow` prints, one JSON object per
// event (traps, sweeps and re-routes, SM state changes, what the health
// monitor decides).
//
// Why: the producers (the scheduler's observers, the election, the health
// monitor) must not know who listens, and a listener must not slow them: the
// feed hands every event to every follower synchronously on the loop, and a
// follower that cannot keep up (a slow socket) is the follower's problem (the
// control server bounds its queue and drops it).
//
// Data structures: followers by id, in a map so that one may leave, or make
// another leave, while an event is being handed out; a clock giving Unix
// seconds (replaceable for tests).
//
// Algorithm: publish() stamps the event with "time" and "event" (its kind)
// beside the producer's fields and calls every follower present when it
// started that is still present when its turn comes.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string_view>

namespace ibsm::daemon {

class EventFeed {
public:
    using Follower = std::function<void(const nlohmann::json&)>;
    using Clock = std::function<double()>; // Unix seconds

    EventFeed();
    explicit EventFeed(Clock now) : now_(std::move(now)) {}

    // Returns the id unfollow() takes.
    std::uint64_t follow(Follower f);
    void unfollow(std::uint64_t id);

    // `fields` is an object (anything else is carried as {"value": fields});
    // "time" and "event" in it are overwritten.
    void publish(std::string_view kind, nlohmann::json fields = nlohmann::json::object());

    std::size_t followers() const { return followers_.size(); }
    std::uint64_t published() const { return published_; }

private:
    Clock now_;
    std::map<std::uint64_t, Follower> followers_;
    std::uint64_t next_id_ = 1;
    std::uint64_t published_ = 0;
};

} // namespace ibsm::daemon
