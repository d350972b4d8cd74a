#include "daemon/sa/sa_trust.h"

#include "mad/sa/sa_mad.h"

namespace ibsm::daemon {

SaTrust sa_trust(std::uint64_t configured, std::uint64_t presented)
{
    if (configured == 0 || presented == 0) return SaTrust::untrusted;
    return presented == configured ? SaTrust::trusted : SaTrust::wrong_key;
}

bool host_writable(std::uint16_t attr_id)
{
    namespace attr = mad::sa::attr;
    return attr_id == attr::service_record || attr_id == attr::mcmember_record || attr_id == attr::inform_info;
}

bool security_trap(std::uint16_t trap_number)
{
    return trap_number >= 256 && trap_number <= 259;
}

bool RefusalLog::admit(Clock::time_point now, std::uint64_t* held_back)
{
    ++total_;
    if (last_ && now - *last_ < interval_) {
        ++held_;
        return false;
    }
    if (held_back) *held_back = held_;
    held_ = 0;
    last_ = now;
    return true;
}

} // namespace ibsm::daemon
