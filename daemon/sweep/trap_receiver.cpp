#include "daemon/sweep/trap_receiver.h"

#include "mad/notice.h"
#include "mad/smp.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

namespace ibsm::daemon {

namespace {

const char* trap_name(std::uint16_t n)
{
    switch (n) {
    case mad::trap::gid_in_service: return "GID in service";
    case mad::trap::gid_out_of_service: return "GID out of service";
    case mad::trap::link_state_change: return "link state change";
    case mad::trap::local_link_integrity: return "local link integrity threshold";
    case mad::trap::excessive_buffer_overrun: return "excessive buffer overrun threshold";
    case mad::trap::flow_control_watchdog: return "flow control update watchdog";
    case mad::trap::local_changes: return "local changes";
    case mad::trap::system_image_guid_change: return "system image GUID change";
    default: return "not acted on";
    }
}

bool acted_on(std::uint16_t n)
{
    switch (n) {
    case mad::trap::gid_in_service:
    case mad::trap::gid_out_of_service:
    case mad::trap::link_state_change:
    case mad::trap::local_link_integrity:
    case mad::trap::excessive_buffer_overrun:
    case mad::trap::flow_control_watchdog:
    case mad::trap::local_changes:
    case mad::trap::system_image_guid_change: return true;
    default: return false;
    }
}

} // namespace

void TrapReceiver::on_trap(const mad::RawReceive& r)
{
    ++total_;
    auto notice = mad::decode_notice(r.smp.data());
    if (!notice) {
        ++counts_[0].malformed;
        spdlog::warn("malformed trap dropped (Notice could not be decoded, {} bytes)", r.length);
        return;
    }
    const std::uint16_t number = notice->is_generic ? notice->trap_number_or_device_id : 0;
    auto& c = counts_[number];
    ++c.received;
    // Answer every copy: the issuer repeats until one TrapRepress arrives.
    if (transport_.respond(mad::make_trap_repress(r.smp), r))
        ++c.repressed;
    else
        spdlog::debug("TrapRepress for trap {} from LID {} could not be sent", number, notice->issuer_lid.value());

    if (!notice->is_generic || !acted_on(number)) {
        if (c.received == 1)
            spdlog::info("trap {} ({}) from LID {}: logged, not acted on", number, trap_name(number),
                         notice->issuer_lid.value());
        return;
    }
    // The same notice (issuer, number, details) while the last copy waits
    // for the scheduler is a repeat.
    std::array<std::uint8_t, mad::notice_smp_size> bytes{};
    std::copy(r.smp.data().begin(), r.smp.data().end(), bytes.begin());
    bytes[8] = bytes[9] = 0; // NoticeToggle/NoticeCount (bits 64..79) change between copies
    std::string key(bytes.begin(), bytes.end());
    if (!pending_.insert(std::move(key)).second) {
        ++c.repeats;
        spdlog::debug("trap {} from LID {} repeated (folded into the pending re-route)", number,
                      notice->issuer_lid.value());
        return;
    }
    spdlog::info("trap {} ({}) from LID {}", number, trap_name(number), notice->issuer_lid.value());
    events_.push(TrapEvent{*notice, notice->issuer_lid});
}

} // namespace ibsm::daemon
