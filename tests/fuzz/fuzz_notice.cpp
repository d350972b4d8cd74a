// libFuzzer harness for the Notice (trap) decoder, mad/notice.h. The input
// is a Notice as an SMP carries it (64 bytes, no IssuerGID) or as an SA
// report does (80 bytes); other lengths must be refused or read as the first
// 64/80 bytes, never past the end.
//
// Checks: a decoded Notice re-encodes (in the form its length allows) to
// bytes that decode to the same Notice; the typed details of a trap number
// the codec knows survive the trip.
#include "mad/notice.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ibsm::mad;
    const auto n = decode_notice(std::span<const std::uint8_t>(data, size));
    if (!n) return 0;
    std::array<std::uint8_t, notice_smp_size> smp{};
    encode(*n, std::span<std::uint8_t, notice_smp_size>(smp));
    auto back = decode_notice(smp);
    if (!back) std::abort();
    Notice without_gid = *n;
    without_gid.issuer_gid = {};
    if (!(*back == without_gid)) std::abort();

    std::array<std::uint8_t, notice_size> full{};
    encode_with_issuer_gid(*n, std::span<std::uint8_t, notice_size>(full));
    back = decode_notice(full);
    if (!back || !(*back == *n)) std::abort();
    return 0;
}
