#include "daemon/publish/status_mkey.h"

namespace ibsm::daemon {

namespace {

using Json = nlohmann::json;

void family(std::string& out, const char* name, const char* type, const char* help, std::uint64_t value)
{
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
           std::to_string(value) + "\n";
}

} // namespace

Json mkey_to_json(const StatusMkey& m)
{
    return Json{{"mode", m.mode},
                {"protect_bits", m.protect_bits},
                {"lease_period_s", m.lease_period_s},
                {"fingerprint", m.fingerprint},
                {"violations", m.violations},
                {"incidents", m.incidents},
                {"rotations", m.rotations},
                {"rotations_completed", m.rotations_completed},
                {"rotating", m.rotating},
                {"ports_stale", m.ports_stale},
                {"ports_lease_wait", m.ports_lease_wait}};
}

StatusMkey mkey_from_json(const Json& j)
{
    StatusMkey m;
    m.mode = j.at("mode").get<std::string>();
    m.protect_bits = j.at("protect_bits").get<unsigned>();
    m.lease_period_s = j.at("lease_period_s").get<unsigned>();
    m.fingerprint = j.at("fingerprint").get<std::string>();
    m.violations = j.at("violations").get<std::uint64_t>();
    m.incidents = j.at("incidents").get<std::uint64_t>();
    m.rotations = j.at("rotations").get<std::uint64_t>();
    m.rotations_completed = j.at("rotations_completed").get<std::uint64_t>();
    m.rotating = j.at("rotating").get<bool>();
    m.ports_stale = j.at("ports_stale").get<std::uint64_t>();
    m.ports_lease_wait = j.at("ports_lease_wait").get<std::uint64_t>();
    return m;
}

std::string mkey_metrics(const StatusMkey& m)
{
    std::string o;
    family(o, "ibsmd_mkey_enabled", "gauge", "1 when the ports carry M_Keys (security.mkey.mode not off).",
           m.mode == "off" ? 0 : 1);
    family(o, "ibsmd_mkey_violations_total", "counter", "Bad M_Key traps (256): SMPs someone sent with a wrong key.",
           m.violations);
    family(o, "ibsmd_mkey_incidents_total", "counter", "SMPs of the SM a port refused under every key the SM knows.",
           m.incidents);
    family(o, "ibsmd_mkey_rotations_total", "counter", "M_Key rotations started (ibsm mkey rotate, reload).",
           m.rotations);
    family(o, "ibsmd_mkey_rotations_completed_total", "counter", "M_Key rotations every port confirmed.",
           m.rotations_completed);
    family(o, "ibsmd_mkey_rotating", "gauge", "1 while a rotation waits for ports to confirm their new key.",
           m.rotating ? 1 : 0);
    family(o, "ibsmd_mkey_ports_stale", "gauge", "Ports still holding an old key.", m.ports_stale);
    family(o, "ibsmd_mkey_ports_lease_wait", "gauge",
           "Ports holding a key the SM does not know, waited out for their M_Key lease.", m.ports_lease_wait);
    return o;
}

std::string mkey_status_text(const StatusMkey& m)
{
    std::string o = "M_Key:        " + m.mode;
    if (m.mode != "off")
        o += ", protect bits " + std::to_string(m.protect_bits) + ", lease " + std::to_string(m.lease_period_s) +
             " s, secret fingerprint " + m.fingerprint;
    o += "; " + std::to_string(m.violations) + " violations, " + std::to_string(m.incidents) + " incidents, " +
         std::to_string(m.rotations) + " rotations";
    if (m.rotating) o += " (rotating: " + std::to_string(m.ports_stale) + " ports hold an old key)";
    if (m.ports_lease_wait) o += ", " + std::to_string(m.ports_lease_wait) + " ports waiting out their lease";
    return o + "\n";
}

} // namespace ibsm::daemon
