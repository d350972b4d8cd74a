// Live M_Key rotation's decisions (daemon/service/mkey_rotation.h) and the
// reload's: a new secret starts a rotation, the same one, M_Key off or a
// refused file are refused with the reason and the keys in use stay.
#include "daemon/service/mkey_rotation.h"
#include "daemon/service/reload.h"
#include "daemon/service/settings.h"

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace ibsm;
namespace fs = std::filesystem;

namespace {

// A root-only secret file (the tests run as root, as the daemon does).
struct SecretFile {
    fs::path path = fs::temp_directory_path() / ("ibsmd-test-mkey-" + std::to_string(getpid()) + ".secret");
    explicit SecretFile(const std::string& hex) { write(hex); }
    ~SecretFile() { fs::remove(path); }
    void write(const std::string& hex, fs::perms perms = fs::perms::owner_read | fs::perms::owner_write)
    {
        std::ofstream(path) << "# test secret\n" << hex << "\n";
        fs::permissions(path, perms);
    }
};

config::Config with_mkey(const std::string& file)
{
    config::Config c;
    c.security.mkey.mode = config::MkeyMode::per_port;
    c.security.mkey.secret_file = file;
    c.security.mkey.protect_bits = 1;
    c.security.mkey.lease_period_s = 30;
    return c;
}

const std::string secret_a = "000102030405060708090a0b0c0d0e0f";
const std::string secret_b = "f0e0d0c0b0a090807060504030201000";

} // namespace

TEST_CASE("mkey rotate: a new secret in the file starts a rotation; the same one is refused naming the file",
          "[mkey][reload]")
{
    if (geteuid() != 0) {
        WARN("not run: the secret file must be root's");
        return;
    }
    SecretFile file(secret_a);
    const auto cfg = with_mkey(file.path.string());
    daemon::MkeyBook book(std::get<daemon::MkeySettings>(daemon::mkey_settings(cfg)));
    const auto key_before = book.desired(Guid(0x1234));

    const auto same = daemon::rotate_mkeys(book, cfg);
    CHECK_FALSE(same.start);
    CHECK(same.text.find(file.path.string() + " holds the secret in use (fingerprint " +
                         book.settings().ring.fingerprint() + "); write a new one there first") != std::string::npos);
    CHECK_FALSE(book.rotating());

    file.write(secret_b);
    const auto fingerprint_a = book.settings().ring.fingerprint();
    const auto started = daemon::rotate_mkeys(book, cfg);
    CHECK(started.start);
    CHECK(started.text.find("fingerprint " + fingerprint_a) != std::string::npos);
    CHECK(started.text.find("fingerprint " + book.settings().ring.fingerprint()) != std::string::npos);
    CHECK(book.settings().ring.fingerprint() != fingerprint_a);
    CHECK(book.rotating());
    CHECK(book.counters().rotations_started == 1);
    CHECK(book.desired(Guid(0x1234)) != key_before);
    // The text names fingerprints only, never a key.
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(key_before));
    CHECK(started.text.find(hex) == std::string::npos);
}

TEST_CASE("mkey rotate: a file readable by others is refused and the keys in use stay", "[mkey][reload]")
{
    if (geteuid() != 0) {
        WARN("not run: the secret file must be root's");
        return;
    }
    SecretFile file(secret_a);
    const auto cfg = with_mkey(file.path.string());
    daemon::MkeyBook book(std::get<daemon::MkeySettings>(daemon::mkey_settings(cfg)));
    const auto before = book.settings();
    file.write(secret_b, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                             fs::perms::others_read);
    const auto d = daemon::rotate_mkeys(book, cfg);
    CHECK_FALSE(d.start);
    CHECK(d.text.starts_with("M_Key rotation refused, keeping the keys in use: security.mkey.secret_file: " +
                             file.path.string()));
    CHECK(d.text.find("has mode 0644") != std::string::npos);
    CHECK(book.settings() == before);
    CHECK_FALSE(book.rotating());
}

TEST_CASE("mkey rotate with M_Key off is refused", "[mkey][reload]")
{
    const auto d = daemon::decide_rotation(daemon::MkeySettings{}, daemon::MkeySettings{}, "");
    CHECK_FALSE(d.start);
    CHECK(d.text == "M_Key rotation refused: M_Key protection is off (security.mkey.mode)");
}

TEST_CASE("reload: a new secret under the same YAML is applied; a refused file makes the reload unreadable",
          "[mkey][reload]")
{
    if (geteuid() != 0) {
        WARN("not run: the secret file must be root's");
        return;
    }
    SecretFile file(secret_a);
    const auto cfg = with_mkey(file.path.string());
    const auto running = std::get<daemon::MkeySettings>(daemon::mkey_settings(cfg));

    daemon::Reread same;
    same.config = cfg;
    same.mkeys = running;
    CHECK(daemon::decide_reload(cfg, same, &running).action == daemon::ReloadAction::unchanged);

    file.write(secret_b);
    daemon::Reread next;
    next.config = cfg;
    next.mkeys = std::get<daemon::MkeySettings>(daemon::mkey_settings(cfg));
    const auto d = daemon::decide_reload(cfg, next, &running);
    CHECK(d.action == daemon::ReloadAction::apply);
    CHECK(d.reasons == std::vector<std::string>{"security.mkey.secret_file: the secret changed"});
    // Without a key book to compare with, only the YAML counts.
    CHECK(daemon::decide_reload(cfg, next).action == daemon::ReloadAction::unchanged);
}
