// Crash-safe file replacement: the new content goes to a temporary file in
// the same directory, is fsync'ed, then renamed over the target, and the
// directory is fsync'ed. A reader (or a restarted daemon) sees either the old
// file or the new one, never a torn mix.
#pragma once

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace ibsm::daemon {

// Creates the parent directory if needed. Throws std::runtime_error naming
// the file and the system error.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// The same for content produced by a writer streaming into the temporary
// file, for files too large to build in memory first (lfts.dump of a large
// fabric is hundreds of megabytes). Exceptions from `write` propagate after
// the temporary file is removed.
void write_file_atomically(const std::filesystem::path& target, const std::function<void(std::ostream&)>& write);

// The reading half for the state files the daemon keeps (isolations,
// drains): hands the file's text to `parse`. An absent file is no error. A
// file that cannot be read, or whose `parse` throws, is moved aside to
// FILE.corrupt-<time> so the next save does not lose it silently; the
// returned text says so and ends with `what_to_do`. Empty: loaded.
std::string load_or_set_aside(const std::filesystem::path& file, const std::function<void(const std::string&)>& parse,
                              const std::string& what_to_do);

} // namespace ibsm::daemon
