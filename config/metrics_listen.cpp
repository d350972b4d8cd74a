#include "config/metrics_listen.h"

#include <arpa/inet.h>

#include <charconv>

namespace ibsm::config {

namespace {

const char* const expected = "expected PORT (loopback), ADDRESS:PORT or [IPv6]:PORT with a numeric address";

bool is_ipv4(const std::string& a)
{
    in_addr out{};
    return ::inet_pton(AF_INET, a.c_str(), &out) == 1;
}

bool is_ipv6(const std::string& a)
{
    in6_addr out{};
    return ::inet_pton(AF_INET6, a.c_str(), &out) == 1;
}

} // namespace

std::string_view to_string(PortSeries p)
{
    switch (p) {
    case PortSeries::all: return "all";
    case PortSeries::fabric: return "fabric";
    case PortSeries::errors: return "errors";
    case PortSeries::none: return "none";
    }
    return "fabric";
}

std::string to_string(const MetricsListen& l)
{
    const bool v6 = l.address.find(':') != std::string::npos;
    return (v6 ? "[" + l.address + "]" : l.address) + ":" + std::to_string(l.port);
}

std::variant<MetricsListen, std::string> parse_metrics_listen(std::string_view text)
{
    if (text.empty()) return std::string(expected) + ", got an empty value (leave the key out for no endpoint)";
    std::string address = "127.0.0.1";
    std::string_view port_text = text;
    const auto colon = text.rfind(':');
    if (text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string_view::npos || close + 1 != colon)
            return std::string(expected) + ", got '" + std::string(text) + "'";
        address = std::string(text.substr(1, close - 1));
        if (!is_ipv6(address)) return "'" + address + "' is not an IPv6 address; " + expected;
        port_text = text.substr(colon + 1);
    } else if (colon != std::string_view::npos) {
        address = std::string(text.substr(0, colon));
        if (address.find(':') != std::string::npos)
            return "write an IPv6 address in brackets ('[" + address + "]:PORT'); " + expected;
        if (address == "localhost") address = "127.0.0.1";
        if (!is_ipv4(address)) return "'" + address + "' is not a numeric IPv4 address; " + expected;
        port_text = text.substr(colon + 1);
    }
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port_text.empty())
        return "port '" + std::string(port_text) + "' is not a number; " + expected;
    if (port < 1 || port > 65535) return "port " + std::to_string(port) + " is out of range 1..65535";
    return MetricsListen{std::move(address), static_cast<std::uint16_t>(port)};
}

} // namespace ibsm::config
