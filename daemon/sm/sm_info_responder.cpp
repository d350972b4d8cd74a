#include "daemon/sm/sm_info_responder.h"

#include "mad/notice.h"
#include "mad/smp.h"

#include <spdlog/spdlog.h>

#include <array>

namespace ibsm::daemon {

namespace {
// MAD status "invalid value in the attribute or modifier" (IBA 13.4.7).
constexpr std::uint16_t invalid_value = 0x001c;
} // namespace

SmInfoResponder::SmInfoResponder(mad::Transport& transport, Guid port_guid, std::uint8_t priority)
    : transport_(transport), guid_(port_guid), priority_(priority)
{
}

void SmInfoResponder::install(TrapHandler traps)
{
    traps_ = std::move(traps);
    transport_.set_unsolicited_handler([this](const mad::RawReceive& r) { on_unsolicited(r); });
}

mad::SmInfo SmInfoResponder::current() const
{
    mad::SmInfo si;
    si.guid = guid_;
    si.sm_key = sm_key_;
    si.act_count = static_cast<std::uint32_t>(transport_.counters().sent);
    si.priority = priority_;
    si.sm_state = state_;
    return si;
}

void SmInfoResponder::answer(const mad::RawReceive& r, mad::SmInfo si, std::uint16_t status)
{
    std::array<std::uint8_t, 64> data{};
    mad::encode(si, std::span<std::uint8_t, 64>(data));
    if (transport_.respond(mad::make_get_resp(r.smp, data, status), r)) {
        ++counters_.sm_info_answered;
        spdlog::debug("answered SMInfo {} ({} so far)", r.smp.method() == 1 ? "Get" : "Set", counters_.sm_info_answered);
    } else {
        spdlog::warn("could not send the SMInfo response");
    }
}

void SmInfoResponder::on_unsolicited(const mad::RawReceive& r)
{
    const auto& smp = r.smp;
    const auto method = static_cast<mad::Method>(smp.method());
    if (method == mad::Method::get && smp.attr_id() == mad::attr::sm_info) {
        // The key only to a requester that knows it (IBA 14.4.1).
        const auto asked = mad::decode_sm_info(smp.data());
        auto si = current();
        if (!asked || asked->sm_key != sm_key_) {
            if (sm_key_ != 0 && counters_.key_withheld++ == 0)
                spdlog::info("SMInfo Get without our SM_Key: answered with SM_Key 0 (further ones not logged)");
            si.sm_key = 0;
        }
        answer(r, si, 0);
        return;
    }
    if (method == mad::Method::set && smp.attr_id() == mad::attr::sm_info) {
        const auto sender = mad::decode_sm_info(smp.data());
        const bool ok = sender && control_ && control_(smp.attr_mod(), *sender);
        ++(ok ? counters_.sets_accepted : counters_.sets_refused);
        auto si = current();
        if (!sender || sender->sm_key != sm_key_) si.sm_key = 0;
        answer(r, si, ok ? 0 : invalid_value);
        return;
    }
    if (method == mad::Method::trap && smp.attr_id() == mad::attr::notice) {
        ++counters_.traps;
        if (traps_) {
            traps_(r);
            return;
        }
        auto n = mad::decode_notice(smp.data());
        const std::uint16_t number = n ? n->trap_number_or_device_id : 0;
        if (traps_by_number_[number]++ == 0)
            spdlog::info("trap {} from LID {} (no trap handler: dropped)", number, n ? n->issuer_lid.value() : 0);
        return;
    }
    // A Get or Set of an attribute the SM does not serve reached it because
    // nothing else on this port serves it either: answer "unsupported
    // method/attribute combination" (IBA 13.4.7 table 27-2; the answer is
    // optional, 14.2.1, OpenSM drops these) so the sender stops waiting.
    // SMInfo Sets are the master/standby protocol's, not "unsupported".
    bool answered = false;
    if ((method == mad::Method::get || method == mad::Method::set) && smp.attr_id() != mad::attr::sm_info) {
        answered = transport_.respond(mad::make_get_resp(smp, {}, mad::mad_status::method_attribute_unsupported), r);
        if (answered) ++counters_.unsupported_answered;
    }
    ++counters_.ignored;
    // Once per kind at info: a flood of one kind must not flood the log.
    const auto kind = std::uint32_t{smp.mgmt_class()} << 24 | std::uint32_t{smp.method()} << 16 | smp.attr_id();
    if (ignored_by_kind_[kind]++ == 0)
        spdlog::info("unsolicited MAD {}: class 0x{:02x} method 0x{:02x} attribute 0x{:04x} (further ones of "
                     "this kind at debug level)",
                     answered ? "answered 'unsupported attribute'" : "ignored", smp.mgmt_class(), smp.method(),
                     smp.attr_id());
    else
        spdlog::debug("ignored unsolicited MAD: class 0x{:02x} method 0x{:02x} attribute 0x{:04x}", smp.mgmt_class(),
                      smp.method(), smp.attr_id());
}

} // namespace ibsm::daemon
