// Just enough roff (man(7) macros) to write ibsmd's manual pages: escaping,
// and text that keeps its indented lines (tables, examples) as they are.
#pragma once

#include <string>
#include <string_view>

namespace ibsm::man {

// Text safe inside a roff line: backslashes and hyphens escaped (\- is the
// minus an option starts with), a leading '.' or '\'' neutralised.
std::string escape(std::string_view text);

// Help-style text as roff: runs of plain lines become one filled paragraph,
// indented lines are kept verbatim (.nf/.fi), blank lines start a new
// paragraph (.PP).
std::string paragraphs(std::string_view text);

} // namespace ibsm::man
