// guid2lid text reader and writer (see header).
#include "lidassign/guid2lid.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace ibsm::lidassign {

void write_guid2lid(std::ostream& out, const topology::Fabric& fabric, const LidMap& lids)
{
    std::vector<std::pair<Guid, PortLids>> rows;
    for (const auto& [ref, pl] : lids.entries()) {
        const Guid g = fabric.port(ref).guid;
        if (!g.is_zero()) rows.emplace_back(g, pl);
    }
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    char line[64];
    for (const auto& [guid, pl] : rows) {
        const int n = std::snprintf(line, sizeof line, "0x%016llx 0x%04x 0x%04x\n\n",
                                    static_cast<unsigned long long>(guid.value()), pl.base.value(),
                                    pl.base.value() + pl.count() - 1u);
        out.write(line, n);
    }
}

namespace {

bool hex_field(std::string_view s, std::uint64_t& v)
{
    if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
    return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

GuidLidMap read_guid2lid(std::istream& in, std::string_view source)
{
    GuidLidMap out;
    std::string raw;
    std::size_t line_no = 0;
    auto fail = [&](const std::string& what) {
        throw Guid2LidError(std::string(source) + ":" + std::to_string(line_no) + ": " + what);
    };
    while (std::getline(in, raw)) {
        ++line_no;
        std::string_view line(raw);
        if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        std::vector<std::string_view> words;
        for (std::size_t i = 0; i < line.size();) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
            std::size_t j = i;
            while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r') ++j;
            if (j > i) words.push_back(line.substr(i, j - i));
            i = j;
        }
        if (words.empty()) continue;
        std::uint64_t guid = 0, base = 0, last = 0;
        if (words.size() != 3 || !hex_field(words[0], guid) || !hex_field(words[1], base) ||
            !hex_field(words[2], last))
            fail("expected \"0x<port guid> 0x<base lid> 0x<last lid>\"");
        if (base < 1 || last > Lid::max_unicast || last < base)
            fail("LID range " + std::string(words[1]) + ".." + std::string(words[2]) + " is not within 1..0xBFFF");
        if (!out.emplace(Guid(guid), Lid(static_cast<std::uint16_t>(base))).second)
            fail("port GUID " + Guid(guid).str() + " listed twice");
    }
    return out;
}

} // namespace ibsm::lidassign
