// Directed-route Get/Set helpers shared by the programmers, and the text of a
// failed SMP for logs and reports.
#pragma once

#include "mad/smp.h"
#include "mad/transport.h"
#include "mad/types.h"

#include <boost/asio/awaitable.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace ibsm::daemon {

using SmpData = std::array<std::uint8_t, mad::smp_data_size>;

boost::asio::awaitable<mad::SmpResponse> dr_get(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod);
boost::asio::awaitable<mad::SmpResponse> dr_set(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod, const SmpData& data);

// "timeout", "bad status 0x001c", ...
std::string failure_text(const mad::SmpResponse& r);

} // namespace ibsm::daemon
