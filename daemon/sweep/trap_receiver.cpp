#include "daemon/sweep/trap_receiver.h"

#include "mad/notice.h"
#include "mad/smp.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string>
#include <variant>

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
    case mad::trap::bad_mkey: return "bad M_Key";
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

std::string violation_source(const mad::BadMkeyDetails& b)
{
    if (!b.directed_route) return "LID " + std::to_string(b.lid.value());
    std::string from = "a directed-route SMP (DrSLID " + std::to_string(b.dr_slid.value()) + ", " +
                       std::to_string(b.hop_count) + " hop(s), return path";
    for (std::size_t i = 0; i < b.hop_count && i < b.return_path.size(); ++i)
        from += (i ? "," : " ") + std::to_string(b.return_path[i]);
    return from + (b.truncated ? ",...)" : ")");
}

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
    if (on_notice_) on_notice_(*notice);

    if (const auto* b = std::get_if<mad::BadMkeyDetails>(&notice->details); b && notice->is_generic) {
        // Every one is logged: each is an SMP someone sent with the wrong
        // key (the port's lease timer is running), not a repeat of news.
        const std::string from = violation_source(*b);
        spdlog::warn("M_Key violation (trap 256) at LID {}: method 0x{:02x} attribute 0x{:04x} modifier 0x{:x} "
                     "with a wrong M_Key, from {}",
                     notice->issuer_lid.value(), b->method, b->attr_id, b->attr_mod, from);
        if (on_violation_) on_violation_(MkeyViolation{notice->issuer_lid, *b, from});
        return;
    }
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
