// A line of text without the blanks around it: the line readers of the
// net file (topology/), the LFT dump (routing/) and the M_Key secret file
// (mkey/) all take a line this way, so they agree on what a blank is.
// Blanks are space and tab, and carriage return, so a file written on
// Windows (CR LF) reads as the same lines.
#pragma once

#include <string_view>

namespace ibsm::common {

constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

constexpr std::string_view trim(std::string_view s)
{
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
    return s;
}

} // namespace ibsm::common
