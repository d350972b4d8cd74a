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
#include <vector>

namespace ibsm::daemon {

using SmpData = std::array<std::uint8_t, mad::smp_data_size>;

boost::asio::awaitable<mad::SmpResponse> dr_get(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod);
boost::asio::awaitable<mad::SmpResponse> dr_set(mad::Transport& transport, const DrPath& path, std::uint16_t attr,
                                                std::uint32_t mod, const SmpData& data);

// "timeout", "bad status 0x001c", ...
std::string failure_text(const mad::SmpResponse& r);

// Reports keep the first few failure texts for the log (and count them all).
inline constexpr std::size_t max_failures_kept = 20;
inline void keep_failure(std::vector<std::string>& kept, std::string text)
{
    if (kept.size() < max_failures_kept) kept.push_back(std::move(text));
}

// Counts one failure in a report with `failed` and `failures` (the port and
// VL programmers') and keeps its text.
template <class Report>
void note_failure(Report& report, std::string text)
{
    ++report.failed;
    keep_failure(report.failures, std::move(text));
}

} // namespace ibsm::daemon
