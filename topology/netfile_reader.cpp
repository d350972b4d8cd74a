// Net-file reader (format in netfile_reader.h).
//
// Why two passes: a port line may name a node whose record comes later, so
// records are turned into nodes as they are read, while port lines are kept
// as declarations and cabled once every node is known. That is also where the
// two ends of a link are checked against each other.
//
// Data structures: nodes go straight into the Fabric (NodeId = record order);
// `decls_` holds every port line with its line number; `decl_at_` maps a
// local (node, port) to its declaration so the far end can be checked.
// GUID numbering for free-form names mirrors ibsim's per-type counters.
#include "topology/netfile_reader.h"

#include "common/trim.h"
#include "topology/netfile_format.h"

#include <array>
#include <bit>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ibsm::topology {

using common::trim;

ParseError::ParseError(std::string file, std::size_t line, std::string message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + message), file_(std::move(file)), line_(line),
      message_(std::move(message))
{
}

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

// Unsigned integer the way ibsim's strtoul(…, 0) reads it: "0x" hex, else
// decimal. The whole token must be consumed.
std::optional<std::uint64_t> parse_uint(std::string_view s, int base = 0)
{
    if (base == 0) {
        base = 10;
        if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            s.remove_prefix(2);
            base = 16;
        }
    }
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::vector<std::string_view> split_ws(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && is_space(s[i])) ++i;
        std::size_t j = i;
        while (j < s.size() && !is_space(s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

// Highest set bit of a mask (ibsim picks the fastest common speed).
std::uint8_t highest_bit(unsigned mask)
{
    return mask == 0 ? 0 : static_cast<std::uint8_t>(1u << (std::bit_width(mask) - 1));
}

// The widest width in a LinkWidthEnabled mask, in ibsim's order: 12x (8),
// 8x (4), 4x (2), 2x (16, added in IBA 1.3, so out of bit order), 1x (1).
std::uint8_t widest(unsigned mask)
{
    for (std::uint8_t w : {8, 4, 2, 16, 1})
        if (mask & w) return w;
    return 0;
}

struct PortKey {
    std::uint32_t node;
    std::uint8_t port;
    auto operator<=>(const PortKey&) const = default;
};

// One "[p] "remote"[rp] ..." line.
struct PortDecl {
    NodeId local;
    PortNum lport;
    std::string remote;
    PortNum rport;
    std::size_t line = 0;
    std::optional<Guid> remote_port_guid;
    std::optional<Lid> remote_lid; // "lid N" shown for the far end
    std::optional<netfile::LinkRate> rate;
    std::optional<unsigned> width_enable; // w=
    std::optional<unsigned> speed_enable; // s=
};

struct NodeRecord {
    std::string name;
    std::size_t line = 0;
    unsigned width_enable = 2; // ibsim's default: 4x
    unsigned speed_enable = 1; // ibsim's default: SDR
};

// Small cursor over one line.
class Cursor {
public:
    explicit Cursor(std::string_view s) : s_(s) {}
    void skip_ws()
    {
        while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
    }
    bool at_end() const { return pos_ >= s_.size(); }
    char peek() const { return at_end() ? '\0' : s_[pos_]; }
    bool eat(char c)
    {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    // Text up to (not including) `c`; consumes `c`. nullopt if absent.
    std::optional<std::string_view> until(char c)
    {
        auto e = s_.find(c, pos_);
        if (e == std::string_view::npos) return std::nullopt;
        auto out = s_.substr(pos_, e - pos_);
        pos_ = e + 1;
        return out;
    }
    std::string_view rest() const { return at_end() ? std::string_view{} : s_.substr(pos_); }
    void advance(std::size_t n) { pos_ += n; }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
};

class Reader {
public:
    explicit Reader(const std::string& file) : file_(file) {}

    Fabric run(std::istream& in)
    {
        std::string text;
        while (std::getline(in, text)) {
            ++line_;
            parse_line(trim(text));
        }
        if (in.bad()) fail("read error");
        resolve();
        return std::move(fabric_);
    }

private:
    [[noreturn]] void fail(const std::string& msg) const { throw ParseError(file_, line_, msg); }
    [[noreturn]] void fail_at(std::size_t line, const std::string& msg) const { throw ParseError(file_, line, msg); }

    static std::size_t type_index(NodeType t) { return static_cast<std::size_t>(t) - 1; }

    void parse_line(std::string_view s)
    {
        if (s.empty()) {
            current_.reset();
            return;
        }
        if (s.front() == '#') return; // comments do not end a record (as in ibsim)
        if (s.front() == '[') {
            if (!current_) fail("port line outside a node record (a blank line or other text ended the record)");
            parse_port(s);
            return;
        }
        if (s.front() == '@') fail("ibsim '@' aliases are not supported");
        current_.reset();

        std::size_t k = 0;
        while (k < s.size() && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z'))) ++k;
        std::string_view kw = s.substr(0, k);
        std::string_view rest = s.substr(k);

        if (kw == "Switch") return parse_header(NodeType::switch_node, rest);
        if (kw == "Ca" || kw == "Hca") return parse_header(NodeType::ca, rest);
        if (kw == "Rt") return parse_header(NodeType::router, rest);
        if (kw == "switchguid") return parse_guid_base(NodeType::switch_node, rest);
        if (kw == "caguid" || kw == "hcaguids") return parse_guid_base(NodeType::ca, rest);
        if (kw == "rtguid") return parse_guid_base(NodeType::router, rest);
        if (kw == "vendid") {
            pending_vendid_ = static_cast<std::uint32_t>(assignment(rest, 0xffffff, "vendid"));
            return;
        }
        if (kw == "devid") {
            pending_devid_ = static_cast<std::uint16_t>(assignment(rest, 0xffff, "devid"));
            return;
        }
        if (kw == "sysimgguid") {
            pending_sysguid_ = Guid(assignment(rest, UINT64_MAX, "sysimgguid"));
            return;
        }
        if (kw == "width") {
            default_width_ = static_cast<unsigned>(assignment(rest, 31, "width"));
            if (default_width_ == 0) fail("width must be 1..31 (a LinkWidthEnabled mask)");
            return;
        }
        if (kw == "speed") {
            default_speed_ = static_cast<unsigned>(assignment(rest, 7, "speed"));
            if (default_speed_ == 0) fail("speed must be 1..7 (a LinkSpeedEnabled mask)");
            return;
        }
        if (kw == "pdebug") return; // ibsim parser debugging switch: no meaning here
        if (kw == "include" || kw == "do" || kw == "module")
            fail("ibsim directive '" + std::string(kw) + "' is not supported");
        fail("unrecognised line: '" + std::string(s.substr(0, 40)) + "'");
    }

    // "=value" (value up to `max`), ignoring a trailing "(...)" as in
    // "switchguid=0x2c9(2c9)".
    std::uint64_t assignment(std::string_view rest, std::uint64_t max, const char* what)
    {
        rest = trim(rest);
        if (rest.empty() || rest.front() != '=') fail(std::string("missing '=' after ") + what);
        rest.remove_prefix(1);
        auto paren = rest.find('(');
        auto num = trim(rest.substr(0, paren));
        auto v = parse_uint(num);
        if (!v) fail(std::string("bad number '") + std::string(num) + "' for " + what);
        if (*v > max) fail(std::string(what) + " value " + std::string(num) + " is out of range");
        if (paren != std::string_view::npos) {
            auto close = rest.find(')', paren);
            if (close == std::string_view::npos || !parse_uint(rest.substr(paren + 1, close - paren - 1), 16) ||
                !trim(rest.substr(close + 1)).empty())
                fail(std::string("bad '(guid)' after ") + what);
        } else if (num.size() != trim(rest).size()) {
            fail(std::string("unexpected text after ") + what);
        }
        return *v;
    }

    void parse_guid_base(NodeType type, std::string_view rest)
    {
        rest = trim(rest);
        auto& counter = counters_[type_index(type)];
        if (!rest.empty() && rest.front() == '+') {
            auto v = parse_uint(trim(rest.substr(1)));
            if (!v) fail("bad relative GUID offset '" + std::string(rest) + "'");
            counter = bases_[type_index(type)] + *v;
        } else {
            std::uint64_t v = assignment(rest, UINT64_MAX, netfile::guid_keyword(type));
            bases_[type_index(type)] = v;
            counter = v;
        }
        if (counter == 0) fail("GUID 0 is not valid");
        explicit_guid_[type_index(type)] = true;
    }

    void parse_header(NodeType type, std::string_view rest)
    {
        auto quote = rest.find('"');
        if (quote == std::string_view::npos) fail("missing quoted node name");
        auto count_text = trim(rest.substr(0, quote));
        auto nports = parse_uint(count_text);
        if (!nports) fail("bad port count '" + std::string(count_text) + "'");
        if (*nports < 1 || *nports > PortNum::max_port)
            fail("port count " + std::to_string(*nports) + " is out of range 1.." + std::to_string(PortNum::max_port));
        Cursor c(rest.substr(quote + 1));
        auto name_sv = c.until('"');
        if (!name_sv || name_sv->empty()) fail("missing closing quote or empty node name");
        std::string name(*name_sv);
        if (by_name_.contains(name))
            fail("node \"" + name + "\" is defined twice (first at line " +
                 std::to_string(records_[by_name_[name].value].line) + ")");

        // Comment: description, "enhanced|base port 0", "lid N", "lmc M".
        c.skip_ws();
        std::string desc = name;
        std::string_view tail;
        if (!c.at_end()) {
            if (!c.eat('#')) fail("unexpected text after node name: '" + std::string(c.rest()) + "'");
            c.skip_ws();
            if (c.eat('"')) {
                auto d = c.until('"');
                if (!d) fail("missing closing quote in node description");
                desc = std::string(*d);
                tail = c.rest();
            } else {
                // Unquoted description, ended the way ibsim ends it.
                std::string_view r = c.rest();
                std::size_t end = r.size();
                for (std::string_view stop : {" enhanced port ", " base port ", " lid ", " lmc "})
                    end = std::min(end, r.find(stop));
                desc = std::string(trim(r.substr(0, end)));
                tail = end < r.size() ? r.substr(end) : std::string_view{};
            }
        }
        if (desc.size() > 64) fail("node description longer than 64 characters");

        Guid guid = assign_guid(type, name, static_cast<unsigned>(*nports));
        NodeId id;
        try {
            id = fabric_.add_node(type, guid, static_cast<std::uint8_t>(*nports), desc);
        } catch (const std::invalid_argument&) {
            auto other = fabric_.find_node(guid);
            fail("duplicate node GUID " + guid.str() + " (also node \"" + records_[other->value].name + "\" at line " +
                 std::to_string(records_[other->value].line) + ")");
        }
        Node& node = fabric_.node(id);
        if (pending_vendid_) node.vendor_id = *pending_vendid_;
        if (pending_devid_) node.device_id = *pending_devid_;
        if (pending_sysguid_) node.system_guid = *pending_sysguid_;
        pending_vendid_.reset();
        pending_devid_.reset();
        pending_sysguid_.reset();
        for (auto& p : node.ports) p.known = true;

        auto words = split_ws(tail);
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (words[i] == "enhanced" && type == NodeType::switch_node) node.sw->enhanced_port0 = true;
            if ((words[i] == "lid" || words[i] == "lmc") && type == NodeType::switch_node) {
                if (i + 1 >= words.size()) fail("missing number after '" + std::string(words[i]) + "'");
                auto v = parse_uint(words[i + 1]);
                if (!v) fail("bad " + std::string(words[i]) + " '" + std::string(words[i + 1]) + "'");
                set_lid_or_lmc(PortRef{id, PortNum(0)}, words[i], *v);
                ++i;
            }
        }

        records_.push_back(NodeRecord{name, line_, default_width_, default_speed_});
        by_name_.emplace(std::move(name), id);
        current_ = id;
    }

    void set_lid_or_lmc(PortRef p, std::string_view what, std::uint64_t v)
    {
        Port& port = fabric_.port(p);
        if (what == "lid") {
            if (v > 0xffff) fail("lid " + std::to_string(v) + " is out of range");
            port.lid = Lid(static_cast<std::uint16_t>(v));
            own_lid_.insert(PortKey{p.node.value, p.port.value()});
        } else {
            if (v > 7) fail("lmc " + std::to_string(v) + " is out of range 0..7");
            port.lmc = static_cast<std::uint8_t>(v);
        }
    }

    Guid assign_guid(NodeType type, const std::string& name, unsigned nports)
    {
        std::size_t t = type_index(type);
        auto named = netfile::parse_node_name(name);
        if (named && named->type != type)
            fail("node name \"" + name + "\" has the prefix of a " + to_string(named->type) + " but the record is a " +
                 to_string(type));
        Guid guid;
        if (explicit_guid_[t]) {
            guid = Guid(counters_[t]);
            if (named && named->guid != guid)
                fail(std::string(netfile::guid_keyword(type)) + " line gives " + guid.str() + " but node name \"" +
                     name + "\" says " + named->guid.str());
        } else if (named) {
            guid = named->guid;
        } else {
            if (type == NodeType::router)
                fail("router \"" + name + "\" has no GUID: add an rtguid= line or use an R-<guid> name");
            guid = Guid(counters_[t]);
        }
        if (guid.is_zero()) fail("GUID 0 is not valid");
        // ibsim reserves one GUID per switch and num_ports+1 per CA/router.
        counters_[t] += type == NodeType::switch_node ? 1 : nports + 1;
        explicit_guid_[t] = false;
        return guid;
    }

    std::optional<Guid> parse_paren_guid(Cursor& c)
    {
        if (!c.eat('(')) return std::nullopt;
        auto text = c.until(')');
        if (!text) fail("missing ')' after port GUID");
        auto v = parse_uint(trim(*text), 16);
        if (!v && text->size() > 2) v = parse_uint(trim(*text), 0);
        if (!v) fail("bad port GUID '(" + std::string(*text) + ")'");
        if (*v == 0) fail("port GUID 0 is not valid");
        return Guid(*v);
    }

    void parse_port(std::string_view s)
    {
        NodeId id = *current_;
        const Node& node = fabric_.node(id);
        Cursor c(s);
        c.eat('[');
        auto num_text = c.until(']');
        if (!num_text) fail("missing ']' after local port number");
        auto lp = parse_uint(trim(*num_text));
        if (!lp) fail("bad local port number '" + std::string(*num_text) + "'");
        if (*lp == 0) fail("port 0 cannot be cabled");
        if (*lp > node.num_ports())
            fail("port " + std::to_string(*lp) + " is beyond the node's " + std::to_string(node.num_ports()) +
                 " ports");
        PortDecl d;
        d.local = id;
        d.lport = PortNum(static_cast<std::uint8_t>(*lp));
        d.line = line_;
        PortKey key{id.value, d.lport.value()};
        if (auto it = decl_at_.find(key); it != decl_at_.end())
            fail("port " + std::to_string(*lp) + " is listed twice (also line " +
                 std::to_string(decls_[it->second].line) + ")");

        if (auto g = parse_paren_guid(c)) set_local_port_guid(PortRef{id, d.lport}, *g);

        c.skip_ws();
        if (!c.eat('"')) fail("expected quoted remote node name");
        auto remote = c.until('"');
        if (!remote || remote->empty()) fail("missing closing quote or empty remote node name");
        if (remote->find('@') != std::string_view::npos) fail("ibsim '@' aliases are not supported");
        d.remote = std::string(*remote);
        d.rport = PortNum(1); // ibsim's default when "[n]" is omitted
        if (c.eat('[')) {
            auto rp_text = c.until(']');
            if (!rp_text) fail("missing ']' after remote port number");
            auto rp = parse_uint(trim(*rp_text));
            if (!rp || *rp == 0 || *rp > PortNum::max_port)
                fail("bad remote port number '" + std::string(*rp_text) + "'");
            d.rport = PortNum(static_cast<std::uint8_t>(*rp));
        }
        d.remote_port_guid = parse_paren_guid(c);

        // Options (w=, s=) then an optional comment.
        while (true) {
            c.skip_ws();
            if (c.at_end()) break;
            if (c.eat('#')) {
                parse_port_comment(d, node.is_switch(), c.rest());
                break;
            }
            auto rest = c.rest();
            std::size_t n = 0;
            while (n < rest.size() && !is_space(rest[n]) && rest[n] != '#') ++n;
            std::string_view tok = rest.substr(0, n);
            c.advance(n);
            if (tok.size() > 2 && (tok[0] == 'w' || tok[0] == 's') && tok[1] == '=') {
                auto v = parse_uint(tok.substr(2));
                // LinkWidthEnabled masks 1..31 (bit 4: 2x) as ibsim takes them.
                unsigned max = tok[0] == 'w' ? 31 : 7;
                if (!v || *v == 0 || *v > max)
                    fail("bad option '" + std::string(tok) + "' (" + (tok[0] == 'w' ? "w=1..31" : "s=1..7") + ")");
                (tok[0] == 'w' ? d.width_enable : d.speed_enable) = static_cast<unsigned>(*v);
            } else {
                fail("unexpected text on port line: '" + std::string(tok) + "'");
            }
        }
        decl_at_.emplace(key, decls_.size());
        decls_.push_back(std::move(d));
    }

    // Comment of a port line. ibnetdiscover writes, for a switch port:
    //   "remote desc" lid <remote lid> 4xQDR
    // and for a CA/router port:
    //   lid <own lid> lmc <own lmc> "remote desc" lid <remote lid> 4xQDR
    void parse_port_comment(PortDecl& d, bool local_is_switch, std::string_view text)
    {
        std::string_view before = text, after;
        bool quoted = false;
        if (auto q = text.find('"'); q != std::string_view::npos) {
            auto q2 = text.find('"', q + 1);
            if (q2 == std::string_view::npos) fail("missing closing quote in port comment");
            before = text.substr(0, q);
            after = text.substr(q2 + 1);
            quoted = true;
        }
        auto scan = [&](std::string_view part, bool own) {
            auto words = split_ws(part);
            for (std::size_t i = 0; i < words.size(); ++i) {
                if (words[i] == "lid" || words[i] == "lmc") {
                    if (i + 1 >= words.size()) fail("missing number after '" + std::string(words[i]) + "'");
                    auto v = parse_uint(words[i + 1]);
                    if (!v) fail("bad " + std::string(words[i]) + " '" + std::string(words[i + 1]) + "'");
                    if (own) {
                        set_lid_or_lmc(PortRef{d.local, d.lport}, words[i], *v);
                    } else if (words[i] == "lid") {
                        if (*v > 0xffff) fail("lid " + std::to_string(*v) + " is out of range");
                        d.remote_lid = Lid(static_cast<std::uint16_t>(*v));
                    }
                    ++i;
                } else if (auto r = netfile::parse_link_rate(words[i])) {
                    d.rate = *r;
                }
            }
        };
        if (local_is_switch) {
            scan(before, false);
            scan(after, false);
        } else {
            scan(before, true);
            if (quoted) scan(after, false);
        }
    }

    void set_local_port_guid(PortRef p, Guid g)
    {
        const Node& node = fabric_.node(p.node);
        if (node.is_switch()) {
            if (g != node.guid)
                fail("switch port GUID " + g.str() + " differs from the switch GUID " + node.guid.str() +
                     " (switch ports share the node GUID)");
            return;
        }
        Port& port = fabric_.port(p);
        if (!port.guid.is_zero() && port.guid != g)
            fail("port GUID " + g.str() + " contradicts " + port.guid.str() + " given earlier for this port");
        try {
            fabric_.set_port_guid(p, g);
        } catch (const std::invalid_argument&) {
            fail("duplicate port GUID " + g.str());
        }
    }

    std::string port_text(PortRef p) const
    {
        return "\"" + records_[p.node.value].name + "\"[" + std::to_string(p.port.value()) + "]";
    }

    void resolve()
    {
        // Far-end lookups first, so every error below can name both ends.
        std::vector<PortRef> far(decls_.size());
        for (std::size_t i = 0; i < decls_.size(); ++i) {
            const PortDecl& d = decls_[i];
            auto it = by_name_.find(d.remote);
            if (it == by_name_.end()) fail_at(d.line, "unknown node \"" + d.remote + "\"");
            const Node& rn = fabric_.node(it->second);
            if (d.rport.value() > rn.num_ports())
                fail_at(d.line, "node \"" + d.remote + "\" has no port " + std::to_string(d.rport.value()) +
                                    " (it has " + std::to_string(rn.num_ports()) + ")");
            far[i] = PortRef{it->second, d.rport};
        }

        for (std::size_t i = 0; i < decls_.size(); ++i) {
            const PortDecl& d = decls_[i];
            PortRef here{d.local, d.lport};
            PortRef there = far[i];
            if (here == there) fail_at(d.line, "port is cabled to itself");
            if (auto it = decl_at_.find(PortKey{there.node.value, there.port.value()}); it != decl_at_.end()) {
                PortRef back = far[it->second];
                if (back != here)
                    fail_at(d.line, port_text(here) + " is cabled to " + port_text(there) + ", but line " +
                                        std::to_string(decls_[it->second].line) + " cables " + port_text(there) +
                                        " to " + port_text(back));
            }
            if (auto existing = fabric_.remote(there); existing && *existing != here) {
                fail_at(d.line, port_text(there) + " is already cabled to " + port_text(*existing));
            }
            fabric_.connect(here, there);

            if (d.remote_port_guid) {
                const Node& rn = fabric_.node(there.node);
                if (rn.is_switch()) {
                    if (*d.remote_port_guid != rn.guid)
                        fail_at(d.line, "port GUID " + d.remote_port_guid->str() + " of switch \"" + d.remote +
                                            "\" differs from its GUID " + rn.guid.str());
                } else {
                    Guid have = fabric_.port(there).guid;
                    if (!have.is_zero() && have != *d.remote_port_guid)
                        fail_at(d.line, "port GUID " + d.remote_port_guid->str() + " for " + port_text(there) +
                                            " contradicts " + have.str());
                    try {
                        fabric_.set_port_guid(there, *d.remote_port_guid);
                    } catch (const std::invalid_argument&) {
                        fail_at(d.line, "duplicate port GUID " + d.remote_port_guid->str());
                    }
                }
            }
        }

        // Unannotated CA/router ports: ibsim's rule, node GUID + port number.
        for (NodeId id : fabric_.node_ids()) {
            const Node& n = fabric_.node(id);
            if (n.is_switch()) continue;
            for (std::uint8_t p = 1; p <= n.num_ports(); ++p) {
                PortRef ref{id, PortNum(p)};
                if (!fabric_.port(ref).guid.is_zero()) continue;
                Guid g(n.guid.value() + p);
                try {
                    fabric_.set_port_guid(ref, g);
                } catch (const std::invalid_argument&) {
                    fail_at(records_[id.value].line, "port " + std::to_string(p) + " would get GUID " + g.str() +
                                                         " (node GUID + port, as ibsim does) but another port has it;"
                                                         " give it a '(guid)'");
                }
            }
        }

        apply_rates(far);
        apply_lid_hints(far);
    }

    void apply_rates(const std::vector<PortRef>& far)
    {
        std::map<PortKey, const PortDecl*> by_port;
        for (const PortDecl& d : decls_) by_port[PortKey{d.local.value, d.lport.value()}] = &d;
        for (std::size_t i = 0; i < decls_.size(); ++i) {
            const PortDecl& d = decls_[i];
            PortRef here{d.local, d.lport};
            PortRef there = far[i];
            auto other_it = by_port.find(PortKey{there.node.value, there.port.value()});
            const PortDecl* other = other_it == by_port.end() ? nullptr : other_it->second;
            Port& port = fabric_.port(here);
            if (d.rate || (other && other->rate)) {
                const auto& r = d.rate ? *d.rate : *other->rate;
                port.link_width_active = r.width;
                port.link_speed_active = r.speed;
                port.link_speed_ext_active = r.speed_ext;
            } else {
                // What ibsim will make active: best mode both ends enable.
                auto wa = d.width_enable.value_or(records_[here.node.value].width_enable);
                auto wb = other && other->width_enable ? *other->width_enable
                                                       : records_[there.node.value].width_enable;
                auto sa = d.speed_enable.value_or(records_[here.node.value].speed_enable);
                auto sb = other && other->speed_enable ? *other->speed_enable
                                                       : records_[there.node.value].speed_enable;
                std::uint8_t w = widest(wa & wb);
                std::uint8_t s = highest_bit(sa & sb & 0x7);
                if (w == 0) fail_at(d.line, "the two ends enable no common link width (w=)");
                if (s == 0) fail_at(d.line, "the two ends enable no common link speed (s=)");
                port.link_width_active = w;
                port.link_speed_active = s;
            }
            // The far end may have no line of its own (one-sided listing).
            Port& rp = fabric_.port(there);
            if (!other) {
                rp.link_width_active = port.link_width_active;
                rp.link_speed_active = port.link_speed_active;
                rp.link_speed_ext_active = port.link_speed_ext_active;
            }
        }
    }

    void apply_lid_hints(const std::vector<PortRef>& far)
    {
        for (std::size_t i = 0; i < decls_.size(); ++i) {
            const PortDecl& d = decls_[i];
            if (!d.remote_lid) continue;
            PortRef there = far[i];
            if (fabric_.node(there.node).is_switch()) there.port = PortNum(0);
            if (own_lid_.contains(PortKey{there.node.value, there.port.value()})) continue;
            fabric_.port(there).lid = *d.remote_lid;
        }
    }

    const std::string& file_;
    std::size_t line_ = 0;
    Fabric fabric_;
    std::vector<NodeRecord> records_; // index = NodeId
    std::unordered_map<std::string, NodeId> by_name_;
    std::optional<NodeId> current_;
    std::vector<PortDecl> decls_;
    std::map<PortKey, std::size_t> decl_at_;
    std::set<PortKey> own_lid_;

    std::optional<std::uint32_t> pending_vendid_;
    std::optional<std::uint16_t> pending_devid_;
    std::optional<Guid> pending_sysguid_;
    unsigned default_width_ = 2;
    unsigned default_speed_ = 1;

    // ibsim's GUID counters per node type (CA, switch, router).
    std::array<std::uint64_t, 3> bases_{0x100000, 0x200000, 0};
    std::array<std::uint64_t, 3> counters_{0x100000, 0x200000, 0};
    std::array<bool, 3> explicit_guid_{false, false, false};
};

} // namespace

Fabric read_net(std::istream& in, const std::string& name)
{
    return Reader(name).run(in);
}

} // namespace ibsm::topology
