// One hex digit per value: the compact text the SL file (sl_file.h) and the
// path file (path_file.h) use for their dense per-pair rows.
#pragma once

namespace ibsm::routing::hex {

inline constexpr char digit[] = "0123456789abcdef";

// The value of a hex digit (either case), or -1.
constexpr int value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

} // namespace ibsm::routing::hex
