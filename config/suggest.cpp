// Why: operators mistype keys; naming the key they probably meant saves a
// round trip to the documentation.
// Data structures: three rolling rows of the dynamic-programming table.
// Algorithm: optimal string alignment distance (Levenshtein plus adjacent
// transposition), O(|a|*|b|) time; keys are short.
#include "config/suggest.h"

#include <algorithm>
#include <vector>

namespace ibsm::config {

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    const std::size_t n = b.size();
    std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
    for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= n; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        before.swap(prev);
        prev.swap(cur);
    }
    return prev[n];
}

std::optional<std::string> closest(std::string_view word, std::span<const std::string_view> candidates,
                                   std::size_t max_distance)
{
    std::optional<std::string> best;
    std::size_t best_distance = max_distance + 1;
    for (auto c : candidates) {
        const std::size_t d = edit_distance(word, c);
        if (d < best_distance) {
            best_distance = d;
            best = std::string(c);
        }
    }
    return best;
}

} // namespace ibsm::config
