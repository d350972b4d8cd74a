// infiniband-diags' node map format (see node_map_file.h).
#include "topology/node_map_file.h"

#include <cctype>
#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <unordered_set>

namespace ibsm::topology {

namespace {

bool blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// One line cut into its GUID and the text after it; false for a line that
// holds no entry. Throws for a line that does not start with a GUID.
bool split_line(const std::string& line, const std::string& name, std::size_t n, Guid& guid, std::string& rest)
{
    std::size_t i = 0;
    while (i < line.size() && blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') return false;
    const char* start = line.c_str() + i;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(start, &end, 0);
    const bool ends_well = end != start && (*end == '\0' || *end == '#' || blank(*end));
    if (!ends_well || errno == ERANGE || v == 0 || *start == '-' || *start == '+') {
        std::string shown = line;
        if (!shown.empty() && shown.back() == '\r') shown.pop_back();
        throw std::runtime_error(name + ":" + std::to_string(n) +
                                 ": expected a GUID (0x... hex or decimal, not 0) at the start of the line, got '" +
                                 shown + "'");
    }
    guid = Guid(v);
    rest.assign(end);
    return true;
}

} // namespace

std::vector<Guid> parse_guid_file(std::istream& in, const std::string& name)
{
    std::vector<Guid> out;
    std::unordered_set<std::uint64_t> seen;
    std::string line, rest;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        Guid g;
        if (!split_line(line, name, n, g, rest)) continue;
        if (seen.insert(g.value()).second) out.push_back(g);
    }
    return out;
}

NodeNameMap parse_node_name_map(std::istream& in, const std::string& name)
{
    NodeNameMap out;
    std::string line, rest;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        Guid g;
        if (!split_line(line, name, n, g, rest)) continue;
        // Blanks, then strtok(rest, "\"#"): skip quotes and hashes, take up
        // to the next one. (So "0x1 # text" names the node "text" in
        // infiniband-diags too.)
        std::size_t b = 0;
        while (b < rest.size() && blank(rest[b])) ++b;
        while (b < rest.size() && (rest[b] == '"' || rest[b] == '#')) ++b;
        const std::size_t e = rest.find_first_of("\"#", b);
        std::string text = rest.substr(b, e == std::string::npos ? std::string::npos : e - b);
        while (!text.empty() && blank(text.back())) text.pop_back();
        text.erase(0, std::min(text.size(), text.find_first_not_of(" \t")));
        if (text.empty()) continue;
        out.add(g, std::move(text));
    }
    return out;
}

void apply_node_names(Fabric& fabric, const NodeNameMap& names)
{
    for (NodeId id : fabric.node_ids()) {
        Node& n = fabric.node(id);
        const std::string* mapped = names.find(n.guid);
        n.name = mapped ? *mapped : std::string();
    }
}

} // namespace ibsm::topology
