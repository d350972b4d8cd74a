#include "daemon/metrics/http_rules.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ibsm::daemon::metrics {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

bool iequals(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// q=0, q=0.0, q=0.000: refused; anything else (or no q) accepted.
bool q_is_zero(std::string_view params)
{
    while (!params.empty()) {
        const auto semi = params.find(';');
        const auto p = trim(params.substr(0, semi));
        params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
        if (p.size() < 2 || std::tolower(static_cast<unsigned char>(p[0])) != 'q' || trim(p.substr(1)).front() != '=')
            continue;
        auto v = trim(trim(p.substr(1)).substr(1));
        if (v.empty() || v.front() != '0') return false;
        v.remove_prefix(1);
        if (v.empty()) return true;
        if (v.front() != '.') return false;
        v.remove_prefix(1);
        return std::all_of(v.begin(), v.end(), [](char c) { return c == '0'; });
    }
    return false;
}

} // namespace

Route route(std::string_view method, std::string_view target)
{
    const auto path = target.substr(0, target.find('?'));
    if (path != "/metrics") return {Answer::not_found, method == "HEAD"};
    if (method == "GET") return {Answer::metrics, false};
    if (method == "HEAD") return {Answer::metrics, true};
    return {Answer::method_not_allowed, false};
}

bool accepts_gzip(std::string_view accept_encoding)
{
    bool star = false, gzip = false, gzip_refused = false;
    while (!accept_encoding.empty()) {
        const auto comma = accept_encoding.find(',');
        const auto item = accept_encoding.substr(0, comma);
        accept_encoding = comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
        const auto semi = item.find(';');
        const auto coding = trim(item.substr(0, semi));
        const bool refused = semi != std::string_view::npos && q_is_zero(item.substr(semi + 1));
        if (iequals(coding, "gzip") || iequals(coding, "x-gzip")) {
            if (refused) gzip_refused = true;
            else gzip = true;
        } else if (coding == "*" && !refused) {
            star = true;
        }
    }
    // An explicit gzip;q=0 wins over "*".
    return gzip || (star && !gzip_refused);
}

} // namespace ibsm::daemon::metrics
