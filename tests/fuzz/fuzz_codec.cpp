// libFuzzer harness for one MAD attribute codec, chosen at build time
// (tests/fuzz/meson.build compiles this file once per codec with
// IBSM_FUZZ_DECODE naming the decoder). The input is the SMP data field as
// it arrives from the wire, of any length.
//
// Checks beyond "no crash, no UB": what the decoder accepts re-encodes to
// bytes that decode to the same value, and encoding that value again gives
// the same bytes (reserved bits may be dropped once, never twice).
#include "mad/linear_forwarding_table.h"
#include "mad/node_description.h"
#include "mad/node_info.h"
#include "mad/port_info.h"
#include "mad/sl2vl_table.h"
#include "mad/sm_info.h"
#include "mad/switch_info.h"
#include "mad/vl_arbitration.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#ifndef IBSM_FUZZ_DECODE
#error "IBSM_FUZZ_DECODE must name a mad::decode_* function"
#endif

namespace {

template <typename Decode>
void round_trip(Decode decode, std::span<const std::uint8_t> in)
{
    const auto value = decode(in);
    if (!value) return;
    std::array<std::uint8_t, 64> once{};
    ibsm::mad::encode(*value, std::span<std::uint8_t, 64>(once));
    const auto again = decode(once);
    if (!again || !(*again == *value)) std::abort(); // decode(encode(v)) != v
    std::array<std::uint8_t, 64> twice{};
    ibsm::mad::encode(*again, std::span<std::uint8_t, 64>(twice));
    if (once != twice) std::abort(); // encoding is not stable
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    round_trip([](std::span<const std::uint8_t> d) { return ibsm::mad::IBSM_FUZZ_DECODE(d); },
               std::span<const std::uint8_t>(data, size));
    return 0;
}
