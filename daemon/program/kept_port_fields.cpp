#include "daemon/program/kept_port_fields.h"

#include <array>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace ibsm::daemon {

namespace {

using Field = KeptPortFields::Field;

struct FieldInfo {
    Field field;
    const char* name;
    const char* whose; // whose value was not applied
    bool warn;
};
constexpr std::array<FieldInfo, 4> fields{{
    {Field::vl_high_limit, "VLHighLimit", "the policy's", true},
    {Field::subnet_timeout, "SubnetTimeout", "the SM's", false},
    {Field::master_sm_sl, "MasterSMSL", "the SM's", false},
    {Field::mkey_lease_period, "M_KeyLeasePeriod", "the SM's", false},
}};

unsigned get(const mad::PortInfo& p, Field f)
{
    switch (f) {
    case Field::vl_high_limit: return p.vl_high_limit;
    case Field::subnet_timeout: return p.subnet_timeout;
    case Field::master_sm_sl: return p.master_sm_sl;
    case Field::mkey_lease_period: return p.mkey_lease_period;
    }
    return 0;
}

void set(mad::PortInfo& p, Field f, unsigned v)
{
    switch (f) {
    case Field::vl_high_limit: p.vl_high_limit = static_cast<std::uint8_t>(v); break;
    case Field::subnet_timeout: p.subnet_timeout = static_cast<std::uint8_t>(v); break;
    case Field::master_sm_sl: p.master_sm_sl = static_cast<std::uint8_t>(v); break;
    case Field::mkey_lease_period: p.mkey_lease_period = static_cast<std::uint16_t>(v); break;
    }
}


} // namespace

void KeptPortFields::apply(Guid node, std::uint8_t port, const mad::PortInfo& current, mad::PortInfo& desired)
{
    if (kept_.empty()) return; // the usual case
    // A port's fields are neighbours in the map (the field is the key's
    // last part): one search per port, not one per field. ibsim keeps
    // SubnetTimeout on every port, 165 888 entries at 27 648 hosts.
    auto it = kept_.lower_bound({node, port, Field::vl_high_limit});
    while (it != kept_.end() && std::get<0>(it->first) == node && std::get<1>(it->first) == port) {
        const Field f = std::get<2>(it->first);
        if (it->second.asked != get(desired, f)) {
            it = kept_.erase(it); // a new value: try it once more
            ++revision_;
            continue;
        }
        if (get(current, f) == it->second.held) set(desired, f, it->second.held);
        ++it;
    }
}

std::vector<KeptPortFields::Message> KeptPortFields::note(Guid node, std::uint8_t port, const mad::PortInfo& got,
                                                          mad::PortInfo& desired)
{
    std::vector<Message> out;
    mad::PortInfo rest = mad::without_commands(got);
    for (const auto& fi : fields) set(rest, fi.field, get(desired, fi.field));
    if (rest != desired) return out; // something else differs: not a kept field
    for (const auto& fi : fields) {
        const unsigned asked = get(desired, fi.field), held = get(got, fi.field);
        if (asked == held) continue;
        auto [it, added] = kept_.try_emplace({node, port, fi.field}, Kept{asked, held});
        if (added || it->second.asked != asked || it->second.held != held) ++revision_;
        it->second = Kept{asked, held};
        if (added)
            out.push_back({std::string("keeps ") + fi.name + " " + std::to_string(held) + ", " + fi.whose + " " +
                               std::to_string(asked) + " is not applied",
                           fi.warn});
        set(desired, fi.field, held);
    }
    return out;
}

std::optional<unsigned> KeptPortFields::kept(Guid node, std::uint8_t port, Field field) const
{
    auto it = kept_.find({node, port, field});
    if (it == kept_.end()) return std::nullopt;
    return it->second.held;
}

std::string KeptPortFields::text() const
{
    std::string out;
    for (const auto& [key, k] : kept_) {
        const auto& [node, port, field] = key;
        const char* name = "";
        for (const auto& fi : fields)
            if (fi.field == field) name = fi.name;
        char line[128];
        std::snprintf(line, sizeof line, "0x%016" PRIx64 " %u %s %u %u\n", node.value(), unsigned{port}, name,
                      k.asked, k.held);
        out += line;
    }
    return out;
}

KeptPortFields KeptPortFields::parse(const std::string& text)
{
    KeptPortFields out;
    std::istringstream in(text);
    std::string line;
    for (unsigned n = 1; std::getline(in, line); ++n) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream words(line);
        std::string guid, name;
        unsigned port = 0, asked = 0, held = 0;
        if (!(words >> guid >> port >> name >> asked >> held) || port > 255 || guid.rfind("0x", 0) != 0)
            throw std::invalid_argument(std::to_string(n) + ": expected '0xGUID PORT FIELD ASKED HELD'");
        std::uint64_t g = 0;
        try {
            std::size_t used = 0;
            g = std::stoull(guid, &used, 16);
            if (used != guid.size()) throw std::invalid_argument(guid);
        } catch (const std::exception&) {
            throw std::invalid_argument(std::to_string(n) + ": '" + guid + "' is not a GUID");
        }
        const FieldInfo* fi = nullptr;
        for (const auto& f : fields)
            if (name == f.name) fi = &f;
        if (!fi) throw std::invalid_argument(std::to_string(n) + ": unknown field '" + name + "'");
        out.kept_[{Guid(g), static_cast<std::uint8_t>(port), fi->field}] = Kept{asked, held};
    }
    return out;
}

} // namespace ibsm::daemon
