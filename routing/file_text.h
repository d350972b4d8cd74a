// The text rules the SL file (sl_file.h) and the path file (path_file.h)
// share: one hex digit per value in their dense per-pair rows, and numbers
// (GUIDs, LIDs, counts) written in hex with or without 0x, or in decimal.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>

namespace ibsm::routing::file_text {

inline constexpr char hex_digit[] = "0123456789abcdef";

// The value of a hex digit (either case), or -1.
constexpr int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

// `text` as a whole number in `base` (16: an optional 0x/0X prefix) no
// larger than `max`; nullopt when it is empty, has other characters, or is
// out of range.
inline std::optional<std::uint64_t> parse_unsigned(std::string_view text, int base, std::uint64_t max)
{
    if (base == 16 && (text.starts_with("0x") || text.starts_with("0X"))) text.remove_prefix(2);
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v > max) return std::nullopt;
    return v;
}

// The next line that says something: a trailing CR (a file from Windows)
// dropped, blank lines and '#' comments skipped; `line_no` counts every line
// read so errors can name it. False at the end of the input.
inline bool next_content_line(std::istream& in, std::string& line, std::size_t& line_no)
{
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] != '#') return true;
    }
    return false;
}

} // namespace ibsm::routing::file_text
