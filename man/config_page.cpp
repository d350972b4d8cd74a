#include "man/config_page.h"

#include "cli/version.h"
#include "config/config.h"
#include "man/roff.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <vector>

namespace ibsm::man {
namespace {

std::string trim(std::string_view s)
{
    auto b = s.find_first_not_of(' ');
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(' ');
    return std::string(s.substr(b, e - b + 1));
}

// "  # text" -> "text" (and "  #   - x" -> "  - x": deeper indentation kept).
std::string comment_text(std::string_view line)
{
    auto hash = line.find('#');
    std::string_view rest = line.substr(hash + 1);
    if (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    return std::string(rest);
}

bool is_comment(std::string_view line)
{
    auto p = line.find_first_not_of(' ');
    return p != std::string_view::npos && line[p] == '#';
}

// "key: value  # note" -> key, value (note dropped); nullopt-like empty key otherwise.
std::pair<std::string, std::string> key_value(std::string_view line)
{
    std::string t = trim(line);
    auto colon = t.find(':');
    if (colon == std::string::npos) return {};
    std::string key = t.substr(0, colon);
    if (key.empty() || key.find(' ') != std::string::npos) return {};
    std::string value = trim(std::string_view(t).substr(colon + 1));
    if (auto hash = value.find(" #"); hash != std::string::npos) value = trim(value.substr(0, hash));
    return {key, value};
}

} // namespace

std::string config_page(std::string_view sample_text, std::string_view sample_name)
{
    if (!(config::parse_config(sample_text, sample_name) == config::Config{}))
        throw SampleError(std::string(sample_name) + ": the values shown are not the built-in defaults "
                                                     "(config::Config{}); the page would document wrong defaults");

    std::vector<std::string> lines;
    std::istringstream in{std::string(sample_text)};
    for (std::string line; std::getline(in, line);) lines.push_back(line);

    std::string description, body;
    std::set<std::string> documented;
    std::size_t i = 0;
    // The opening comment block, minus its first line (the file's name).
    for (; i < lines.size() && is_comment(lines[i]); ++i)
        if (i > 0) description += comment_text(lines[i]) + "\n";

    const auto schema = config::schema_keys();
    const std::set<std::string> schema_set(schema.begin(), schema.end());
    std::string section;
    std::string pending;  // comment lines not yet attached
    std::string examples; // entries of commented-out keys ("# port_guid: 0x...")
    auto flush_note = [&] {
        if (!pending.empty()) body += ".PP\n" + paragraphs(pending);
        body += examples;
        pending.clear();
        examples.clear();
    };
    for (; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (trim(line).empty()) {
            flush_note();
            continue;
        }
        if (is_comment(line)) {
            std::string text = comment_text(line);
            // A commented-out key of the schema: documented as not set by default.
            auto [k, v] = key_value(text);
            std::string dotted = section.empty() || line[0] != ' ' ? k : section + "." + k;
            // ("# partitions:" opening a commented example block is text, not a key.)
            if (!k.empty() && !trim(v).empty() && text.rfind(' ', 0) != 0 && schema_set.count(dotted)) {
                documented.insert(dotted);
                std::string note;
                if (auto hash = text.find(" #"); hash != std::string::npos) note = trim(comment_text(text.substr(hash)));
                examples += ".TP\n\\fB" + escape(dotted) + "\\fR (not set by default; e.g. " + escape(v) + ")\n" +
                            (note.empty() ? std::string() : escape(note) + "\n");
                continue;
            }
            pending += text + "\n";
            continue;
        }
        auto [key, value] = key_value(line);
        if (key.empty()) throw SampleError(std::string(sample_name) + ":" + std::to_string(i + 1) + ": not a key");
        if (line[0] != ' ') section.clear();
        if (line[0] != ' ' && value.empty()) {
            flush_note();
            section = key;
            body += ".SS " + escape(key) + "\n";
            continue;
        }
        std::string dotted = section.empty() ? key : section + "." + key;
        documented.insert(dotted);
        body += examples;
        examples.clear();
        body += ".TP\n\\fB" + escape(dotted) + "\\fR (default: " + escape(value) + ")\n" + paragraphs(pending);
        pending.clear();
    }
    flush_note();

    std::string missing;
    for (const auto& k : schema)
        if (!documented.count(k)) missing += (missing.empty() ? "" : ", ") + k;
    if (!missing.empty())
        throw SampleError(std::string(sample_name) + " does not document key(s) " + missing +
                          " of the schema (config/parse.cpp); add them (a commented-out example will do)");

    std::string out;
    out += ".\\\" Generated by man/gen_docs from " + escape(sample_name) + "; do not edit.\n";
    out += ".TH IBSMD.YAML 5 \"\" \"ibsmd " + std::string(cli::project_version) + "\" \"File Formats\"\n";
    out += ".nh\n.ad l\n"; // no hyphenation, ragged right: flags stay whole and searchable
    out += ".SH NAME\nibsmd.yaml \\- configuration of ibsmd, the InfiniBand subnet manager\n";
    out += ".SH SYNOPSIS\n/etc/ibsmd/ibsmd.yaml\n";
    out += ".SH DESCRIPTION\n" + paragraphs(description);
    out += ".PP\nThe keys below are shown as dotted names (\\fBrouting.lmc\\fR is \\fBlmc\\fR in the "
           "\\fBrouting\\fR section) with their built-in defaults. "
           "\\fBibsmd \\-\\-print\\-config\\fR prints the effective configuration in this format.\n";
    out += ".SH KEYS\n" + body;
    out += ".SH SEE ALSO\n.BR ibsmd (8),\n.BR ibsm (1)\n";
    return out;
}

} // namespace ibsm::man
