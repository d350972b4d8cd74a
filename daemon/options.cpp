#include "daemon/options.h"

#include <charconv>

namespace ibsm::daemon {
namespace {

unsigned parse_unsigned(const std::string& flag, const std::string& value, unsigned min, unsigned max)
{
    unsigned v = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc{} || p != value.data() + value.size() || v < min || v > max)
        throw UsageError(flag + ": expected a number in " + std::to_string(min) + ".." + std::to_string(max) +
                         ", got '" + value + "'");
    return v;
}

} // namespace

const char* usage()
{
    return "usage: ibsmd [options]\n"
           "  --discover-only        run one heavy sweep, print what was found, exit\n"
           "  --dump-dir DIR         write DIR/topology.net (ibnetdiscover format) after the sweep\n"
           "  --ca NAME              CA to run on (default: first one found)\n"
           "  --port N               port of that CA (default: first usable)\n"
           "  --smp-window N         SMPs kept outstanding (default 16)\n"
           "  --smp-timeout-ms N     per-SMP timeout (default 100)\n"
           "  --smp-retries N        retries after a timeout (default 3)\n"
           "  --log-level L          trace|debug|info|warn|error (default info)\n"
           "  -h, --help             this text\n"
           "Against ibsim, run with LD_PRELOAD=<path of libumad2sim.so> and IBSIM_SOCKNAME set.\n";
}

Options parse_options(const std::vector<std::string>& args)
{
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError(a + ": missing value");
            return args[++i];
        };
        if (a == "-h" || a == "--help") o.help = true;
        else if (a == "--discover-only") o.discover_only = true;
        else if (a == "--dump-dir") o.dump_dir = value();
        else if (a == "--ca") o.ca_name = value();
        else if (a == "--port") o.port_num = static_cast<int>(parse_unsigned(a, value(), 1, 254));
        else if (a == "--smp-window") o.window = parse_unsigned(a, value(), 1, 4096);
        else if (a == "--smp-timeout-ms") o.timeout = std::chrono::milliseconds(parse_unsigned(a, value(), 1, 60000));
        else if (a == "--smp-retries") o.retries = parse_unsigned(a, value(), 0, 100);
        else if (a == "--log-level") {
            o.log_level = value();
            if (o.log_level != "trace" && o.log_level != "debug" && o.log_level != "info" && o.log_level != "warn" &&
                o.log_level != "error")
                throw UsageError("--log-level: unknown level '" + o.log_level + "'");
        } else
            throw UsageError("unknown option '" + a + "'");
    }
    return o;
}

} // namespace ibsm::daemon
