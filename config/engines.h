// The routing engine names a configuration may use. This is the ONE place in
// config/ that lists them. routing/registry.cpp is the runtime authority (it
// maps names to engines); config/ must not depend on routing/, so it keeps its
// own list and a unit test checks that every engine the registry offers is
// known here.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::config {

inline constexpr std::array<std::string_view, 11> known_engines{
    "ftree", "sftree", "minhop", "updn", "sssp", "dfsssp", "nue", "dfsssp-or-nue", "pathsel", "shortest-widest",
    "updn-paths",
};

// Appended to the chain unless routing.no_fallback is set: MinHop routes any
// connected fabric, so a chain ending in it always yields tables.
inline constexpr std::string_view fallback_engine = "minhop";

bool is_known_engine(std::string_view name);

// "ftree, sftree, minhop, updn, sssp, dfsssp" for error messages.
std::string known_engines_text();

// "ftree, minhop" or "ftree,minhop" -> {"ftree", "minhop"}; blanks around
// names are dropped. Empty names (",," or a trailing comma) come back as ""
// so the caller can report them; names are not validated here.
std::vector<std::string> split_engine_list(std::string_view text);

// What is wrong with an engine chain, and at which name (index into the
// chain; 0 when the chain is empty).
struct ChainProblem {
    std::size_t index;
    std::string message;
};

// A chain is valid when it is non-empty and every name is known and given once.
std::optional<ChainProblem> check_engine_chain(std::span<const std::string> names);

} // namespace ibsm::config
