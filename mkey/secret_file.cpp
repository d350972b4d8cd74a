#include "mkey/secret_file.h"

#include "common/trim.h"
#include "mkey/wipe.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ibsm::mkey {

namespace {

int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

} // namespace

std::variant<KeyRing, std::string> parse_secret(std::string_view text, SecretKind kind, const std::string& path)
{
    std::string_view value;
    unsigned value_line = 0;
    unsigned line = 0;
    while (!text.empty()) {
        ++line;
        const auto nl = text.find('\n');
        auto l = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
        l = common::trim(l);
        if (l.empty()) continue;
        if (value_line != 0)
            return path + ":" + std::to_string(line) + ": a second value (the secret is on line " +
                   std::to_string(value_line) + "); the file holds one";
        value = l;
        value_line = line;
    }
    if (value_line == 0) return path + ": no secret in the file";
    const std::string where = path + ":" + std::to_string(value_line) + ": ";
    if (value.starts_with("0x") || value.starts_with("0X")) value.remove_prefix(2);
    for (char c : value)
        if (hex_digit(c) < 0) return where + "'" + std::string(1, c) + "' is not a hex digit";
    if (kind == SecretKind::per_port) {
        if (value.size() != 32)
            return where + "expected 32 hex digits (128 bits), found " + std::to_string(value.size());
        SipKey secret{};
        bool all_zero = true;
        for (std::size_t i = 0; i < 16; ++i) {
            secret[i] = static_cast<std::uint8_t>(hex_digit(value[2 * i]) << 4 | hex_digit(value[2 * i + 1]));
            all_zero = all_zero && secret[i] == 0;
        }
        KeyRing ring = KeyRing::per_port(secret);
        wipe(secret.data(), secret.size());
        if (all_zero) return where + "the secret is all zeros";
        return ring;
    }
    if (value.empty() || value.size() > 16)
        return where + "expected a 64-bit key (1 to 16 hex digits), found " + std::to_string(value.size());
    std::uint64_t key = 0;
    for (char c : value) key = key << 4 | static_cast<std::uint64_t>(hex_digit(c));
    if (key == 0) return where + "the key is 0, which disables the M_Key check";
    return KeyRing::fixed(key);
}

std::string permission_problem(const std::string& path, uid_t owner, mode_t mode)
{
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
    if (!S_ISREG(mode)) return path + " is not a regular file";
    if (owner != 0)
        return path + " is owned by uid " + std::to_string(owner) + ", not root: refusing to trust its M_Key secret";
    if ((mode & 077) != 0)
        return path + " has mode " + octal + ": group or others may read the M_Key secret (chmod 600 " + path + ")";
    return {};
}

std::variant<KeyRing, std::string> load_secret_file(const std::string& path, SecretKind kind)
{
    // Opened first and checked through the descriptor, so the file checked
    // is the file read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return path + ": " + std::strerror(errno);
    struct stat st {};
    std::string text;
    // Room for all that is read, so the text (the secret in hex) is never
    // moved, leaving a copy behind unwiped.
    text.reserve(4096 + 512);
    std::string problem;
    if (::fstat(fd, &st) != 0) {
        problem = path + ": " + std::strerror(errno);
    } else if (problem = permission_problem(path, st.st_uid, st.st_mode); problem.empty()) {
        char buf[512];
        ssize_t n;
        while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < 4096) text.append(buf, static_cast<std::size_t>(n));
        if (n < 0) problem = path + ": " + std::strerror(errno);
        wipe(buf, sizeof buf);
    }
    ::close(fd);
    if (!problem.empty()) return problem;
    auto ring = parse_secret(text, kind, path);
    wipe(text.data(), text.size());
    return ring;
}

} // namespace ibsm::mkey
