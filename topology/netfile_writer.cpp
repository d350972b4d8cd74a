// Net-file writer (format in netfile_writer.h). Straight-line formatting; the
// only decisions are node order and which optional annotations to emit.
#include "topology/netfile_writer.h"

#include "topology/netfile_format.h"

#include <stdexcept>

namespace ibsm::topology {

namespace {

std::string hex0x(std::uint64_t v) { return "0x" + netfile::bare_hex(v); }

// Descriptions come from NodeDescription MADs and may hold anything; the
// format cannot quote a '"' or a line break, so those (and other control
// characters) are written as '_' rather than losing the whole dump.
std::string printable_description(const Node& n)
{
    std::string d = n.description;
    for (char& c : d)
        if (c == '"' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '_';
    return d;
}

// The LID a port line shows for a port: a switch is addressed by port 0.
Lid shown_lid(const Fabric& f, PortRef p)
{
    if (f.node(p.node).is_switch()) p.port = PortNum(0);
    return f.port(p).lid;
}

// ibsim scans a whole port line (comment included) for "opt=value", so a
// remote description with '=' in it would break ibsim: leave it out there.
std::string remote_description(const Node& n)
{
    if (n.description.find('=') != std::string::npos) return "\"\"";
    return "\"" + printable_description(n) + "\"";
}

std::string ibsim_options(const Port& a, const Port& b)
{
    std::string out;
    if (a.link_width_active != 0 && a.link_width_active == b.link_width_active && a.link_width_active != 2)
        out += " w=" + std::to_string(a.link_width_active);
    if (a.link_speed_ext_active == 0 && b.link_speed_ext_active == 0 && a.link_speed_active != 0 &&
        a.link_speed_active == b.link_speed_active && a.link_speed_active != 1 && a.link_speed_active <= 4)
        out += " s=" + std::to_string(a.link_speed_active);
    return out;
}

void write_node(std::ostream& out, const Fabric& f, NodeId id)
{
    const Node& n = f.node(id);
    out << '\n';
    out << "vendid=" << hex0x(n.vendor_id) << '\n';
    out << "devid=" << hex0x(n.device_id) << '\n';
    out << "sysimgguid=" << hex0x(n.system_guid.value()) << '\n';
    out << netfile::guid_keyword(n.type) << '=' << hex0x(n.guid.value());
    if (n.is_switch()) out << '(' << netfile::bare_hex(n.guid.value()) << ')';
    out << '\n';
    out << netfile::type_keyword(n.type) << '\t' << static_cast<unsigned>(n.num_ports()) << " \""
        << netfile::node_name(n.type, n.guid) << "\"\t\t# \"" << printable_description(n) << '"';
    if (n.is_switch()) {
        const Port& p0 = n.port(PortNum(0));
        out << (n.sw && n.sw->enhanced_port0 ? " enhanced" : " base") << " port 0 lid " << p0.lid.value() << " lmc "
            << static_cast<unsigned>(p0.lmc);
    }
    out << '\n';

    for (const Port& p : n.ports) {
        if (!p.remote) continue;
        PortRef there = *p.remote;
        const Node& rn = f.node(there.node);
        const Port& rp = f.port(there);
        out << '[' << static_cast<unsigned>(p.num.value()) << ']';
        // A CA port without a GUID gets none here; our reader and ibsim then
        // fall back to node GUID + port.
        if (!n.is_switch() && !p.guid.is_zero()) out << '(' << netfile::bare_hex(p.guid.value()) << ") ";
        out << "\t\"" << netfile::node_name(rn.type, rn.guid) << "\"[" << static_cast<unsigned>(there.port.value())
            << ']';
        if (!rn.is_switch() && !rp.guid.is_zero()) out << '(' << netfile::bare_hex(rp.guid.value()) << ") ";
        out << ibsim_options(p, rp) << "\t\t# ";
        if (!n.is_switch()) out << "lid " << p.lid.value() << " lmc " << static_cast<unsigned>(p.lmc) << ' ';
        out << remote_description(rn) << " lid " << shown_lid(f, there).value();
        if (auto rate = netfile::link_rate(p); !rate.empty()) out << ' ' << rate;
        out << '\n';
    }
}

} // namespace

void write_net(std::ostream& out, const Fabric& fabric, const WriteOptions& options)
{
    out << "#\n# Topology file: ibnetdiscover format, written by ibsm\n";
    for (const auto& c : options.comments) out << "# " << c << '\n';
    out << "#\n";
    if (options.first) write_node(out, fabric, *options.first);
    for (NodeId id : fabric.node_ids())
        if (!options.first || id != *options.first) write_node(out, fabric, id);
}

std::optional<NodeId> first_cabled_ca(const Fabric& fabric)
{
    for (NodeId id : fabric.node_ids()) {
        const Node& n = fabric.node(id);
        if (n.type != NodeType::ca) continue;
        for (const Port& p : n.ports)
            if (p.remote) return id;
    }
    return std::nullopt;
}

} // namespace ibsm::topology
