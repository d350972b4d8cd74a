#include "routing/analysis/connectivity.h"

#include <algorithm>
#include <utility>

namespace ibsm::routing::analysis {

const char* to_string(PairClass c)
{
    switch (c) {
    case PairClass::ca_to_ca: return "ca_to_ca";
    case PairClass::ca_to_switch: return "ca_to_switch";
    case PairClass::switch_to_ca: return "switch_to_ca";
    case PairClass::switch_to_switch: return "switch_to_switch";
    }
    return "?";
}

void PairStats::add_delivered(unsigned routed, unsigned shortest, std::uint64_t count)
{
    std::size_t need = std::max(routed, shortest) + 1u;
    if (need > dim) {
        std::size_t nd = std::max<std::size_t>(need, dim * 2);
        std::vector<std::uint64_t> grown(nd * nd, 0);
        for (std::size_t r = 0; r < dim; ++r)
            for (std::size_t s = 0; s < dim; ++s) grown[r * nd + s] = hist[r * dim + s];
        hist.swap(grown);
        dim = nd;
    }
    hist[routed * dim + shortest] += count;
    delivered += count;
}

namespace {

void merge_examples(std::vector<PairExample>& into, const std::vector<PairExample>& from, std::size_t max)
{
    into.insert(into.end(), from.begin(), from.end());
    std::sort(into.begin(), into.end());
    if (into.size() > max) into.resize(max);
}

} // namespace

void PairStats::merge(const PairStats& o, std::size_t max_examples)
{
    pairs += o.pairs;
    if (o.hist.empty()) delivered += o.delivered; // counted without a histogram (or none)
    unreachable += o.unreachable;
    loops += o.loops;
    merge_examples(unreachable_examples, o.unreachable_examples, max_examples);
    merge_examples(loop_examples, o.loop_examples, max_examples);
    for (std::size_t r = 0; r < o.dim; ++r)
        for (std::size_t s = 0; s < o.dim; ++s)
            if (std::uint64_t n = o.hist[r * o.dim + s]) add_delivered(static_cast<unsigned>(r), static_cast<unsigned>(s), n);
}

double PairStats::hops_mean() const
{
    if (delivered == 0) return 0;
    double sum = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 0; s < dim; ++s) sum += static_cast<double>(r) * static_cast<double>(hist[r * dim + s]);
    return sum / static_cast<double>(delivered);
}

unsigned PairStats::hops_max() const
{
    unsigned m = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 0; s < dim; ++s)
            if (hist[r * dim + s]) m = static_cast<unsigned>(r);
    return m;
}

double PairStats::shortest_mean() const
{
    if (delivered == 0) return 0;
    double sum = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 0; s < dim; ++s) sum += static_cast<double>(s) * static_cast<double>(hist[r * dim + s]);
    return sum / static_cast<double>(delivered);
}

double PairStats::stretch_mean() const
{
    if (delivered == 0) return 0;
    double sum = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 1; s < dim; ++s)
            sum += static_cast<double>(hist[r * dim + s]) * static_cast<double>(r) / static_cast<double>(s);
    return sum / static_cast<double>(delivered);
}

double PairStats::stretch_max() const
{
    double m = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 1; s < dim; ++s)
            if (hist[r * dim + s]) m = std::max(m, static_cast<double>(r) / static_cast<double>(s));
    return m;
}

std::uint64_t PairStats::nonminimal() const
{
    std::uint64_t n = 0;
    for (std::size_t r = 0; r < dim; ++r)
        for (std::size_t s = 0; s < r; ++s) n += hist[r * dim + s];
    return n;
}

ConnectivityCounter::ConnectivityCounter(const Network& net, const ShortestPaths* sp, bool switch_sources,
                                         std::size_t max_examples)
    : net_(&net), sp_(sp), max_examples_(max_examples), ca_at_(net.switch_count(), 0),
      first_ca_at_(net.switch_count(), -1), second_ca_at_(net.switch_count(), -1)
{
    result_.switch_sources = switch_sources;
    for (std::size_t s = 0; s < net.switch_count(); ++s)
        if (net.switch_endpoint(static_cast<std::int32_t>(s)) >= 0) ++sw_total_;
    const auto& eps = net.endpoints();
    for (std::size_t e = 0; e < eps.size(); ++e) {
        if (eps[e].is_switch) continue;
        auto ei = static_cast<std::int32_t>(e);
        if (eps[e].attach_switch < 0) {
            unattached_.push_back(ei);
            continue;
        }
        auto s = static_cast<std::size_t>(eps[e].attach_switch);
        ++ca_at_[s];
        ++ca_total_;
        if (first_ca_at_[s] < 0)
            first_ca_at_[s] = ei;
        else if (second_ca_at_[s] < 0)
            second_ca_at_[s] = ei;
    }
}

void ConnectivityCounter::note_example(std::vector<PairExample>& list, std::int32_t source, std::uint32_t lid,
                                       std::uint32_t seq)
{
    if (seq >= max_examples_) return;
    list.push_back(PairExample{lid, seq, source});
    if (list.size() > 4 * max_examples_ + 16) {
        std::sort(list.begin(), list.end());
        list.resize(max_examples_);
    }
}

void ConnectivityCounter::add(const DestinationTree& t)
{
    if (t.owner < 0) return;
    const Network& net = *net_;
    const Endpoint& dst = net.endpoint(t.owner);
    const bool to_ca = !dst.is_switch;
    const std::int32_t dst_switch = dst.attach_switch;
    PairStats& from_ca = result_.of(to_ca ? PairClass::ca_to_ca : PairClass::ca_to_switch);
    PairStats& from_sw = result_.of(to_ca ? PairClass::switch_to_ca : PairClass::switch_to_switch);
    std::uint32_t seq_ca_unr = 0, seq_ca_loop = 0, seq_sw_unr = 0, seq_sw_loop = 0;

    for (std::int32_t e : unattached_) {
        if (e == t.owner) continue;
        ++from_ca.pairs;
        ++from_ca.unreachable;
        note_example(from_ca.unreachable_examples, e, t.lid, seq_ca_unr++);
    }

    // The CA sources cabled to switch s (less the destination port itself)
    // and the one named in examples.
    auto ca_sources = [&](std::size_t s) {
        std::uint64_t n = ca_at_[s];
        std::int32_t example = first_ca_at_[s];
        if (to_ca && dst_switch == static_cast<std::int32_t>(s)) {
            --n;
            if (example == t.owner) example = second_ca_at_[s];
        }
        return std::pair{n, example};
    };
    // n pairs of class c from `example`'s switch that do not arrive, by why.
    auto undelivered = [&](PairStats& c, Reach r, std::uint64_t n, std::int32_t example, std::uint32_t& seq_unr,
                           std::uint32_t& seq_loop) {
        if (r == Reach::unreachable) {
            c.unreachable += n;
            note_example(c.unreachable_examples, example, t.lid, seq_unr++);
        } else {
            c.loops += n;
            note_example(c.loop_examples, example, t.lid, seq_loop++);
        }
    };

    const std::size_t nsw = net.switch_count();
    if (!sp_) {
        // Counts only (the gate): the pairs of every switch are known in
        // advance, so only the switches that do not deliver are visited, in
        // the same order as below (the examples come out the same).
        std::uint64_t ca_pairs = ca_total_;
        if (to_ca && dst_switch >= 0) --ca_pairs;
        std::uint64_t sw_pairs = result_.switch_sources ? sw_total_ - (dst.is_switch ? 1u : 0u) : 0;
        std::uint64_t ca_bad = 0, sw_bad = 0;
        const Reach* status = t.status.data();
        for (std::size_t s = 0; s < nsw; ++s) {
            const Reach r = status[s];
            if (r == Reach::delivered) continue;
            const auto [n, example] = ca_sources(s);
            if (n > 0) {
                ca_bad += n;
                undelivered(from_ca, r, n, example, seq_ca_unr, seq_ca_loop);
            }
            if (!result_.switch_sources) continue;
            std::int32_t self = net.switch_endpoint(static_cast<std::int32_t>(s));
            if (self < 0 || self == t.owner) continue;
            ++sw_bad;
            undelivered(from_sw, r, 1, self, seq_sw_unr, seq_sw_loop);
        }
        from_ca.pairs += ca_pairs;
        from_ca.delivered += ca_pairs - ca_bad;
        from_sw.pairs += sw_pairs;
        from_sw.delivered += sw_pairs - sw_bad;
        return;
    }
    for (std::size_t s = 0; s < nsw; ++s) {
        const auto si = static_cast<std::int32_t>(s);
        const Reach r = t.status[s];
        // CA sources cabled to this switch.
        const auto [n, example] = ca_sources(s);
        if (n > 0) {
            from_ca.pairs += n;
            if (r == Reach::delivered) {
                if (sp_) {
                    unsigned shortest = sp_->between(si, dst_switch) + 1u + (to_ca ? 1u : 0u);
                    from_ca.add_delivered(t.hops[s] + 1u, shortest, n);
                } else {
                    from_ca.delivered += n;
                }
            } else {
                undelivered(from_ca, r, n, example, seq_ca_unr, seq_ca_loop);
            }
        }
        // The switch itself as a source.
        if (!result_.switch_sources) continue;
        std::int32_t self = net.switch_endpoint(si);
        if (self < 0 || self == t.owner) continue;
        ++from_sw.pairs;
        if (r == Reach::delivered) {
            if (sp_)
                from_sw.add_delivered(t.hops[s], sp_->between(si, dst_switch) + (to_ca ? 1u : 0u), 1);
            else
                ++from_sw.delivered;
        } else {
            undelivered(from_sw, r, 1, self, seq_sw_unr, seq_sw_loop);
        }
    }
}

void ConnectivityCounter::merge(const ConnectivityCounter& other)
{
    for (std::size_t c = 0; c < pair_class_count; ++c)
        result_.classes[c].merge(other.result_.classes[c], max_examples_);
}

void ConnectivityCounter::clear()
{
    for (PairStats& c : result_.classes) {
        c.pairs = c.delivered = c.unreachable = c.loops = 0;
        c.unreachable_examples.clear();
        c.loop_examples.clear();
        c.dim = 0;
        c.hist.clear();
    }
}

Connectivity ConnectivityCounter::result() const
{
    Connectivity out;
    out.switch_sources = result_.switch_sources;
    for (std::size_t c = 0; c < pair_class_count; ++c) out.classes[c].merge(result_.classes[c], max_examples_);
    return out;
}

} // namespace ibsm::routing::analysis
