// Each kind of error, with the exact file:line and dotted key in the message.
// Line numbers are 1-based and counted by hand from the text of each case.
#include "config/config.h"

#include "test_helpers.h"

using namespace ibsm::config;
using namespace config_test;

namespace {
const std::string known = "(known: ftree, sftree, minhop, updn, sssp, dfsssp, nue, dfsssp-or-nue, pathsel, shortest-widest, updn-paths)";
}

TEST_CASE("unknown engine in a file names file, line and key", "[config][errors]")
{
    const std::string path = fixture("bad_engine.yaml");
    CHECK(error_of([&] { (void)load_config_file(path); }) ==
          path + ":12: key 'routing.engines': unknown engine 'ftre' " + known);
}

TEST_CASE("engine chain errors", "[config][errors]")
{
    CHECK(parse_error("routing:\n  engines: ftree, upd\n") ==
          "t.yaml:2: key 'routing.engines': unknown engine 'upd' " + known);
    CHECK(parse_error("routing:\n  engines:\n    - ftree\n\n    - bogus\n") ==
          "t.yaml:5: key 'routing.engines': unknown engine 'bogus' " + known);
    CHECK(parse_error("routing:\n  engines: []\n") ==
          "t.yaml:2: key 'routing.engines': the engine chain is empty " + known);
    CHECK(parse_error("routing:\n  engines: [ftree,\n    ftree]\n") ==
          "t.yaml:3: key 'routing.engines': engine 'ftree' appears twice in the chain");
    CHECK(parse_error("routing:\n  engines: 'ftree,,minhop'\n") ==
          "t.yaml:2: key 'routing.engines': empty engine name in the chain");
    CHECK(parse_error("routing:\n  engines: [[ftree]]\n") ==
          "t.yaml:2: key 'routing.engines': expected an engine name, got a list");
    CHECK(parse_error("routing:\n  engines:\n") ==
          "t.yaml:2: key 'routing.engines': expected a list of engine names or a comma-separated string, got nothing");
    CHECK(parse_error("routing:\n  engines: {a: 1}\n") ==
          "t.yaml:2: key 'routing.engines': expected a list of engine names or a comma-separated string, got a mapping");
}

TEST_CASE("unknown keys, with a suggestion when one is close", "[config][errors]")
{
    CHECK(parse_error("smp:\n  windw: 8\n") == "t.yaml:2: key 'smp.windw': unknown key (did you mean 'smp.window'?)");
    CHECK(parse_error("routing:\n  egnines: [ftree]\n") ==
          "t.yaml:2: key 'routing.egnines': unknown key (did you mean 'routing.engines'?)");
    CHECK(parse_error("# top\nrouting: {}\nrooting:\n  lmc: 1\n") ==
          "t.yaml:3: key 'rooting': unknown key (did you mean 'routing'?)");
    CHECK(parse_error("sn:\n  priority: 1\n") == "t.yaml:1: key 'sn': unknown key (did you mean 'sm'?)");
    CHECK(parse_error("smp:\n  lmc: 1\n") == "t.yaml:2: key 'smp.lmc': unknown key (did you mean 'routing.lmc'?)");
    CHECK(parse_error("statedir: /tmp\n") == "t.yaml:1: key 'statedir': unknown key (did you mean 'state_dir'?)");
    // Right name, wrong section.
    CHECK(parse_error("sm:\n  priority: 2\nlmc: 1\n") == "t.yaml:3: key 'lmc': unknown key (did you mean 'routing.lmc'?)");
    CHECK(parse_error("routing:\n  window: 4\n") ==
          "t.yaml:2: key 'routing.window': unknown key (did you mean 'smp.window'?)");
    // Nothing close: list what is known.
    const std::string path = fixture("unknown_key.yaml");
    CHECK(error_of([&] { (void)load_config_file(path); }) ==
          path + ":6: key 'smp.timeout': unknown key (known keys under 'smp': window, timeout_ms, retries)");
    CHECK(parse_error("\n\nfoo: 1\n") ==
          "t.yaml:3: key 'foo': unknown key (known keys: routing, smp, sm, state_dir, log, sweep, dump, perf, partitions, partitions_file, part_enforce, allow_both_pkeys, control, health, qos, security, node_name_map, metrics)");
    CHECK(parse_error("routing:\n  ? [a]\n  : 1\n") == "t.yaml:2: key 'routing': keys must be plain names, got a list");
}

TEST_CASE("duplicate keys", "[config][errors]")
{
    const std::string path = fixture("duplicate_key.yaml");
    CHECK(error_of([&] { (void)load_config_file(path); }) ==
          path + ":4: key 'sm.priority': duplicate key (first given on line 2)");
    CHECK(parse_error("log:\n  level: info\nsweep: {}\nlog:\n  file: /x\n") ==
          "t.yaml:4: key 'log': duplicate key (first given on line 1)");
    CHECK(parse_error("smp: {window: 1, window: 2}\n") ==
          "t.yaml:1: key 'smp.window': duplicate key (first given on line 1)");
}

TEST_CASE("wrong types and ranges name the allowed values", "[config][errors]")
{
    CHECK(parse_error("routing:\n  lmc: 8\n") == "t.yaml:2: key 'routing.lmc': expected an integer in 0..7, got '8'");
    CHECK(parse_error("routing:\n  lmc: -1\n") == "t.yaml:2: key 'routing.lmc': expected an integer in 0..7, got '-1'");
    CHECK(parse_error("routing:\n  lmc: 1.5\n") ==
          "t.yaml:2: key 'routing.lmc': expected an integer in 0..7, got '1.5'");
    CHECK(parse_error("routing:\n  lmc: [1]\n") ==
          "t.yaml:2: key 'routing.lmc': expected an integer in 0..7, got a list");
    CHECK(parse_error("routing:\n  lmc: \"3\"\n") ==
          "t.yaml:2: key 'routing.lmc': expected an integer in 0..7, got the quoted string \"3\" (write it without quotes)");
    CHECK(parse_error("log:\n  max_size_mb: 1048577\n") ==
          "t.yaml:2: key 'log.max_size_mb': expected an integer in 0..1048576, got '1048577'");
    CHECK(parse_error("routing:\n  max_vls: 0\n") ==
          "t.yaml:2: key 'routing.max_vls': expected an integer in 1..15, got '0'");
    CHECK(parse_error("routing:\n  switch_sl2vl: sometimes\n") ==
          "t.yaml:2: key 'routing.switch_sl2vl': expected auto or always, got 'sometimes'");
    CHECK(parse_error("routing:\n  max_vls: 2\n  vl_tables: never\n") ==
          "t.yaml:3: key 'routing.vl_tables': expected auto or always, got 'never'");
    CHECK(parse_error("smp:\n  window: 4097\n") ==
          "t.yaml:2: key 'smp.window': expected an integer in 1..4096, got '4097'");
    CHECK(parse_error("smp:\n  timeout_ms: 0\n") ==
          "t.yaml:2: key 'smp.timeout_ms': expected an integer in 1..60000, got '0'");
    CHECK(parse_error("smp:\n  retries: 101\n") ==
          "t.yaml:2: key 'smp.retries': expected an integer in 0..100, got '101'");
    CHECK(parse_error("sm:\n  priority: 16\n") ==
          "t.yaml:2: key 'sm.priority': expected an integer in 0..15, got '16'");
    CHECK(parse_error("sm:\n  priority: 2\n  polling_interval_s: 0\n") ==
          "t.yaml:3: key 'sm.polling_interval_s': expected an integer in 1..3600, got '0'");
    CHECK(parse_error("sm:\n  polling_retries: 101\n") ==
          "t.yaml:2: key 'sm.polling_retries': expected an integer in 0..100, got '101'");
    CHECK(parse_error("sm:\n  sm_key: secret\n") ==
          "t.yaml:2: key 'sm.sm_key': expected an SM_Key (64 bits) (0x followed by up to 16 hex digits, or a decimal "
          "integer), got 'secret'");
    CHECK(parse_error("sm:\n  port: 0\n") == "t.yaml:2: key 'sm.port': expected an integer in 1..254, got '0'");
    CHECK(parse_error("sm:\n  port: 255\n") == "t.yaml:2: key 'sm.port': expected an integer in 1..254, got '255'");
    CHECK(parse_error("sm:\n  subnet_timeout: 32\n") ==
          "t.yaml:2: key 'sm.subnet_timeout': expected an integer in 0..31, got '32'");
    CHECK(parse_error("sm:\n  packet_life_time: 0x20\n") ==
          "t.yaml:2: key 'sm.packet_life_time': expected an integer in 0..31, got '0x20'");
    CHECK(parse_error("perf:\n  enabled: true\n  interval_s: 0\n") ==
          "t.yaml:3: key 'perf.interval_s': expected an integer in 1..86400, got '0'");
    CHECK(parse_error("perf:\n  window: 0\n") == "t.yaml:2: key 'perf.window': expected an integer in 1..256, got '0'");
    CHECK(parse_error("perf:\n  enabled: maybe\n").starts_with("t.yaml:2: key 'perf.enabled': "));
    CHECK(parse_error("sweep:\n  interval_s: 86401\n") ==
          "t.yaml:2: key 'sweep.interval_s': expected an integer in 0..86400, got '86401'");
    CHECK(parse_error("sweep:\n  retry_interval_s: 0\n") ==
          "t.yaml:2: key 'sweep.retry_interval_s': expected an integer in 1..86400, got '0'");
    CHECK(parse_error("sweep:\n  retry_interval_s: 86401\n") ==
          "t.yaml:2: key 'sweep.retry_interval_s': expected an integer in 1..86400, got '86401'");
    CHECK(parse_error("sweep:\n  debounce_ms: 10001\n") ==
          "t.yaml:2: key 'sweep.debounce_ms': expected an integer in 0..10000, got '10001'");
    CHECK(parse_error("sweep:\n  debounce_max_ms: 60001\n") ==
          "t.yaml:2: key 'sweep.debounce_max_ms': expected an integer in 0..60000, got '60001'");
    CHECK(parse_error("sweep:\n  debounce_ms: -5\n") ==
          "t.yaml:2: key 'sweep.debounce_ms': expected an integer in 0..10000, got '-5'");
    CHECK(parse_error("dump:\n  lfts: no\n") == "t.yaml:2: key 'dump.lfts': expected true or false, got 'no'");
    CHECK(parse_error("dump:\n  summary: 1\n") == "t.yaml:2: key 'dump.summary': expected true or false, got '1'");
    CHECK(parse_error("dump: true\n") == "t.yaml:1: key 'dump': expected a mapping of settings, got 'true'");
    CHECK(parse_error("smp:\n  window: 99999999999999999999999\n") ==
          "t.yaml:2: key 'smp.window': expected an integer in 1..4096, got '99999999999999999999999'");
    CHECK(parse_error("routing:\n  no_fallback: yes\n") ==
          "t.yaml:2: key 'routing.no_fallback': expected true or false, got 'yes'");
    CHECK(parse_error("routing:\n  no_fallback: 'true'\n") ==
          "t.yaml:2: key 'routing.no_fallback': expected true or false, got the quoted string \"true\"");
    CHECK(parse_error("log:\n  level: verbose\n") ==
          "t.yaml:2: key 'log.level': unknown log level 'verbose' (known: trace|debug|info|warn|error|critical|off)");
    CHECK(parse_error("log:\n  file: [a, b]\n") == "t.yaml:2: key 'log.file': expected a path, got a list");
    CHECK(parse_error("state_dir: \"\"\n") == "t.yaml:1: key 'state_dir': expected a path, got the quoted string \"\"");
    CHECK(parse_error("sm:\n  ca: {x: 1}\n") ==
          "t.yaml:2: key 'sm.ca': expected a CA name (as in ibstat, e.g. mlx5_0), got a mapping");
}

TEST_CASE("the old sweep.light_interval_s says what replaced it", "[config][errors]")
{
    const std::string renamed = "renamed to 'sweep.retry_interval_s' (the delay before trying again while the subnet "
                                "is not up); 'sweep.interval_s' is the light sweep period";
    CHECK(parse_error("sweep:\n  light_interval_s: 10\n") == "t.yaml:2: key 'sweep.light_interval_s': " + renamed);
    CHECK(parse_error("log: {level: info}\nsweep:\n  interval_s: 5\n  light_interval_s: 30\n") ==
          "t.yaml:4: key 'sweep.light_interval_s': " + renamed);
    // Only the old dotted key: elsewhere it is just unknown.
    CHECK(parse_error("smp:\n  light_interval_s: 10\n") ==
          "t.yaml:2: key 'smp.light_interval_s': unknown key (known keys under 'smp': window, timeout_ms, retries)");
}

TEST_CASE("the debounce window cannot exceed its cap", "[config][errors]")
{
    // Both given: the later key is the error and names the earlier one's line.
    CHECK(parse_error("sweep:\n  debounce_ms: 800\n  interval_s: 5\n  debounce_max_ms: 500\n") ==
          "t.yaml:4: key 'sweep.debounce_max_ms': 500 ms is less than 'sweep.debounce_ms' (800 ms, line 2); the cap "
          "must be at least the debounce window");
    CHECK(parse_error("sweep:\n  debounce_max_ms: 500\n  debounce_ms: 800\n") ==
          "t.yaml:3: key 'sweep.debounce_ms': 800 ms is more than 'sweep.debounce_max_ms' (500 ms, line 2); the "
          "debounce window cannot exceed its cap");
    // One given: the other is its default.
    CHECK(parse_error("sweep:\n  debounce_ms: 2000\n") ==
          "t.yaml:2: key 'sweep.debounce_ms': 2000 ms is more than 'sweep.debounce_max_ms' (1000 ms, the default); "
          "the debounce window cannot exceed its cap");
    CHECK(parse_error("\nsweep: {debounce_max_ms: 10}\n") ==
          "t.yaml:2: key 'sweep.debounce_max_ms': 10 ms is less than 'sweep.debounce_ms' (20 ms, the default); the "
          "cap must be at least the debounce window");
}

TEST_CASE("a missing value points at its key, not at the next line", "[config][errors]")
{
    // yaml-cpp marks the null at the following token (line 4 here).
    CHECK(parse_error("smp:\n  window: 8\n  retries:\n\nsm: {}\n") ==
          "t.yaml:3: key 'smp.retries': expected an integer in 0..100, got nothing");
    CHECK(parse_error("state_dir:\n") == "t.yaml:1: key 'state_dir': expected a path, got nothing");
}

TEST_CASE("an alias points at the key using it, not at its anchor", "[config][errors]")
{
    CHECK(parse_error("smp:\n  window: &w 200\n  retries: *w\n") ==
          "t.yaml:3: key 'smp.retries': expected an integer in 0..100, got '200'");
}

TEST_CASE("sections must be mappings", "[config][errors]")
{
    CHECK(parse_error("smp: 5\n") == "t.yaml:1: key 'smp': expected a mapping of settings, got '5'");
    CHECK(parse_error("\nrouting:\n  - ftree\n") == "t.yaml:3: key 'routing': expected a mapping of settings, got a list");
    CHECK(parse_error("# comment\n- a\n- b\n") == "t.yaml:2: expected a mapping of settings at the top level, got a list");
    CHECK(parse_error("just text\n") == "t.yaml:1: expected a mapping of settings at the top level, got 'just text'");
}

TEST_CASE("root GUID errors", "[config][errors]")
{
    CHECK(parse_error("routing:\n  root_guids:\n    - 0x1\n    - 0xzz\n") ==
          "t.yaml:4: key 'routing.root_guids': expected a node GUID (0x followed by up to 16 hex digits, or a decimal "
          "integer), got '0xzz'");
    CHECK(parse_error("routing:\n  root_guids: [0x10000000000000000]\n") ==
          "t.yaml:2: key 'routing.root_guids': expected a node GUID (0x followed by up to 16 hex digits, or a decimal "
          "integer), got '0x10000000000000000'");
    CHECK(parse_error("routing:\n  root_guids:\n    - 0\n") == "t.yaml:3: key 'routing.root_guids': GUID 0 is not a node GUID");
    CHECK(parse_error("routing:\n  root_guids:\n    - 0x2c9\n    - 0x5\n    - 713\n") ==
          "t.yaml:5: key 'routing.root_guids': GUID 0x00000000000002c9 listed twice (first on line 3)");
    CHECK(parse_error("routing:\n  root_guids: 0x1\n") ==
          "t.yaml:2: key 'routing.root_guids': expected a list of node GUIDs, got '0x1'");
    CHECK(parse_error("routing:\n  root_guid_file: /etc/roots\n  lmc: 1\n  root_guids: [0x1]\n") ==
          "t.yaml:4: key 'routing.root_guids': cannot be combined with 'routing.root_guid_file' (line 2); give the "
          "roots one way");
}

TEST_CASE("port selection by GUID excludes CA and port", "[config][errors]")
{
    CHECK(parse_error("sm:\n  port_guid: 0x1234\n  port: 1\n") ==
          "t.yaml:3: key 'sm.port': cannot be combined with 'sm.port_guid' (line 2); select the port by GUID or by CA "
          "and port number");
    CHECK(parse_error("sm:\n  ca: mlx5_0\n  priority: 3\n  port_guid: 0x1234\n") ==
          "t.yaml:4: key 'sm.port_guid': cannot be combined with 'sm.ca' (line 2); select the port by GUID or by CA "
          "and port number");
    CHECK(parse_error("sm:\n  port_guid: 0\n") == "t.yaml:2: key 'sm.port_guid': GUID 0 is not a port GUID");
    CHECK(parse_error("sm:\n  subnet_prefix: fe80::0\n") ==
          "t.yaml:2: key 'sm.subnet_prefix': expected a subnet prefix (0x followed by up to 16 hex digits, or a "
          "decimal integer), got 'fe80::0'");
}

TEST_CASE("YAML syntax errors and extra documents report file and line", "[config][errors]")
{
    const std::string path = fixture("syntax_error.yaml");
    const std::string e = error_of([&] { (void)load_config_file(path); });
    CHECK(e == path + ":6: YAML syntax error: illegal map value");
    CHECK(parse_error("routing:\n  lmc: 1\n    engines: x\n") == "t.yaml:3: YAML syntax error: illegal map value");
    // yaml-cpp itself would take the rest of the file into the string.
    CHECK(parse_error("log:\n  file: \"/var/log\n  level: info\nsmp: [\n") ==
          "t.yaml:2: YAML syntax error: quoted string not closed before the end of the file");
    CHECK(parse_error("sm:\n  priority: 1\n  ca: 'it''s\n") ==
          "t.yaml:3: YAML syntax error: quoted string not closed before the end of the file");
    CHECK(parse_config("sm:\n  ca: 'it''s'\nlog: {file: \"a\\\"b\"}\n", "t.yaml").log.file == "a\"b");
    CHECK(parse_error("routing:\n  lmc: 1\n---\nsmp: {}\n") ==
          "t.yaml:4: more than one YAML document ('---'); ibsmd reads a single document");
    CHECK(parse_error("routing:\n  lmc: 1\n---\n") ==
          "t.yaml:3: more than one YAML document ('---'); ibsmd reads a single document");
}

// Found by tests/fuzz/fuzz_config: yaml-cpp 0.7's LoadAll never consumes a
// top-level ',' and returned empty documents until memory ran out.
TEST_CASE("a stray top-level comma is a syntax error, not a hang", "[config][errors][fuzz]")
{
    CHECK(parse_error(",\n") == "t.yaml:1: YAML syntax error: unexpected ',' (ibsmd reads a single YAML document)");
    CHECK(parse_error("\"x\",\n") == "t.yaml:1: YAML syntax error: unexpected ',' (ibsmd reads a single YAML document)");
    CHECK(parse_error("# c\n  ,\n") == "t.yaml:2: YAML syntax error: unexpected ',' (ibsmd reads a single YAML document)");
    // The fuzzer's input as found.
    const std::string found(",:\n  E E\x01\0\0\0\0\0\0[nnwin\n", 21);
    CHECK(parse_error(found).starts_with("t.yaml:1: YAML syntax error: "));
}
