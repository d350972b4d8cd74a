#include "daemon/service/mkey_rotation.h"

#include "daemon/service/settings.h"

#include <spdlog/spdlog.h>

namespace ibsm::daemon {

namespace {

std::string describe(const MkeySettings& s)
{
    if (!s.enabled) return "off";
    return std::string(s.ring.is_fixed() ? "fixed key" : "per-port keys") + " (fingerprint " + s.ring.fingerprint() +
           ", protect bits " + std::to_string(s.protect_bits) + ", lease " + std::to_string(s.lease_period_s) + " s)";
}

} // namespace

RotationDecision decide_rotation(const MkeySettings& running, const std::variant<MkeySettings, std::string>& next,
                                 const std::string& secret_file)
{
    if (const auto* why = std::get_if<std::string>(&next))
        return {false, "M_Key rotation refused, keeping the keys in use: " + *why};
    const auto& n = std::get<MkeySettings>(next);
    if (!running.enabled && !n.enabled)
        return {false, "M_Key rotation refused: M_Key protection is off (security.mkey.mode)"};
    if (n == running)
        return {false, "M_Key rotation refused: " + secret_file + " holds the " +
                           (n.ring.is_fixed() ? "key" : "secret") + " in use (fingerprint " + n.ring.fingerprint() +
                           "); write a new one there first, then rotate"};
    return {true, "M_Key rotation started: " + describe(running) + " -> " + describe(n) +
                      "; the next sweep re-keys every port"};
}

RotationDecision rotate_mkeys(MkeyBook& book, const config::Config& running_config)
{
    auto next = mkey_settings(running_config); // read once: what is decided on is what is applied
    auto d = decide_rotation(book.settings(), next, running_config.security.mkey.secret_file);
    if (!d.start) {
        spdlog::warn("{}", d.text);
        return d;
    }
    book.set_settings(std::get<MkeySettings>(std::move(next)));
    spdlog::info("{}", d.text);
    return d;
}

} // namespace ibsm::daemon
