#include "daemon/core/smp_ops.h"

#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <string>

namespace ibsm::daemon {

boost::asio::awaitable<mad::SmpResponse> dr_get(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod)
{
    mad::SmpRequest req{mad::make_dr_request(mad::Method::get, path, attr, mod, 0), Lid{}};
    co_return co_await transport.async_request(std::move(req), boost::asio::use_awaitable);
}

boost::asio::awaitable<mad::SmpResponse> dr_set(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod, const SmpData& data)
{
    mad::SmpRequest req{mad::make_dr_request(mad::Method::set, path, attr, mod, 0, data), Lid{}};
    co_return co_await transport.async_request(std::move(req), boost::asio::use_awaitable);
}

std::string failure_text(const mad::SmpResponse& r)
{
    if (r.failure == mad::SmpFailure::bad_status) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "bad status 0x%04x", r.status);
        return buf + std::string(r.attempts > 1 ? " on attempt " + std::to_string(r.attempts) : "");
    }
    return mad::to_string(r.failure);
}

} // namespace ibsm::daemon
