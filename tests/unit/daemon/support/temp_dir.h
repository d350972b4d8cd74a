// A fresh directory under the system's temp dir for one test, removed with
// everything in it when the test ends: state directories, sockets, files the
// daemon's wings write. Unique per process and per instance, so suites run
// in parallel and sections of one test never see each other's files.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

namespace ibsm::test {

struct TempDir {
    std::filesystem::path path;
    TempDir()
    {
        static int n = 0;
        path = std::filesystem::temp_directory_path() /
               ("ibsm-daemon-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        std::filesystem::create_directories(path);
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

} // namespace ibsm::test
