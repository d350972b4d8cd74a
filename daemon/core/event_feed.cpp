#include "daemon/core/event_feed.h"

#include <chrono>
#include <utility>
#include <vector>

namespace ibsm::daemon {

EventFeed::EventFeed()
    : now_([] {
          return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      })
{
}

std::uint64_t EventFeed::follow(Follower f)
{
    const auto id = next_id_++;
    followers_.emplace(id, std::move(f));
    return id;
}

void EventFeed::unfollow(std::uint64_t id) { followers_.erase(id); }

void EventFeed::publish(std::string_view kind, nlohmann::json fields)
{
    nlohmann::json line = nlohmann::json::object();
    line["time"] = now_();
    line["event"] = std::string(kind);
    if (fields.is_object()) {
        for (auto& [k, v] : fields.items())
            if (k != "time" && k != "event") line[k] = std::move(v);
    } else if (!fields.is_null()) {
        line["value"] = std::move(fields);
    }
    ++published_;
    // A follower may unfollow itself or another while being called.
    std::vector<std::uint64_t> ids;
    ids.reserve(followers_.size());
    for (const auto& [id, f] : followers_) ids.push_back(id);
    for (auto id : ids) {
        auto it = followers_.find(id);
        if (it == followers_.end()) continue;
        auto f = it->second; // a copy: the follower may erase its own entry
        f(line);
    }
}

} // namespace ibsm::daemon
