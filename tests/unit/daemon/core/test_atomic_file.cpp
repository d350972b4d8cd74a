// Crash-safe replacement of a file: the new content appears whole, the old
// one stays when writing fails, no temporary file is left behind, and every
// error names the file.
#include "daemon/core/atomic_file.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

struct Dir {
    fs::path path = fs::temp_directory_path() / ("ibsm-atomic-" + std::to_string(::getpid()));
    Dir() { fs::remove_all(path); }
    ~Dir() { fs::remove_all(path); }
};

std::string read(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t entries(const fs::path& dir)
{
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

} // namespace

TEST_CASE("a file is written whole, its directory made, and replaced by the next write", "[atomic]")
{
    Dir d;
    const auto target = d.path / "a" / "b" / "state.json";
    daemon::write_file_atomically(target, "first\n");
    CHECK(read(target) == "first\n");
    daemon::write_file_atomically(target, std::string("second\0with a NUL\n", 18));
    CHECK(read(target) == std::string("second\0with a NUL\n", 18));
    CHECK(entries(target.parent_path()) == 1); // no temporary file left

    // Streamed content larger than the write buffer.
    daemon::write_file_atomically(target, [](std::ostream& out) {
        for (int i = 0; i < 200000; ++i) out << "line " << i << '\n';
    });
    const auto text = read(target);
    CHECK(text.size() > (1u << 20));
    CHECK(text.starts_with("line 0\nline 1\n"));
    CHECK(text.ends_with("line 199999\n"));
    CHECK(entries(target.parent_path()) == 1);
}

TEST_CASE("a writer that throws leaves the old file and no temporary one", "[atomic]")
{
    Dir d;
    const auto target = d.path / "lfts.dump";
    daemon::write_file_atomically(target, "old");
    CHECK_THROWS_WITH(daemon::write_file_atomically(target,
                                                    [](std::ostream& out) {
                                                        out << "half of the new";
                                                        throw std::runtime_error("out of memory");
                                                    }),
                      "out of memory");
    CHECK(read(target) == "old");
    CHECK(entries(d.path) == 1);
}

TEST_CASE("failures name the file or directory and the system error", "[atomic]")
{
    Dir d;
    fs::create_directories(d.path);
    // The parent "directory" is a file.
    std::ofstream(d.path / "plain") << "x";
    CHECK_THROWS_WITH(daemon::write_file_atomically(d.path / "plain" / "state.json", "x"),
                      Catch::Contains("cannot create directory " + (d.path / "plain").string()));
    // The target is a directory: the rename fails, the temporary file goes.
    fs::create_directories(d.path / "taken" / "inside");
    CHECK_THROWS_WITH(daemon::write_file_atomically(d.path / "taken", "x"),
                      Catch::Contains("cannot rename into place " + (d.path / "taken").string()));
    CHECK(entries(d.path) == 2);
    CHECK(fs::is_directory(d.path / "taken" / "inside"));
}
