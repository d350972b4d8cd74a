// SL file writer and reader (see header).
#include "routing/sl_file.h"

#include "routing/file_text.h"

#include <optional>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ibsm::routing {

namespace {

constexpr const char* header = R"(# ibsm SL file: the service level of every (source port, destination LID) pair.
#   vls N                      the SLs map onto VLs 0..N-1 (SL = VL)
#   lids N                     the SL strings cover LIDs 0..N-1
#   <node GUID> <port> <SLs>   one line per source port (a CA/router port, or port 0 of a switch)
# <SLs>: one hex digit per destination LID, the first for LID 0; trailing zeros dropped.
# A source without a line, or a LID past the end of its string, has SL 0.
)";

} // namespace

void write_sl_file(std::ostream& out, const topology::Fabric& fabric, const RoutingTables& tables)
{
    const SlTable& sl = tables.sl;
    out << header << "vls " << unsigned{tables.vls_used} << "\nlids " << sl.lid_limit() << '\n';
    std::string digits;
    for (std::size_t row = 0; row < sl.sources().size(); ++row) {
        const topology::PortRef src = sl.sources()[row];
        if (src.node.value >= fabric.node_count()) continue;
        digits.assign(sl.lid_limit(), '0');
        std::size_t used = 0;
        for (std::uint32_t lid = 0; lid < sl.lid_limit(); ++lid)
            if (auto v = sl.get(row, lid)) {
                digits[lid] = file_text::hex_digit[v];
                used = lid + 1;
            }
        if (used == 0) continue;
        digits.resize(used);
        out << fabric.node(src.node).guid.str() << ' ' << unsigned{src.port.value()} << ' ' << digits << '\n';
    }
}

SlFile read_sl_file(std::istream& in, std::string_view source, const topology::Fabric& fabric)
{
    std::size_t line_no = 0;
    auto fail = [&](const std::string& what) -> SlFileError {
        return SlFileError(std::string(source) + ":" + std::to_string(line_no) + ": " + what);
    };
    auto number = [&](const std::string& text, std::uint64_t max, int base, const char* what) {
        if (auto v = file_text::parse_unsigned(text, base, max)) return *v;
        throw fail(std::string("bad ") + what + " '" + text + "'");
    };

    std::optional<std::uint8_t> vls;
    std::optional<std::uint32_t> lid_limit;
    struct Row {
        topology::PortRef port;
        std::string digits;
        std::size_t line;
    };
    std::vector<Row> rows;
    std::set<topology::PortRef> seen;
    for (std::string line; file_text::next_content_line(in, line, line_no);) {
        std::istringstream words(line);
        std::string a, b, c, extra;
        words >> a >> b >> c >> extra;
        if (a == "vls" || a == "lids") {
            if (b.empty() || !c.empty()) throw fail("expected '" + a + " N'");
            if (a == "vls") {
                if (vls) throw fail("'vls' given twice");
                vls = static_cast<std::uint8_t>(number(b, 16, 10, "VL count"));
                if (*vls == 0) throw fail("bad VL count '0'");
            } else {
                if (lid_limit) throw fail("'lids' given twice");
                lid_limit = static_cast<std::uint32_t>(number(b, 0xc000, 10, "LID count"));
            }
            continue;
        }
        if (c.empty() || !extra.empty()) throw fail("expected '<node GUID> <port> <SLs>'");
        if (!vls || !lid_limit) throw fail("source line before the 'vls' and 'lids' lines");
        const Guid guid(number(a, UINT64_MAX, 16, "node GUID"));
        const auto port = static_cast<std::uint8_t>(number(b, 254, 10, "port number"));
        const auto node = fabric.find_node(guid);
        if (!node) throw fail("node " + guid.str() + " is not in the fabric");
        const auto& n = fabric.node(*node);
        if (port > n.num_ports() || (n.is_switch() ? port != 0 : port == 0))
            throw fail("node " + guid.str() + " has no source port " + std::to_string(port));
        const topology::PortRef ref{*node, PortNum(port)};
        if (!seen.insert(ref).second) throw fail("source " + guid.str() + " port " + b + " given twice");
        if (c.size() > *lid_limit) throw fail("SL string longer than 'lids' (" + std::to_string(*lid_limit) + ")");
        for (char ch : c) {
            const int v = file_text::hex_value(ch);
            if (v < 0) throw fail(std::string("bad SL digit '") + ch + "'");
            if (v >= *vls) throw fail("SL " + std::to_string(v) + " not below 'vls' " + std::to_string(*vls));
        }
        rows.push_back({ref, std::move(c), line_no});
    }
    if (!vls || !lid_limit) {
        line_no = 0;
        throw fail("missing 'vls' or 'lids' line");
    }

    std::vector<topology::PortRef> ports;
    for (const auto& r : rows) ports.push_back(r.port);
    SlFile out;
    out.vls = *vls;
    out.sl = SlTable(ports, *lid_limit);
    for (const auto& r : rows) {
        const std::size_t row = *out.sl.row_of(r.port);
        for (std::size_t lid = 0; lid < r.digits.size(); ++lid) {
            if (const int v = file_text::hex_value(r.digits[lid]))
                out.sl.set(row, static_cast<std::uint32_t>(lid), static_cast<std::uint8_t>(v));
        }
    }
    return out;
}

} // namespace ibsm::routing
