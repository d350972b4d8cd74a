// Random irregular fabric (see gen_random.h).
#include "topology/gen_random.h"

#include "topology/gen_common.h"

#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ibsm::topology {

namespace {

constexpr unsigned max_switches = 65536;
constexpr unsigned max_attempts = 200;

struct Stub {
    unsigned sw;
    std::uint8_t port;
};

class Pairing {
public:
    Pairing(std::vector<Stub> stubs, bool simple) : stubs_(std::move(stubs)), simple_(simple)
    {
        for (std::size_t e = 0; e < edges(); ++e) add(e);
    }
    std::size_t edges() const { return stubs_.size() / 2; }
    const Stub& end(std::size_t e, int side) const { return stubs_[2 * e + static_cast<std::size_t>(side)]; }

    bool bad(std::size_t e) const
    {
        const unsigned a = end(e, 0).sw, b = end(e, 1).sw;
        return a == b || (simple_ && count_.at(key(a, b)) > 1);
    }

    // Swaps the second end of e with end `side` of f when both new pairs are
    // good; returns whether it did.
    bool try_swap(std::size_t e, std::size_t f, int side)
    {
        Stub& x = stubs_[2 * e + 1];
        Stub& y = stubs_[2 * f + static_cast<std::size_t>(side)];
        const unsigned a = end(e, 0).sw, c = end(f, 1 - side).sw;
        if (a == y.sw || c == x.sw) return false;
        remove(e);
        remove(f);
        std::swap(x, y);
        add(e);
        add(f);
        if (bad(e) || bad(f)) {
            remove(e);
            remove(f);
            std::swap(x, y);
            add(e);
            add(f);
            return false;
        }
        return true;
    }

private:
    static std::pair<unsigned, unsigned> key(unsigned a, unsigned b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }
    void add(std::size_t e) { ++count_[key(end(e, 0).sw, end(e, 1).sw)]; }
    void remove(std::size_t e) { --count_[key(end(e, 0).sw, end(e, 1).sw)]; }

    std::vector<Stub> stubs_;
    bool simple_;
    std::map<std::pair<unsigned, unsigned>, unsigned> count_;
};

// Repairs bad pairs by exchanging ends with random partners; false when it
// gives up (the caller reshuffles).
bool repair(Pairing& p, std::mt19937_64& rng)
{
    const std::size_t E = p.edges();
    std::size_t budget = 200 * E + 1000;
    for (std::size_t e = 0; e < E; ++e) {
        while (p.bad(e)) {
            if (budget-- == 0 || E < 2) return false;
            const auto f = static_cast<std::size_t>(gen::uniform_below(rng, E));
            if (f == e) continue;
            p.try_swap(e, f, static_cast<int>(gen::uniform_below(rng, 2)));
        }
    }
    // A later repair can make an earlier pair a duplicate again; check all.
    for (std::size_t e = 0; e < E; ++e)
        if (p.bad(e)) return false;
    return true;
}

bool connected(const Pairing& p, unsigned switches)
{
    std::vector<unsigned> parent(switches);
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&](unsigned x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    unsigned groups = switches;
    for (std::size_t e = 0; e < p.edges(); ++e) {
        const unsigned a = find(p.end(e, 0).sw), b = find(p.end(e, 1).sw);
        if (a != b) {
            parent[a] = b;
            --groups;
        }
    }
    return groups == 1;
}

} // namespace

Fabric generate_random(const RandomParams& params)
{
    const unsigned n = params.switches, k = params.hosts_per_switch, P = params.ports_per_switch;
    if (n < 2) throw std::invalid_argument("a random fabric needs at least 2 switches");
    if (n > max_switches) throw std::invalid_argument("random fabric too large");
    if (P > PortNum::max_port) throw std::invalid_argument("at most " + std::to_string(PortNum::max_port) + " ports per switch");
    if (P <= k) throw std::invalid_argument(std::to_string(k) + " hosts per switch leave no switch port of " + std::to_string(P));
    const unsigned d = P - k; // switch ports per switch
    if (static_cast<std::uint64_t>(n) * d < 2ull * (n - 1))
        throw std::invalid_argument("too few switch ports to connect " + std::to_string(n) + " switches");

    std::vector<Stub> stubs;
    for (unsigned s = 0; s < n; ++s)
        for (unsigned j = 0; j < d; ++j) stubs.push_back(Stub{s, static_cast<std::uint8_t>(k + 1 + j)});
    if (stubs.size() % 2) stubs.pop_back(); // the last switch's last port stays free
    const bool simple = d <= n - 1;

    std::mt19937_64 rng(params.seed);
    for (unsigned attempt = 0; attempt < max_attempts; ++attempt) {
        std::vector<Stub> order = stubs;
        gen::shuffle(order, rng);
        Pairing pairing(std::move(order), simple);
        if (!repair(pairing, rng) || !connected(pairing, n)) continue;

        Fabric f;
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(n) * k; ++i) gen::add_host(f, i, 1);
        const NodeId first{static_cast<std::uint32_t>(f.node_count())};
        for (unsigned s = 0; s < n; ++s)
            f.add_node(NodeType::switch_node, gen::switch_guid(gen::family_random, s), static_cast<std::uint8_t>(P),
                       gen::numbered("rand", s));
        for (unsigned s = 0; s < n; ++s)
            for (unsigned j = 0; j < k; ++j)
                f.connect({NodeId{s * k + j}, PortNum(1)}, {NodeId{first.value + s}, PortNum(static_cast<std::uint8_t>(j + 1))});
        for (std::size_t e = 0; e < pairing.edges(); ++e) {
            const Stub& a = pairing.end(e, 0);
            const Stub& b = pairing.end(e, 1);
            f.connect({NodeId{first.value + a.sw}, PortNum(a.port)}, {NodeId{first.value + b.sw}, PortNum(b.port)});
        }
        gen::finish_ports(f);
        return f;
    }
    throw std::invalid_argument("no connected random cabling of " + std::to_string(n) + " switches with " +
                                std::to_string(d) + " switch ports each found in " + std::to_string(max_attempts) +
                                " attempts");
}

} // namespace ibsm::topology
