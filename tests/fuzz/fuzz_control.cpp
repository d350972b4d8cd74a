// libFuzzer harness for the control socket's reader (daemon/control/
// protocol.h): the input is a byte stream cut into reads at the positions
// its first byte picks; whatever arrives, the line reader frames it within
// its limit and every line becomes a Request or a RequestError, never an
// exception. A Request must survive request_json and parse back the same.
#include "daemon/control/protocol.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ibsm::daemon::control;
    if (size == 0) return 0;
    const std::size_t chunk = 1 + data[0] % 64;
    std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    LineReader reader(4096); // small, so the fuzzer reaches the overlong path
    while (!bytes.empty() && !reader.overlong()) {
        const auto n = std::min(chunk, bytes.size());
        for (const auto& line : reader.feed(bytes.substr(0, n))) {
            if (line.size() > 4096) std::abort();
            auto parsed = parse_request(line);
            if (auto* r = std::get_if<Request>(&parsed)) {
                const std::string again = to_line(request_json(*r));
                auto back = parse_request(std::string_view(again).substr(0, again.size() - 1));
                if (!std::holds_alternative<Request>(back)) std::abort();
                if (request_json(std::get<Request>(back)) != request_json(*r)) std::abort();
            } else {
                (void)to_line(error_response(std::get<RequestError>(parsed).id, std::get<RequestError>(parsed).error));
            }
        }
        bytes.remove_prefix(n);
    }
    return 0;
}
