#include "man/roff.h"

#include <sstream>
#include <vector>

namespace ibsm::man {

std::string escape(std::string_view text)
{
    std::string out;
    for (char c : text) {
        if (c == '\\')
            out += "\\e";
        else if (c == '-')
            out += "\\-";
        else
            out += c;
    }
    if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
    return out;
}

std::string paragraphs(std::string_view text)
{
    std::vector<std::string> lines;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::string out;
    bool verbatim = false;
    bool in_paragraph = false;
    for (const auto& line : lines) {
        const bool blank = line.find_first_not_of(' ') == std::string::npos;
        const bool indented = !blank && line[0] == ' ';
        if (blank) {
            if (verbatim) out += ".fi\n";
            verbatim = false;
            if (in_paragraph) out += ".PP\n";
            in_paragraph = false;
            continue;
        }
        if (indented && !verbatim) {
            out += ".nf\n";
            verbatim = true;
        } else if (!indented && verbatim) {
            out += ".fi\n";
            verbatim = false;
        }
        out += escape(line) + "\n";
        in_paragraph = true;
    }
    if (verbatim) out += ".fi\n";
    return out;
}

} // namespace ibsm::man
