// The terminal progress line of `ibsm` (tools/progress.h): its text, the
// one-second delay, drawing and erasing on stderr, messages above it, and
// the file stream that reports how much of a file was read.
#include "tools/progress.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using namespace ibsm::tools;
using namespace std::chrono_literals;

namespace {

// Captures what is written to file descriptor 2 while it lives.
class StderrCapture {
public:
    StderrCapture() : path_(std::filesystem::temp_directory_path() / ("ibsm-progress-" + std::to_string(::getpid())))
    {
        std::fflush(stderr);
        saved_ = ::dup(2);
        std::FILE* f = std::fopen(path_.c_str(), "w");
        ::dup2(::fileno(f), 2);
        std::fclose(f);
    }
    ~StderrCapture()
    {
        restore();
        std::filesystem::remove(path_);
    }
    std::string text()
    {
        restore();
        std::ifstream in(path_);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }

private:
    void restore()
    {
        if (saved_ < 0) return;
        std::fflush(stderr);
        ::dup2(saved_, 2);
        ::close(saved_);
        saved_ = -1;
    }
    std::filesystem::path path_;
    int saved_ = -1;
};

} // namespace

TEST_CASE("the line shows the stage, the percentage when counted, and the stage's seconds")
{
    ProgressLine line("ibsm test", false);
    CHECK_FALSE(line.enabled());
    line.update("trace", 45, 100);
    CHECK(line.text() == "trace 45% (0 s)");
    line.update("trace", 100, 100);
    CHECK(line.text() == "trace 100% (0 s)");
    line.update("assign LIDs");
    CHECK(line.text() == "assign LIDs (0 s)");
}

TEST_CASE("drawn on stderr after the delay, erased by stop, messages above it")
{
    StderrCapture cap;
    {
        ProgressLine line("ibsm test", true, 0ms);
        line.update("trace", 1, 2);
        std::this_thread::sleep_for(350ms);
        line.message("ibsm test: a note");
        line.update("ebb", 3, 4);
        std::this_thread::sleep_for(350ms);
        line.stop();
        line.message("after");
    }
    const std::string out = cap.text();
    INFO(out);
    CHECK(out.find("\ribsm test: trace 50% (0 s)") != std::string::npos);
    CHECK(out.find("ibsm test: a note\n") != std::string::npos);
    CHECK(out.find("\ribsm test: ebb 75% (0 s)") != std::string::npos);
    // stop() erased the line: blanks over it, back to the start, then the message.
    const std::string erase = "\r" + std::string(std::string("ibsm test: ebb 75% (0 s)").size(), ' ') + "\r";
    CHECK(out.find(erase + "after\n") != std::string::npos);
    CHECK(out.substr(out.size() - 6) == "after\n");
}

TEST_CASE("nothing is drawn before the delay has passed")
{
    StderrCapture cap;
    {
        ProgressLine line("ibsm test", true, 10s);
        line.update("trace", 1, 2);
        std::this_thread::sleep_for(250ms);
    }
    CHECK(cap.text().empty());
}

TEST_CASE("a file read through ProgressFileStream arrives whole and reports 100 %")
{
    const auto path = std::filesystem::temp_directory_path() / ("ibsm-progress-file-" + std::to_string(::getpid()));
    std::string content;
    for (int i = 0; i < 20000; ++i) content += "line " + std::to_string(i) + "\n"; // > 64 KiB: several refills
    std::ofstream(path) << content;
    ProgressLine line("ibsm test", false);
    {
        ProgressFileStream in(path.string(), line, "read");
        std::stringstream got;
        std::string l;
        while (std::getline(in, l)) got << l << "\n";
        CHECK(got.str() == content);
    }
    CHECK(line.text() == "read 100% (0 s)");
    std::filesystem::remove(path);
    CHECK_THROWS_WITH(ProgressFileStream(path.string(), line, "read"), Catch::Contains("cannot open"));
}
