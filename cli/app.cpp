#include "cli/app.h"

#include "cli/version.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <set>
#include <iostream>

namespace ibsm::cli {
namespace {

// The subcommands selected on the command line, outermost first.
std::vector<const CLI::App*> selected_path(const CLI::App& app)
{
    std::vector<const CLI::App*> path{&app};
    for (const CLI::App* a = &app;;) {
        auto subs = a->get_subcommands();
        if (subs.empty()) break;
        a = subs.front();
        path.push_back(a);
    }
    return path;
}

std::string command_name(const std::vector<const CLI::App*>& path)
{
    std::string name;
    for (const auto* a : path) name += (name.empty() ? "" : " ") + a->get_name();
    return name;
}

// CLI11's "A subcommand is required" does not say which; name them.
std::string message(const CLI::ParseError& e, const CLI::App& innermost)
{
    std::string what = e.what();
    if (dynamic_cast<const CLI::RequiredError*>(&e) && what.find("subcommand") != std::string::npos) {
        std::string names;
        for (const auto* s : innermost.get_subcommands({}))
            names += (names.empty() ? "" : ", ") + s->get_name();
        what = "expected one of: " + names;
    }
    std::replace(what.begin(), what.end(), '\n', ' ');
    return what;
}

// Words of `text` wrapped at `width` columns; paragraphs ("\n") kept.
std::string wrap(const std::string& text, std::size_t width)
{
    std::string out;
    std::size_t column = 0;
    std::string word;
    auto flush_word = [&] {
        if (word.empty()) return;
        if (column > 0 && column + 1 + word.size() > width) {
            out += '\n';
            column = 0;
        } else if (column > 0) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        word.clear();
    };
    for (char c : text) {
        if (c == ' ') {
            flush_word();
        } else if (c == '\n') {
            flush_word();
            out += '\n';
            column = 0;
        } else {
            word += c;
        }
    }
    flush_word();
    return out;
}

// Sorted by name: a std::set of pointers has no stable order.
std::string names(const std::set<CLI::Option*>& options)
{
    std::vector<std::string> sorted;
    for (const auto* o : options) sorted.push_back(o->get_name());
    std::sort(sorted.begin(), sorted.end());
    std::string out;
    for (const auto& n : sorted) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// Option lines as "--lmc N   text ... Not with: --discover-only." with the
// text wrapped, instead of CLI11's type and validator names.
class Formatter : public CLI::Formatter {
public:
    std::string make_option_opts(const CLI::Option* opt) const override
    {
        std::string out;
        if (opt->get_type_size() != 0 && !opt->get_type_name().empty()) out += " " + opt->get_type_name();
        if (opt->get_required()) out += " (required)";
        return out;
    }
    std::string make_option_desc(const CLI::Option* opt) const override
    {
        return wrap(option_text(*opt), 100 - get_column_width());
    }
};

} // namespace

std::string option_text(const CLI::Option& opt)
{
    std::string text = opt.get_description();
    const bool more = !opt.get_needs().empty() || !opt.get_excludes().empty();
    if (more && !text.empty() && text.back() != '.') text += '.';
    if (!opt.get_needs().empty()) text += " Needs " + names(opt.get_needs()) + ".";
    if (!opt.get_excludes().empty()) text += " Not with " + names(opt.get_excludes()) + ".";
    return text;
}

std::string version_text(std::string_view program)
{
    std::string v = std::string(program) + " " + project_version;
    if (std::string_view(vcs_describe) != "unknown") v += std::string(" (git ") + vcs_describe + ")";
    return v;
}

void setup(CLI::App& app, std::string_view program)
{
    app.name(std::string(program));
    app.set_help_flag("-h,--help", "print this help and exit");
    app.set_version_flag("--version", version_text(program), "print the version and exit");
    app.formatter(std::make_shared<Formatter>());
    app.get_formatter()->column_width(28);
}

std::string exit_status_text(const std::vector<ExitStatus>& table)
{
    std::string out = "Exit status:\n";
    for (const auto& row : table) {
        std::string code = std::to_string(row.code);
        out += "  " + code + std::string(5 - std::min<std::size_t>(code.size(), 4), ' ') + row.meaning + "\n";
    }
    return out;
}

bool parse_or_throw(CLI::App& app, std::vector<std::string> args)
{
    std::reverse(args.begin(), args.end()); // CLI11 consumes the vector from its end
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        return true;
    } catch (const CLI::CallForVersion&) {
        return true;
    }
    return false;
}

std::optional<int> parse(CLI::App& app, std::vector<std::string> args)
{
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
        return std::nullopt;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e, std::cout, std::cerr);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e, std::cout, std::cerr);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e, std::cout, std::cerr);
    } catch (const CLI::ParseError& e) {
        auto path = selected_path(app);
        std::cerr << command_name(path) << ": " << message(e, *path.back()) << " (see: " << command_name(path)
                  << " --help)\n";
        return exit_usage;
    }
}

std::optional<int> parse(CLI::App& app, int argc, const char* const* argv)
{
    return parse(app, std::vector<std::string>(argv + std::min(argc, 1), argv + argc));
}

} // namespace ibsm::cli
