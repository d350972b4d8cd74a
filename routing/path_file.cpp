// Path file writer, reader and resolver (see header).
#include "routing/path_file.h"

#include "routing/file_text.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <istream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>

namespace ibsm::routing {

namespace {

constexpr const char* header = R"(# ibsm path file: the DLID every source port uses toward every destination port.
#   engine NAME                             the engine that chose the paths
#   destinations N                          number of dst lines
#   dst <i> <port GUID> <base LID> <LMC>    destination i (0..N-1, in order) owns base..base+2^LMC-1
#   src <port GUID> <offsets>               two hex digits per destination, in index order:
#                                           DLID = base + offset; "--" = no path
# A switch is named by its node GUID (its port 0).
)";

} // namespace

void write_path_file(std::ostream& out, const topology::Fabric& fabric, const PairDlids& dlids, const std::string& engine)
{
    out << header << "engine " << (engine.empty() ? "-" : engine) << '\n';
    std::vector<std::size_t> dests;
    for (std::size_t d = 0; d < dlids.destinations.size(); ++d)
        if (!fabric.port(dlids.destinations[d].port).guid.is_zero()) dests.push_back(d);
    out << "destinations " << dests.size() << '\n';
    char buf[96];
    for (std::size_t i = 0; i < dests.size(); ++i) {
        const auto& d = dlids.destinations[dests[i]];
        const int n = std::snprintf(buf, sizeof buf, "dst %zu 0x%016llx 0x%04x %u\n", i,
                                    static_cast<unsigned long long>(fabric.port(d.port).guid.value()), d.base.value(),
                                    unsigned{d.lmc});
        out.write(buf, n);
    }
    std::string line;
    for (std::size_t s = 0; s < dlids.sources.size(); ++s) {
        const Guid g = fabric.port(dlids.sources[s]).guid;
        if (g.is_zero()) continue;
        line = "src " + g.str() + ' ';
        for (std::size_t d : dests) {
            const std::uint8_t o = dlids.offset_of(s, d);
            if (o == PairDlids::no_path) {
                line += "--";
            } else {
                line += file_text::hex_digit[o >> 4];
                line += file_text::hex_digit[o & 15];
            }
        }
        line += '\n';
        out << line;
    }
}

void write_selected_paths(std::ostream& out, const topology::Fabric& fabric, const topology::PairPaths& paths)
{
    out << "# ibsm selected paths (engine " << paths.engine
        << "): <src port GUID> <dst port GUID> <switch GUID>:<out port> ...\n";
    std::string line;
    for (const auto& d : paths.destinations) {
        const std::string dst = fabric.port(d.dst).guid.str();
        for (const auto& p : d.paths) {
            line = fabric.port(p.src).guid.str() + ' ' + dst;
            for (const auto& h : p.hops) line += ' ' + fabric.node(h.sw).guid.str() + ':' + std::to_string(h.out.value());
            line += '\n';
            out << line;
        }
    }
}

PathFile read_path_file(std::istream& in, std::string_view source)
{
    std::size_t line_no = 0;
    auto fail = [&](const std::string& what) {
        return PathFileError(std::string(source) + ":" + std::to_string(line_no) + ": " + what);
    };
    auto number = [&](const std::string& text, std::uint64_t max, int base, const char* what) {
        if (auto v = file_text::parse_unsigned(text, base, max)) return *v;
        throw fail(std::string("bad ") + what + " '" + text + "'");
    };

    PathFile out;
    bool have_engine = false;
    std::optional<std::size_t> count;
    std::set<Guid> dst_seen, src_seen;
    for (std::string line; file_text::next_content_line(in, line, line_no);) {
        std::istringstream words(line);
        std::vector<std::string> w;
        for (std::string x; w.size() < 7 && words >> x;) w.push_back(std::move(x));
        if (w.empty()) continue;
        const std::string& key = w[0];
        if (key == "engine") {
            if (w.size() != 2) throw fail("expected 'engine NAME'");
            if (have_engine) throw fail("'engine' given twice");
            have_engine = true;
            out.engine = w[1];
        } else if (key == "destinations") {
            if (w.size() != 2) throw fail("expected 'destinations N'");
            if (count) throw fail("'destinations' given twice");
            count = static_cast<std::size_t>(number(w[1], 0xC000, 10, "destination count"));
        } else if (key == "dst") {
            if (w.size() != 5) throw fail("expected 'dst <i> <port GUID> <base LID> <LMC>'");
            if (!count) throw fail("dst line before 'destinations N'");
            if (!out.sources.empty()) throw fail("dst line after a src line");
            const auto i = number(w[1], 0xC000, 10, "destination index");
            if (i != out.destinations.size())
                throw fail("destination index " + w[1] + ", expected " + std::to_string(out.destinations.size()));
            if (out.destinations.size() == *count) throw fail("more dst lines than 'destinations' " + std::to_string(*count));
            const Guid g(number(w[2], UINT64_MAX, 16, "port GUID"));
            if (g.is_zero()) throw fail("port GUID 0");
            if (!dst_seen.insert(g).second) throw fail("destination " + g.str() + " given twice");
            const auto base = number(w[3], Lid::max_unicast, 16, "base LID");
            const auto lmc = number(w[4], 7, 10, "LMC");
            const std::uint64_t n = 1ull << lmc;
            if (base == 0 || base % n != 0 || base + n - 1 > Lid::max_unicast)
                throw fail("LID block " + w[3] + " LMC " + w[4] + " is not aligned within 1..0xBFFF");
            out.destinations.push_back({g, Lid(static_cast<std::uint16_t>(base)), static_cast<std::uint8_t>(lmc)});
        } else if (key == "src") {
            if (w.size() != 3 && !(w.size() == 2 && count && *count == 0))
                throw fail("expected 'src <port GUID> <offsets>'");
            if (!count || out.destinations.size() != *count)
                throw fail("src line before all " + (count ? std::to_string(*count) + " " : std::string()) +
                           "dst lines");
            const Guid g(number(w[1], UINT64_MAX, 16, "port GUID"));
            if (g.is_zero()) throw fail("port GUID 0");
            if (!src_seen.insert(g).second) throw fail("source " + g.str() + " given twice");
            const std::string digits = w.size() == 3 ? w[2] : std::string();
            if (digits.size() != 2 * *count)
                throw fail("offsets: " + std::to_string(digits.size()) + " characters, expected 2 per destination (" +
                           std::to_string(2 * *count) + ")");
            PathFile::Source src{g, std::vector<std::uint8_t>(*count, PairDlids::no_path)};
            for (std::size_t d = 0; d < *count; ++d) {
                const char a = digits[2 * d], b = digits[2 * d + 1];
                if (a == '-' && b == '-') continue;
                const int hi = file_text::hex_value(a), lo = file_text::hex_value(b);
                if (hi < 0 || lo < 0) throw fail("bad offset '" + digits.substr(2 * d, 2) + "' for destination " + std::to_string(d));
                const int o = hi * 16 + lo;
                if (o >= (1 << out.destinations[d].lmc))
                    throw fail("offset " + std::to_string(o) + " for destination " + std::to_string(d) + " is outside its " +
                               std::to_string(1 << out.destinations[d].lmc) + " LIDs");
                src.offset[d] = static_cast<std::uint8_t>(o);
            }
            out.sources.push_back(std::move(src));
        } else {
            throw fail("unknown line '" + key + "'");
        }
    }
    if (!count || out.destinations.size() != *count) {
        line_no = 0;
        throw fail(count ? "fewer dst lines than 'destinations' " + std::to_string(*count) : "missing 'destinations N'");
    }
    return out;
}

PairDlids resolve_path_file(const PathFile& file, const topology::Fabric& fabric, std::string_view source)
{
    auto port_of = [&](Guid g) {
        auto p = fabric.find_port(g);
        if (!p) {
            auto n = fabric.find_node(g);
            if (n && fabric.node(*n).is_switch()) p = topology::PortRef{*n, PortNum(0)};
        }
        if (!p) throw PathFileError(std::string(source) + ": port GUID " + g.str() + " is not in the fabric");
        if (fabric.node(p->node).is_switch()) p->port = PortNum(0);
        return *p;
    };
    // Sort both sides by PortRef, as PairDlids keeps them.
    std::vector<std::pair<topology::PortRef, std::size_t>> ds, ss;
    for (std::size_t d = 0; d < file.destinations.size(); ++d) ds.emplace_back(port_of(file.destinations[d].port_guid), d);
    for (std::size_t s = 0; s < file.sources.size(); ++s) ss.emplace_back(port_of(file.sources[s].port_guid), s);
    std::sort(ds.begin(), ds.end());
    std::sort(ss.begin(), ss.end());
    PairDlids out;
    for (const auto& [port, d] : ds)
        out.destinations.push_back({port, file.destinations[d].base, file.destinations[d].lmc});
    for (const auto& [port, s] : ss) out.sources.push_back(port);
    out.offset.assign(out.sources.size() * out.destinations.size(), PairDlids::no_path);
    for (std::size_t i = 0; i < ss.size(); ++i)
        for (std::size_t j = 0; j < ds.size(); ++j) out.set(i, j, file.sources[ss[i].second].offset[ds[j].second]);
    return out;
}

} // namespace ibsm::routing
