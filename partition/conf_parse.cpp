// Algorithm: the file is cut into lines, each line at `#` and at `;`; a
// statement's header is the text before the first `:` of the line it
// starts on, its member list the rest of that line and every line up to
// the `;`. An `mgid=` item takes the rest of its line (up to `;`) as its
// group flags. Flags and keywords match as OpenSM's strncmp(word, keyword,
// strlen(word)) does: the word is any prefix of the keyword, keywords tried
// in OpenSM's order. OpenSM stops at its first PARSE ERROR; so does this.
#include "partition/conf_parse.h"

#include <arpa/inet.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <optional>

namespace ibsm::partition {

namespace {

constexpr std::string_view spaces = " \t\r\n";

std::string_view trim(std::string_view s)
{
    const auto b = s.find_first_not_of(spaces);
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(spaces) - b + 1);
}

// `word` is a prefix of `keyword` (the empty word is a prefix of all).
bool prefix_of(std::string_view word, std::string_view keyword)
{
    return word.size() <= keyword.size() && keyword.substr(0, word.size()) == word;
}

// C's strtoul(s, &end, 0): the value and whether all of `s` was a number.
struct Number {
    std::uint64_t value = 0;
    bool whole = false; // nothing after the digits
    bool any = false;   // at least one digit
};

Number c_number(std::string_view s)
{
    const std::string text(s);
    char* end = nullptr;
    errno = 0;
    Number n;
    n.value = std::strtoull(text.c_str(), &end, 0);
    n.any = end != text.c_str();
    n.whole = n.any && *end == '\0' && errno == 0;
    return n;
}

std::string hex(std::uint64_t v, int width)
{
    char b[24];
    std::snprintf(b, sizeof b, "0x%0*llx", width, static_cast<unsigned long long>(v));
    return b;
}

// `name[=value]`, both trimmed.
struct Token {
    std::string_view name;
    std::optional<std::string_view> value;
};

Token split_token(std::string_view s)
{
    Token t;
    const auto eq = s.find('=');
    t.name = trim(s.substr(0, eq));
    if (eq != std::string_view::npos) t.value = trim(s.substr(eq + 1));
    return t;
}

std::vector<std::string_view> split(std::string_view s, char by)
{
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const auto at = s.find(by, start);
        out.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos) return out;
        start = at + 1;
    }
}

class Parser {
public:
    Parser(std::string_view file) : file_(file) {}

    ParseResult run(std::string_view text)
    {
        int lineno = 0;
        for (std::string_view rest = text; !rest.empty() || lineno == 0;) {
            const auto nl = rest.find('\n');
            std::string_view line = rest.substr(0, nl);
            rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
            line_ = ++lineno;
            if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
            const auto segments = split(line, ';');
            for (std::size_t i = 0; i < segments.size(); ++i) {
                const bool ends = i + 1 < segments.size();
                if (!trim(segments[i]).empty() || (ends && !open_)) {
                    if (!segment(segments[i])) return finish();
                }
                if (ends) close();
            }
            if (rest.empty()) break;
        }
        close();
        return finish();
    }

private:
    std::string where() const { return std::string(file_) + ":" + std::to_string(line_) + ": "; }
    bool error(const std::string& what)
    {
        result_.errors.push_back(where() + what);
        return false;
    }
    void warn(const std::string& what) { result_.warnings.push_back(where() + what); }

    void close()
    {
        if (open_) result_.rules.push_back(std::move(rule_));
        open_ = false;
        rule_ = Rule{};
    }

    ParseResult finish()
    {
        if (result_.ok()) assign_pkeys(result_.rules);
        else result_.rules.clear();
        return std::move(result_);
    }

    bool segment(std::string_view s)
    {
        if (!open_) {
            const auto colon = s.find(':');
            if (colon == std::string_view::npos)
                return error("no partition definition here: a statement is 'Name[=PKey][,flag...] : members ;' "
                             "and its ':' must be on its first line");
            if (!header(s.substr(0, colon))) return false;
            s = s.substr(colon + 1);
        }
        return members(s);
    }

    bool header(std::string_view h)
    {
        rule_ = Rule{};
        rule_.line = line_;
        defmember_ = Membership::limited;
        const auto parts = split(h, ',');
        auto first = split_token(parts[0]);
        std::string_view name = first.name;
        std::optional<std::string_view> id = first.value;
        // "0x8001 : ..." gives the P_Key alone (osm_prtn_config.c, partition_create).
        if (!id && !name.empty() && name[0] >= '0' && name[0] <= '9') {
            id = name;
            name = {};
        }
        if (id) {
            const auto n = c_number(*id);
            if (!n.whole)
                return error("'" + std::string(*id) + "' is not a P_Key (a number such as 0x8001) of partition '" +
                             std::string(name) + "'");
            rule_.pkey = static_cast<std::uint16_t>(n.value & 0x7fff);
        }
        rule_.name = std::string(name);
        for (std::size_t i = 1; i < parts.size(); ++i) partition_flag(split_token(parts[i]));
        open_ = true;
        return true;
    }

    // A partition flag, or a group flag for its broadcast group.
    void partition_flag(const Token& t)
    {
        if (group_flag(rule_.flags, t)) return;
        if (prefix_of(t.name, "ipoib")) {
            rule_.ipoib = true;
        } else if (prefix_of(t.name, "defmember")) {
            const auto v = t.value.value_or("");
            if (!t.value || !(prefix_of(v, "limited") || prefix_of(v, "both") || prefix_of(v, "full")))
                warn("'defmember' needs full, limited or both; ignored");
            else
                defmember_ = prefix_of(v, "full") ? Membership::full
                             : prefix_of(v, "both") ? Membership::both
                                                    : Membership::limited;
        } else if (t.name == "indx0") {
            rule_.indx0 = true;
        } else {
            warn("unknown partition flag '" + std::string(t.name) + "' ignored");
        }
    }

    // mtu, rate, scope, Q_Key, TClass, sl, FlowLabel, in the order OpenSM
    // tries them (osm_prtn_config.c, parse_group_flag). False: not one.
    bool group_flag(GroupFlags& f, const Token& t)
    {
        const auto& n = t.name;
        auto value = [&](const char* flag) -> std::optional<Number> {
            if (!t.value || t.value->empty()) return std::nullopt;
            auto v = c_number(*t.value);
            if (!v.whole) warn("suspicious value '" + std::string(*t.value) + "' of '" + flag + "'");
            return v;
        };
        if (prefix_of(n, "mtu") || prefix_of(n, "rate")) {
            const bool mtu = prefix_of(n, "mtu");
            auto v = value(mtu ? "mtu" : "rate");
            // OpenSM stores the value even when it then calls it invalid.
            (mtu ? f.mtu : f.rate) = static_cast<std::uint8_t>(v ? v->value : (mtu ? f.mtu : f.rate));
            if (!v || v->value == 0) warn(std::string("'") + (mtu ? "mtu" : "rate") + "' needs a value (an IBA code); skipped");
            return true;
        }
        if (prefix_of(n, "scope")) {
            auto v = value("scope");
            if (!v || v->value == 0 || v->value > 0xf)
                warn("'scope' needs a value 1..15; skipped");
            else
                f.scope_mask = static_cast<std::uint16_t>(f.scope_mask | (1u << v->value));
            return true;
        }
        if (prefix_of(n, "Q_Key") || prefix_of(n, "TClass")) {
            const bool qkey = prefix_of(n, "Q_Key");
            auto v = value(qkey ? "Q_Key" : "TClass");
            if (qkey) f.qkey = static_cast<std::uint32_t>(v ? v->value : 0);
            else f.tclass = static_cast<std::uint8_t>(v ? v->value : 0);
            if (!v || v->value == 0) warn(std::string("'") + (qkey ? "Q_Key" : "TClass") + "' needs a value; 0 used");
            return true;
        }
        if (prefix_of(n, "sl") || prefix_of(n, "FlowLabel")) {
            const bool sl = prefix_of(n, "sl");
            const auto limit = sl ? 15u : 0xfffffu;
            const auto v = t.value ? c_number(*t.value) : Number{};
            if (!v.whole || v.value > limit) {
                warn(std::string("'") + (sl ? "sl" : "FlowLabel") + "' needs a value 0.." + std::to_string(limit) +
                     "; skipped");
            } else if (sl) {
                f.sl = static_cast<std::uint8_t>(v.value);
            } else {
                f.flow_label = static_cast<std::uint32_t>(v.value);
            }
            return true;
        }
        return false;
    }

    bool members(std::string_view s)
    {
        const auto items = split(s, ',');
        for (std::size_t i = 0; i < items.size(); ++i) {
            const auto t = split_token(items[i]);
            if (t.name == "mgid") return group(t.value.value_or(""), items, i + 1);
            if (!member(t)) return false;
        }
        return true;
    }

    bool member(const Token& t)
    {
        if (t.name.empty() || prefix_of(t.name, "NONE")) return true;
        MemberRule m;
        m.membership = defmember_;
        if (t.value) {
            const auto f = *t.value;
            if (prefix_of(f, "full")) m.membership = Membership::full;
            else if (prefix_of(f, "both")) m.membership = Membership::both;
            else {
                m.membership = Membership::limited;
                if (!prefix_of(f, "limited"))
                    warn("unknown membership '" + std::string(f) + "' of '" + std::string(t.name) +
                         "'; limited assumed");
            }
        }
        static constexpr std::array<std::pair<std::string_view, Who>, 5> keywords{{{"ALL", Who::all},
                                                                                     {"ALL_CAS", Who::all_cas},
                                                                                     {"ALL_SWITCHES", Who::all_switches},
                                                                                     {"ALL_ROUTERS", Who::all_routers},
                                                                                     {"SELF", Who::self}}};
        for (const auto& [word, who] : keywords)
            if (prefix_of(t.name, word)) {
                m.who = who;
                rule_.members.push_back(m);
                return true;
            }
        const auto n = c_number(t.name);
        if (!n.whole || n.value == 0) {
            if (prefix_of(t.name, "defmember") || prefix_of(t.name, "ipoib") || t.name == "indx0")
                return error("'" + std::string(t.name) + "' is not a port: partition flags go before the ':'");
            return error("'" + std::string(t.name) +
                         "' is not a port GUID (a number such as 0x0002c90300001234) nor ALL, ALL_CAS, "
                         "ALL_SWITCHES, ALL_ROUTERS or SELF");
        }
        m.guid = Guid(n.value);
        rule_.members.push_back(m);
        return true;
    }

    // `mgid=<gid>[,flag=v]...`: the rest of the line belongs to it.
    bool group(std::string_view text, const std::vector<std::string_view>& items, std::size_t from)
    {
        const std::string gid_text(trim(text));
        std::array<std::uint8_t, 16> raw{};
        if (inet_pton(AF_INET6, gid_text.c_str(), raw.data()) != 1 || raw[0] != 0xff)
            return error("mgid '" + gid_text + "' is not a multicast GID (ff..:...)");
        GroupRule g;
        for (int i = 0; i < 8; ++i) g.mgid.prefix = (g.mgid.prefix << 8) | raw[static_cast<std::size_t>(i)];
        for (int i = 8; i < 16; ++i) g.mgid.interface_id = (g.mgid.interface_id << 8) | raw[static_cast<std::size_t>(i)];
        // Inherited from the partition (osm_prtn_config.c, mgroup_create; TClass is not).
        g.flags = rule_.flags;
        g.flags.tclass = 0;
        for (std::size_t i = from; i < items.size(); ++i) {
            const auto t = split_token(items[i]);
            if (!group_flag(g.flags, t)) warn("unknown group flag '" + std::string(t.name) + "' ignored");
        }
        if (is_ip_mgid(g.mgid)) {
            const auto mpkey = static_cast<std::uint16_t>(g.mgid.prefix >> 16);
            const auto pkey = static_cast<std::uint16_t>(rule_.pkey | 0x8000);
            const bool broadcast = g.mgid == ipoib_broadcast_mgid(0x7fff) && mpkey == 0xffff;
            // Before assign_pkeys a generated P_Key is not known: only 0 or
            // an explicit match are checked then.
            if (!broadcast && mpkey != 0 && !(rule_.pkey != 0 && mpkey == pkey)) {
                warn("IP group " + g.mgid.str() + " has P_Key " + hex(mpkey, 4) + ", not its partition's " +
                     hex(pkey, 4) + "; group not created");
                return true;
            }
            if (g.flags.rate != rule_.flags.rate || g.flags.mtu != rule_.flags.mtu) {
                warn("IP group " + g.mgid.str() + " has rate " + std::to_string(g.flags.rate) + " and mtu " +
                     std::to_string(g.flags.mtu) + ", its partition's broadcast group rate " +
                     std::to_string(rule_.flags.rate) + " and mtu " + std::to_string(rule_.flags.mtu) +
                     "; group not created");
                return true;
            }
            if (g.flags.qkey == 0) g.flags.qkey = 0x0b1b;
        }
        rule_.groups.push_back(g);
        return true;
    }

    std::string_view file_;
    int line_ = 0;
    bool open_ = false;
    Rule rule_;
    Membership defmember_ = Membership::limited;
    ParseResult result_;
};

} // namespace

ParseResult parse_partitions_conf(std::string_view text, std::string_view file_name)
{
    return Parser(file_name).run(text);
}

} // namespace ibsm::partition
