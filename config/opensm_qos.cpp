// qos-policy.conf into ibsmd's qos: (see opensm_qos.h).
#include "config/opensm_qos.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <regex>
#include <sstream>

namespace ibsm::config {

namespace {

constexpr std::uint64_t max_expanded = 4096;

std::string trim(std::string s)
{
    auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    while (!s.empty() && blank(s.back())) s.pop_back();
    std::size_t i = 0;
    while (i < s.size() && blank(s[i])) ++i;
    return s.substr(i);
}

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, sep)) out.push_back(trim(item));
    return out;
}

class QosReader {
public:
    QosReader(std::string name, const std::map<std::string, std::uint16_t>& partitions)
        : name_(std::move(name)), partitions_(partitions)
    {
    }

    OpensmQos run(std::istream& in)
    {
        std::string text;
        for (std::size_t n = 1; std::getline(in, text); ++n) {
            if (auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
            text = trim(text);
            if (!text.empty()) lines_.push_back({n, text});
        }
        while (at_ < lines_.size()) section();
        finish();
        return std::move(out_);
    }

private:
    struct Line {
        std::size_t n;
        std::string text;
    };

    [[noreturn]] void fail(std::size_t n, const std::string& why) const
    {
        throw ConfigError(name_ + ":" + std::to_string(n) + ": " + why);
    }
    std::string where(std::size_t n) const { return name_ + ":" + std::to_string(n); }

    std::uint64_t number(std::size_t n, const std::string& v, std::uint64_t hi) const
    {
        errno = 0;
        char* end = nullptr;
        const unsigned long long x = std::strtoull(v.c_str(), &end, 0);
        if (v.empty() || *end != '\0' || errno == ERANGE || v[0] == '-') fail(n, "expected a number, got '" + v + "'");
        if (x > hi) fail(n, std::to_string(x) + " is more than " + std::to_string(hi));
        return x;
    }

    // "a, b-c, d": values and ranges.
    std::vector<QosRange<std::uint64_t>> ranges(std::size_t n, const std::string& v, std::uint64_t hi) const
    {
        std::vector<QosRange<std::uint64_t>> out;
        for (const auto& item : split(v, ',')) {
            const auto dash = item.find('-');
            const auto a = number(n, trim(item.substr(0, dash)), hi);
            const auto b = dash == std::string::npos ? a : number(n, trim(item.substr(dash + 1)), hi);
            if (b < a) fail(n, "range '" + item + "' ends before it starts");
            out.push_back({a, b});
        }
        return out;
    }

    template <class T> std::vector<T> expand(std::size_t n, const std::string& v, std::uint64_t hi, const char* what)
    {
        std::vector<T> out;
        for (const auto& r : ranges(n, v, hi)) {
            if (r.last - r.first >= max_expanded)
                fail(n, std::string("a range of more than ") + std::to_string(max_expanded) + " " + what +
                            " has no equivalent (ibsmd lists them one by one)");
            for (std::uint64_t x = r.first; x <= r.last; ++x) out.push_back(T(x));
        }
        return out;
    }

    // "key: value" of a subsection item.
    std::pair<std::string, std::string> item(const Line& l) const
    {
        const auto colon = l.text.find(':');
        if (colon == std::string::npos) fail(l.n, "expected 'keyword: value', got '" + l.text + "'");
        return {trim(l.text.substr(0, colon)), trim(l.text.substr(colon + 1))};
    }

    void section()
    {
        const Line& l = lines_[at_++];
        if (l.text == "port-groups")
            subsections("port-group", "end-port-groups", [&](std::size_t n) { port_group(n); });
        else if (l.text == "qos-levels")
            subsections("qos-level", "end-qos-levels", [&](std::size_t n) { level(n); });
        else if (l.text == "qos-match-rules")
            subsections("qos-match-rule", "end-qos-match-rules", [&](std::size_t n) { match_rule(n); });
        else if (l.text == "qos-ulps")
            ulps();
        else if (l.text == "qos-setup")
            skip_setup(l.n);
        else
            fail(l.n, "expected port-groups, qos-setup, qos-levels, qos-match-rules or qos-ulps, got '" + l.text + "'");
    }

    template <class F> void subsections(const std::string& head, const std::string& end, F read)
    {
        while (true) {
            if (at_ == lines_.size()) fail(lines_.back().n, "missing '" + end + "'");
            const Line& l = lines_[at_++];
            if (l.text == end) return;
            if (l.text != head) fail(l.n, "expected '" + head + "' or '" + end + "', got '" + l.text + "'");
            read(l.n);
        }
    }

    // The items of one subsection up to its end-keyword.
    std::vector<Line> body(std::size_t start, const std::string& end)
    {
        std::vector<Line> out;
        while (true) {
            if (at_ == lines_.size()) fail(start, "missing '" + end + "'");
            const Line& l = lines_[at_++];
            if (l.text == end) return out;
            out.push_back(l);
        }
    }

    void skip_setup(std::size_t n)
    {
        body(n, "end-qos-setup");
        out_.notes.push_back(where(n) + ": qos-setup is parsed and ignored, as OpenSM does (its tables are "
                                        "opensm.conf's qos_* keys, imported from --conf)");
    }

    void port_group(std::size_t start)
    {
        QosPortGroup g;
        for (const auto& l : body(start, "end-port-group")) {
            const auto [key, value] = item(l);
            if (key == "name") {
                g.name = value;
            } else if (key == "use") {
            } else if (key == "port-guid") {
                auto more = expand<Guid>(l.n, value, ~0ull, "port GUIDs");
                g.port_guids.insert(g.port_guids.end(), more.begin(), more.end());
            } else if (key == "pkey") {
                for (auto p : expand<std::uint16_t>(l.n, value, 0xffff, "P_Keys"))
                    g.partitions.push_back(static_cast<std::uint16_t>(p & 0x7fff));
            } else if (key == "partition") {
                for (const auto& name : split(value, ',')) {
                    auto it = partitions_.find(name);
                    if (it == partitions_.end())
                        fail(l.n, "partition '" + name + "': not named in the partitions file" +
                                      (partitions_.empty() ? " (give it with --partitions)" : ""));
                    g.partitions.push_back(static_cast<std::uint16_t>(it->second & 0x7fff));
                }
            } else if (key == "node-type") {
                for (const auto& t : split(value, ',')) {
                    std::string u = t;
                    std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
                    if (u == "CA")
                        g.all_cas = true;
                    else if (u == "SWITCH")
                        g.all_switches = true;
                    else if (u == "ALL")
                        g.all_cas = g.all_switches = true;
                    else if (u == "ROUTER" || u == "SELF")
                        fail(l.n, "node-type " + u + " has no equivalent (ibsmd's port groups select CAs and "
                                                     "switches, not routers or the SM's own port)");
                    else
                        fail(l.n, "unknown node-type '" + t + "' (CA, SWITCH, ROUTER, ALL, SELF)");
                }
            } else if (key == "port-name") {
                fail(l.n, "port-name has no equivalent: ibsmd's port groups select every port of a node by its "
                          "description (qos.port_groups node_desc), not one port; list the port GUIDs instead");
            } else {
                fail(l.n, "unknown port-group keyword '" + key + "'");
            }
        }
        if (g.name.empty()) fail(start, "port-group without a name");
        if (group_line_.contains(g.name)) fail(start, "port group '" + g.name + "' defined twice");
        group_line_[g.name] = start;
        out_.qos.port_groups.push_back(std::move(g));
    }

    void level(std::size_t start)
    {
        QosLevel q;
        bool has_sl = false;
        for (const auto& l : body(start, "end-qos-level")) {
            const auto [key, value] = item(l);
            if (key == "name") {
                q.name = value;
            } else if (key == "use") {
            } else if (key == "sl") {
                q.sl = static_cast<std::uint8_t>(number(l.n, value, 15));
                has_sl = true;
            } else if (key == "mtu-limit") {
                q.mtu = static_cast<std::uint8_t>(number(l.n, value, 5));
                if (*q.mtu == 0) fail(l.n, "mtu-limit 0 is not an MTU code (1..5)");
            } else if (key == "rate-limit") {
                q.rate = static_cast<std::uint8_t>(number(l.n, value, 63));
            } else if (key == "packet-life") {
                q.packet_life = static_cast<std::uint8_t>(number(l.n, value, 63));
            } else if (key == "pkey" || key == "path-bits") {
                fail(l.n, key + " in a qos-level has no equivalent (ibsmd's levels give SL, MTU, rate and packet "
                                "lifetime; select P_Keys in the rules)");
            } else {
                fail(l.n, "unknown qos-level keyword '" + key + "'");
            }
        }
        if (q.name.empty()) fail(start, "qos-level without a name");
        if (!has_sl) fail(start, "qos-level '" + q.name + "' has no sl");
        if (level_line_.contains(q.name)) fail(start, "qos-level '" + q.name + "' defined twice");
        level_line_[q.name] = start;
        if (q.name == "DEFAULT") {
            default_ = q;
            default_line_ = start;
            return;
        }
        out_.qos.levels.push_back(std::move(q));
    }

    std::string group_ref(std::size_t n, const std::string& value) const
    {
        const auto names = split(value, ',');
        if (names.size() != 1)
            fail(n, "a list of port groups has no equivalent (ibsmd's rules take one source and one destination "
                    "group; define one group with all their ports)");
        if (!group_line_.contains(names[0])) fail(n, "port group '" + names[0] + "' is not defined above");
        return names[0];
    }

    void match_rule(std::size_t start)
    {
        QosRule r;
        r.line = static_cast<unsigned>(start);
        std::optional<std::size_t> level_at;
        for (const auto& l : body(start, "end-qos-match-rule")) {
            const auto [key, value] = item(l);
            if (key == "use") {
            } else if (key == "qos-class") {
                for (auto x : ranges(l.n, value, 0xfff))
                    r.qos_classes.push_back({static_cast<std::uint16_t>(x.first), static_cast<std::uint16_t>(x.last)});
            } else if (key == "service-id") {
                auto more = ranges(l.n, value, ~0ull);
                r.service_ids.insert(r.service_ids.end(), more.begin(), more.end());
            } else if (key == "pkey") {
                for (auto p : expand<std::uint16_t>(l.n, value, 0xffff, "P_Keys"))
                    r.pkeys.push_back(static_cast<std::uint16_t>(p & 0x7fff));
            } else if (key == "source") {
                r.source = group_ref(l.n, value);
            } else if (key == "destination") {
                r.destination = group_ref(l.n, value);
            } else if (key == "qos-level-name") {
                r.level = value;
                level_at = l.n;
            } else {
                fail(l.n, "unknown qos-match-rule keyword '" + key + "'");
            }
        }
        if (!level_at) fail(start, "qos-match-rule without qos-level-name");
        pending_levels_.push_back({r.level, *level_at});
        out_.qos.rules.push_back(std::move(r));
    }

    // A level "ulp-sl-N" for SL N, made once.
    std::string ulp_level(std::uint8_t sl)
    {
        const std::string name = "ulp-sl-" + std::to_string(sl);
        if (!ulp_levels_.contains(name)) {
            ulp_levels_[name] = true;
            ulp_level_list_.push_back(QosLevel{name, sl, std::nullopt, std::nullopt, std::nullopt});
        }
        return name;
    }

    // A port group of the GUIDs of one qos-ulps line.
    std::string ulp_group(std::size_t n, const std::string& guids)
    {
        QosPortGroup g;
        g.name = "ulp-line-" + std::to_string(n);
        g.port_guids = expand<Guid>(n, guids, ~0ull, "port GUIDs");
        out_.qos.port_groups.push_back(std::move(g));
        return "ulp-line-" + std::to_string(n);
    }

    void ulps()
    {
        const std::size_t start = lines_[at_ - 1].n;
        for (const auto& l : body(start, "end-qos-ulps")) {
            const auto colon = l.text.rfind(':');
            if (colon == std::string::npos) fail(l.n, "expected 'ULP[, criterion] : SL', got '" + l.text + "'");
            const auto sl = static_cast<std::uint8_t>(number(l.n, trim(l.text.substr(colon + 1)), 15));
            const std::string lhs = trim(l.text.substr(0, colon));
            const auto comma = lhs.find(',');
            const std::string ulp = trim(lhs.substr(0, comma));
            std::string crit, arg;
            if (comma != std::string::npos) {
                const std::string rest = trim(lhs.substr(comma + 1));
                const auto sp = rest.find_first_of(" \t");
                if (sp == std::string::npos) fail(l.n, "expected 'criterion value' after the comma, got '" + rest + "'");
                crit = rest.substr(0, sp);
                arg = trim(rest.substr(sp));
            }
            QosRule r;
            r.line = static_cast<unsigned>(l.n);
            auto bad_criterion = [&] { fail(l.n, "'" + crit + "' is not a criterion of '" + ulp + "'"); };
            // OpenSM's Service IDs: SDP 0x1PPPP, RDS and iSER 0x106PPPP.
            auto by_port = [&](std::uint64_t base, std::optional<std::uint64_t> fixed) {
                if (crit.empty()) {
                    if (fixed)
                        r.service_ids.push_back({base + *fixed, base + *fixed});
                    else
                        r.service_ids.push_back({base, base + 0xffff});
                } else if (crit == "port-num") {
                    for (auto p : ranges(l.n, arg, 0xffff)) r.service_ids.push_back({base + p.first, base + p.last});
                } else {
                    bad_criterion();
                }
            };
            if (ulp == "default") {
                if (!crit.empty()) bad_criterion();
                ulp_default_ = QosLevel{"DEFAULT", sl, std::nullopt, std::nullopt, std::nullopt};
                ulp_default_line_ = l.n;
                continue;
            } else if (ulp == "sdp") {
                by_port(0x10000, std::nullopt);
            } else if (ulp == "rds") {
                by_port(0x1060000, 0x48CA);
            } else if (ulp == "iser") {
                by_port(0x1060000, 0x0CBC);
            } else if (ulp == "ipoib") {
                if (crit.empty())
                    r.pkeys.push_back(0x7fff);
                else if (crit == "pkey")
                    for (auto p : expand<std::uint16_t>(l.n, arg, 0xffff, "P_Keys"))
                        r.pkeys.push_back(static_cast<std::uint16_t>(p & 0x7fff));
                else
                    bad_criterion();
            } else if (ulp == "srp") {
                if (crit != "target-port-guid") fail(l.n, "srp takes 'target-port-guid GUID[-GUID]'");
                r.destination = ulp_group(l.n, arg);
            } else if (ulp == "any") {
                if (crit == "service-id") {
                    r.service_ids = ranges(l.n, arg, ~0ull);
                } else if (crit == "pkey") {
                    for (auto p : expand<std::uint16_t>(l.n, arg, 0xffff, "P_Keys"))
                        r.pkeys.push_back(static_cast<std::uint16_t>(p & 0x7fff));
                } else if (crit == "target-port-guid") {
                    r.destination = ulp_group(l.n, arg);
                } else if (crit == "source-port-guid") {
                    r.source = ulp_group(l.n, arg);
                } else if (crit == "source-target-port-guid") {
                    // Source or target: two rules, one per side.
                    const std::string g = ulp_group(l.n, arg);
                    QosRule from = r;
                    from.source = g;
                    from.level = ulp_level(sl);
                    ulp_rules_.push_back(std::move(from));
                    r.destination = g;
                } else {
                    fail(l.n, "any takes service-id, pkey, target-port-guid, source-port-guid or "
                              "source-target-port-guid, got '" + crit + "'");
                }
            } else {
                fail(l.n, "unknown ULP '" + ulp + "' (default, sdp, rds, iser, srp, ipoib, any)");
            }
            r.level = ulp_level(sl);
            ulp_rules_.push_back(std::move(r));
        }
    }

    void finish()
    {
        for (const auto& [level, n] : pending_levels_)
            if (!level_line_.contains(level)) fail(n, "qos-level '" + level + "' is not defined");
        auto& q = out_.qos;
        q.enabled = true;
        // DEFAULT is referred to by name from rules: keep it as a level then.
        const bool default_named = std::any_of(q.rules.begin(), q.rules.end(), [](const QosRule& r) { return r.level == "DEFAULT"; });
        if (default_named && default_) q.levels.push_back(*default_);
        for (auto& l : ulp_level_list_) q.levels.push_back(l);
        for (auto& r : ulp_rules_) q.rules.push_back(std::move(r));
        // What no rule matches: DEFAULT (qos-levels first, as OpenSM), else qos-ulps' default.
        const std::optional<QosLevel>& last = default_ ? default_ : ulp_default_;
        const std::size_t at = default_ ? default_line_ : ulp_default_line_;
        if (!last) return;
        const bool neutral = last->sl == 0 && !last->mtu && !last->rate && !last->packet_life;
        if (neutral) {
            out_.notes.push_back(where(at) + ": the default (SL 0, no limits) is what ibsmd does where no rule "
                                             "matches: the path keeps the routing's SL");
            return;
        }
        if (!default_named || !default_) q.levels.push_back(*last);
        QosRule catch_all;
        catch_all.level = "DEFAULT";
        catch_all.line = static_cast<unsigned>(at);
        q.rules.push_back(std::move(catch_all));
        out_.notes.push_back(where(at) + ": the default level became the last rule, with no selector");
    }

    std::string name_;
    const std::map<std::string, std::uint16_t>& partitions_;
    std::vector<Line> lines_;
    std::size_t at_ = 0;
    OpensmQos out_;
    std::map<std::string, std::size_t> group_line_, level_line_;
    std::vector<std::pair<std::string, std::size_t>> pending_levels_;
    std::optional<QosLevel> default_, ulp_default_;
    std::size_t default_line_ = 0, ulp_default_line_ = 0;
    std::map<std::string, bool> ulp_levels_;
    std::vector<QosLevel> ulp_level_list_;
    std::vector<QosRule> ulp_rules_;
};

} // namespace

std::map<std::string, std::uint16_t> partition_names(std::istream& in)
{
    std::stringstream all;
    std::string line;
    while (std::getline(in, line)) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        all << line << '\n';
    }
    // Each definition starts the file or follows a ';': "Name=PKey".
    static const std::regex head(R"((^|;)\s*([^=:;,\s]+)\s*=\s*(0[xX][0-9a-fA-F]+|[0-9]+))");
    std::map<std::string, std::uint16_t> out;
    const std::string text = all.str();
    for (auto it = std::sregex_iterator(text.begin(), text.end(), head); it != std::sregex_iterator(); ++it)
        out.emplace((*it)[2].str(), static_cast<std::uint16_t>(std::strtoul((*it)[3].str().c_str(), nullptr, 0)));
    return out;
}

OpensmQos import_opensm_qos(std::istream& in, const std::string& name, const std::map<std::string, std::uint16_t>& partitions)
{
    return QosReader(name, partitions).run(in);
}

} // namespace ibsm::config
