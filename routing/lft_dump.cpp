// dump_fts text writer and parser.
//
// Why: see header. The writer replays dump_fts's destination resolver (a
// small state machine over the LIDs of one switch: after a port with LMC > 0
// is resolved, its further LIDs print as "path #k out of n") so our output
// and a real dump of the same tables read the same, byte for byte.
//
// Parser: line oriented, no regex (an 11 664-host dump has ~20 M lines):
// header -> two column-title lines -> entries -> "N [valid ]lids dumped".
#include "routing/lft_dump.h"

#include "common/trim.h"

#include <charconv>
#include <cstdio>
#include <istream>
#include <map>
#include <ostream>

namespace ibsm::routing {

using common::trim;
using topology::Fabric;
using topology::NodeType;

namespace {

const char* node_type_text(NodeType t)
{
    switch (t) {
    case NodeType::ca: return "Channel Adapter";
    case NodeType::switch_node: return "Switch";
    case NodeType::router: return "Router";
    }
    return "?";
}

// dump_fts's destination resolver, precomputed per LID. dump_fts keeps one
// piece of state per switch: the last LID of the most recently resolved
// port with LMC > 0 (`last`); LIDs up to it print as "path #k" lines. Those
// texts depend only on the LID, so they are built once for all switches and
// the per-switch loop only tracks `last`.
class Resolver {
public:
    Resolver(const Fabric& fabric, const lidassign::LidMap& lids, std::uint32_t top)
        : owner_(static_cast<std::size_t>(top) + 1, -1), last_of_(static_cast<std::size_t>(top) + 1, 0),
          path_(static_cast<std::size_t>(top) + 1), illegal_path_(static_cast<std::size_t>(top) + 1)
    {
        char buf[256];
        for (const auto& [ref, pl] : lids.entries()) {
            const auto& node = fabric.node(ref.node);
            const auto guid = static_cast<unsigned long long>(fabric.port(ref).guid.value());
            std::snprintf(buf, sizeof buf, ": (%s portguid 0x%016llx: '", node_type_text(node.type), guid);
            full_.push_back(buf + node.description + "')");
            const std::uint32_t base = pl.base.value(), last = base + pl.count() - 1;
            for (std::uint32_t l = base; l <= last && l <= top; ++l) {
                owner_[l] = static_cast<std::int32_t>(full_.size() - 1);
                last_of_[l] = pl.lmc > 0 ? last : 0;
                if (pl.lmc == 0) continue;
                std::snprintf(buf, sizeof buf, ": (path #%u out of %u: portguid 0x%016llx)", l - base + 1,
                              last - base + 1, guid);
                path_[l] = buf;
                std::snprintf(buf, sizeof buf, ": (path #%u - illegal port)", l - base);
                illegal_path_[l] = buf;
            }
        }
    }

    void start_switch() { last_ = 0; }

    // The destination text for `lid` (dump_fts's dump_lid()).
    std::string_view describe(std::uint32_t lid, bool valid)
    {
        if (lid <= last_) {
            // Only LID 0 can be <= last_ without a resolved LMC block before it.
            if (last_ == 0) return valid ? ": (path #1 out of 1)" : ": (path #0 - illegal port)";
            return valid ? path_[lid] : illegal_path_[lid];
        }
        if (!valid) return ": (illegal port)";
        const std::int32_t o = owner_[lid];
        if (o < 0) return ": (node info not available fabric scan)";
        if (last_of_[lid] != 0) last_ = last_of_[lid];
        return full_[static_cast<std::size_t>(o)];
    }

private:
    std::vector<std::int32_t> owner_;     // LID -> index into full_, -1 none
    std::vector<std::uint32_t> last_of_;  // LID -> last LID of its block when LMC > 0
    std::vector<std::string> full_;       // per port
    std::vector<std::string> path_;       // per LID inside LMC blocks
    std::vector<std::string> illegal_path_;
    std::uint32_t last_ = 0;
};

// "0x%04x %03u " without printf.
void append_entry_prefix(std::string& out, std::uint32_t lid, unsigned port)
{
    static constexpr char hex[] = "0123456789abcdef";
    char b[12] = {'0', 'x', hex[(lid >> 12) & 15], hex[(lid >> 8) & 15], hex[(lid >> 4) & 15], hex[lid & 15], ' ',
                  static_cast<char>('0' + port / 100), static_cast<char>('0' + port / 10 % 10),
                  static_cast<char>('0' + port % 10), ' ', 0};
    out.append(b, 11);
}

} // namespace

void write_dump_fts(std::ostream& out, const Fabric& fabric, const lidassign::LidMap& lids,
                    const RoutingTables& tables, const DumpFtsOptions& options)
{
    const std::uint32_t top = tables.linear_fdb_top.value();
    Resolver resolver(fabric, lids, top);
    std::string block;
    for (const auto& [id, lft] : tables.lfts) {
        const auto& node = fabric.node(id);
        const auto self = lids.lids_of(topology::PortRef{id, PortNum(0)});
        char head[64];
        std::snprintf(head, sizeof head, "Unicast lids [0x0-0x%x] of switch Lid %u guid ", top,
                      self ? self->base.value() : 0u);
        block.clear();
        block += head;
        block += node.guid.str() + " (" + node.description + "):\n" + "  Lid  Out   Destination\n" +
                 "       Port     Info \n";
        resolver.start_switch();
        std::size_t n = 0;
        for (std::uint32_t lid = 0; lid <= top; ++lid) {
            const unsigned port = lft.at(Lid(static_cast<std::uint16_t>(lid)));
            const bool valid = port <= node.num_ports();
            if (!valid && !options.all) continue;
            append_entry_prefix(block, lid, port);
            block += resolver.describe(lid, valid);
            block += '\n';
            ++n;
        }
        block += std::to_string(n) + (options.all ? " lids dumped \n" : " valid lids dumped \n");
        out.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
}

namespace {

class LineParser {
public:
    explicit LineParser(std::string_view source) : source_(source) {}

    [[noreturn]] void fail(std::size_t line, const std::string& what) const
    {
        throw LftDumpError(std::string(source_) + ":" + std::to_string(line) + ": " + what);
    }

private:
    std::string_view source_;
};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

template <typename T> bool parse_number(std::string_view s, T& v, int base)
{
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    return ec == std::errc() && p == s.data() + s.size();
}

// "0x..." with hex digits only.
template <typename T> bool parse_hex(std::string_view s, T& v)
{
    if (!starts_with(s, "0x") && !starts_with(s, "0X")) return false;
    return parse_number(s.substr(2), v, 16);
}

} // namespace

std::vector<SwitchLftDump> parse_dump_fts(std::istream& in, std::string_view source)
{
    LineParser p(source);
    std::vector<SwitchLftDump> out;
    enum class State { outside, titles1, titles2, entries } state = State::outside;
    std::string raw;
    std::size_t line_no = 0;
    SwitchLftDump* cur = nullptr;

    while (std::getline(in, raw)) {
        ++line_no;
        std::string_view line(raw);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (trim(line).empty() || starts_with(line, "ibwarn:")) continue;

        if (starts_with(line, "Multicast mlids")) p.fail(line_no, "multicast tables are not supported (dump without -M)");
        if (starts_with(line, "Unicast lids [")) {
            if (state != State::outside)
                p.fail(line_no, "new switch header before the \"lids dumped\" line of the switch at line " +
                                    std::to_string(cur->line));
            SwitchLftDump d;
            d.line = line_no;
            std::string_view rest = line.substr(14);
            const auto dash = rest.find('-'), close = rest.find(']');
            std::uint16_t first = 0, last = 0;
            // dump_fts writes the range in hex ("[0x0-0x13]"), OpenSM's
            // opensm-lfts.dump in decimal ("[0-19]").
            d.opensm = !starts_with(rest, "0x");
            auto bound = [&](std::string_view t, std::uint16_t& v) {
                return d.opensm ? parse_number(t, v, 10) : parse_hex(t, v);
            };
            if (dash == std::string_view::npos || close == std::string_view::npos || dash > close ||
                !bound(rest.substr(0, dash), first) || !bound(rest.substr(dash + 1, close - dash - 1), last))
                p.fail(line_no, "bad LID range in switch header");
            if (first > last || last > Lid::max_unicast) p.fail(line_no, "LID range out of order or beyond 0xBFFF");
            rest.remove_prefix(close + 1);
            if (!starts_with(rest, " of switch ")) p.fail(line_no, "expected \"of switch\" in header");
            rest.remove_prefix(11);
            const auto g = rest.find(" guid 0x");
            if (g == std::string_view::npos) p.fail(line_no, "switch header without guid");
            d.address = std::string(rest.substr(0, g));
            if (starts_with(d.address, "Lid ")) {
                std::uint16_t lid = 0;
                if (!parse_number(std::string_view(d.address).substr(4), lid, 10))
                    p.fail(line_no, "bad switch LID '" + d.address + "'");
                d.lid = Lid(lid);
            } else if (!starts_with(d.address, "DR path")) {
                p.fail(line_no, "switch address is neither \"Lid N\" nor \"DR path ...\": '" + d.address + "'");
            }
            rest.remove_prefix(g + 6);
            const auto sp = rest.find(' ');
            std::uint64_t guid = 0;
            if (sp == std::string_view::npos || !parse_hex(rest.substr(0, sp), guid))
                p.fail(line_no, "bad switch guid");
            d.guid = Guid(guid);
            rest.remove_prefix(sp + 1);
            if (!starts_with(rest, "(") || rest.size() < 3 || rest.substr(rest.size() - 2) != "):")
                p.fail(line_no, "expected \"(description):\" at the end of the switch header");
            d.description = std::string(rest.substr(1, rest.size() - 3));
            // OpenSM quotes it: ('leaf-1').
            if (d.opensm && d.description.size() >= 2 && d.description.front() == '\'' && d.description.back() == '\'')
                d.description = d.description.substr(1, d.description.size() - 2);
            d.first = Lid(first);
            d.last = Lid(last);
            d.lft.port.assign(static_cast<std::size_t>(last) + 1, no_route);
            out.push_back(std::move(d));
            cur = &out.back();
            state = cur->opensm ? State::entries : State::titles1; // OpenSM has no title lines
            continue;
        }

        switch (state) {
        case State::outside: p.fail(line_no, "expected a \"Unicast lids [...] of switch\" header");
        case State::titles1:
            if (!starts_with(trim(line), "Lid") || line.find("Out") == std::string_view::npos)
                p.fail(line_no, "expected the \"Lid  Out   Destination\" title line");
            state = State::titles2;
            continue;
        case State::titles2:
            if (!starts_with(trim(line), "Port") || line.find("Info") == std::string_view::npos)
                p.fail(line_no, "expected the \"Port     Info\" title line");
            state = State::entries;
            continue;
        case State::entries: break;
        }

        if (starts_with(line, "0x")) {
            const auto sp = line.find(' ');
            std::uint16_t lid = 0;
            if (sp == std::string_view::npos || !parse_hex(line.substr(0, sp), lid))
                p.fail(line_no, "bad LID in entry");
            std::string_view rest = line.substr(sp + 1);
            const auto sp2 = rest.find(' ');
            unsigned port = 0;
            if (!parse_number(rest.substr(0, sp2), port, 10) || port > 255)
                p.fail(line_no, "bad output port in entry for LID " + std::to_string(lid));
            if (sp2 != std::string_view::npos) {
                auto info = trim(rest.substr(sp2));
                if (!info.empty() && !starts_with(info, cur->opensm ? "# " : ": ("))
                    p.fail(line_no, "unexpected text after the output port: '" + std::string(info) + "'");
            }
            if (lid < cur->first.value() || lid > cur->last.value())
                p.fail(line_no, "LID " + std::to_string(lid) + " outside the header range");
            if (cur->lft.port[lid] != no_route && port != no_route)
                p.fail(line_no, "LID " + std::to_string(lid) + " listed twice");
            cur->lft.port[lid] = static_cast<std::uint8_t>(port);
            ++cur->listed;
            continue;
        }

        // "N valid lids dumped " / "N lids dumped "; OpenSM's N is the
        // header's top LID, not the number of entries it listed.
        const auto t = trim(line);
        const auto sp = t.find(' ');
        std::size_t n = 0;
        if (sp != std::string_view::npos && parse_number(t.substr(0, sp), n, 10) &&
            (t.substr(sp) == " valid lids dumped" || t.substr(sp) == " lids dumped")) {
            if (cur->opensm && n != cur->last.value())
                p.fail(line_no, "count line says " + std::to_string(n) + " LIDs but the header of switch " +
                                    cur->guid.str() + " ends at " + std::to_string(cur->last.value()));
            if (!cur->opensm && n != cur->listed)
                p.fail(line_no, "count line says " + std::to_string(n) + " LIDs but " + std::to_string(cur->listed) +
                                    " entries were listed for switch " + cur->guid.str());
            state = State::outside;
            cur = nullptr;
            continue;
        }
        p.fail(line_no, "unrecognised line: '" + std::string(line.substr(0, 80)) + "'");
    }
    if (state != State::outside)
        p.fail(line_no, "input ends inside the table of switch " + cur->guid.str() + " (header at line " +
                            std::to_string(cur->line) + "); truncated dump?");
    return out;
}

RoutingTables tables_from_dump(const std::vector<SwitchLftDump>& dumps, const Fabric& fabric, std::string_view source,
                               std::string engine)
{
    LineParser p(source);
    RoutingTables t;
    t.engine = std::move(engine);
    std::uint16_t top = 0;
    for (const auto& d : dumps) {
        auto id = fabric.find_node(d.guid);
        if (!id) p.fail(d.line, "switch " + d.guid.str() + " (" + d.description + ") is not in the topology");
        if (!fabric.node(*id).is_switch()) p.fail(d.line, d.guid.str() + " is not a switch in the topology");
        if (!t.lfts.emplace(*id, d.lft).second) p.fail(d.line, "switch " + d.guid.str() + " dumped twice");
        top = std::max(top, d.last.value());
    }
    t.linear_fdb_top = Lid(top);
    return t;
}

} // namespace ibsm::routing
