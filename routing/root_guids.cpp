#include "routing/root_guids.h"

#include <sstream>
#include <stdexcept>

namespace ibsm::routing {

std::vector<Guid> parse_root_guids(std::istream& in, const std::string& name)
{
    std::vector<Guid> roots;
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        std::string text = line;
        if (auto hash = text.find('#'); hash != std::string::npos) text.resize(hash);
        std::istringstream words(text);
        std::string word, extra;
        if (!(words >> word)) continue;
        std::size_t used = 0;
        unsigned long long v = 0;
        try {
            v = std::stoull(word, &used, 0);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != word.size() || v == 0 || (words >> extra))
            throw std::runtime_error(name + ":" + std::to_string(n) + ": expected one node GUID, got '" + line + "'");
        roots.emplace_back(v);
    }
    return roots;
}

} // namespace ibsm::routing
