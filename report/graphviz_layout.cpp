#include "report/graphviz_layout.h"

#include "report/host_placement.h"

#include <dlfcn.h>
#include <gvc.h>
#include <gvplugin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>

#ifndef IBSM_GRAPHVIZ_LAYOUT_PLUGIN
#error "IBSM_GRAPHVIZ_LAYOUT_PLUGIN (path of libgvplugin_neato_layout.so.N) comes from report/meson.build"
#endif

namespace ibsm::report {

namespace {

constexpr const char* plugin_path = IBSM_GRAPHVIZ_LAYOUT_PLUGIN;
constexpr const char* plugin_symbol = "gvplugin_neato_layout_LTX_library";

std::mutex graphviz_mutex;
std::string graphviz_messages; // what Graphviz reported during the current call (under the mutex)

int collect_message(char* text)
{
    graphviz_messages += text;
    return 0;
}

// cgraph takes char* for names and values it only reads (it copies them).
char* mut(const char* s)
{
    return const_cast<char*>(s);
}

// Graphviz reports through a process-wide handler; while a layout runs its
// messages are kept for the exception instead of going to stderr.
class MessageCapture {
public:
    MessageCapture() : previous_(agseterrf(collect_message)) { graphviz_messages.clear(); }
    ~MessageCapture() { agseterrf(previous_); }
    MessageCapture(const MessageCapture&) = delete;
    MessageCapture& operator=(const MessageCapture&) = delete;

private:
    agusererrf previous_;
};

class Plugin {
public:
    explicit Plugin(const std::string& engine) : handle_(dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL))
    {
        if (handle_ == nullptr) {
            const char* why = dlerror();
            throw std::runtime_error("graphviz " + engine + ": cannot load the layout plugin: " +
                                     (why != nullptr ? why : plugin_path));
        }
        library_ = dlsym(handle_, plugin_symbol);
        if (library_ == nullptr) {
            dlclose(handle_);
            throw std::runtime_error("graphviz " + engine + ": " + plugin_path + " has no " + plugin_symbol);
        }
    }
    ~Plugin() { dlclose(handle_); }
    Plugin(const Plugin&) = delete;
    Plugin& operator=(const Plugin&) = delete;
    void* library() const { return library_; }

private:
    void* handle_;
    void* library_ = nullptr;
};

class Context {
public:
    explicit Context(const Plugin& plugin)
    {
        lt_symlist_t builtins[] = {{plugin_symbol, plugin.library()}, {nullptr, nullptr}};
        gvc_ = gvContextPlugins(builtins, 0);
    }
    ~Context() { gvFreeContext(gvc_); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
    GVC_t* get() const { return gvc_; }

private:
    GVC_t* gvc_ = nullptr;
};

class Graph {
public:
    Graph() : g_(agopen(mut("fabric"), Agundirected, nullptr)) {}
    ~Graph()
    {
        if (laid_out_ != nullptr)
            gvFreeLayout(laid_out_, g_);
        agclose(g_);
    }
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    Agraph_t* get() const { return g_; }
    void laid_out_by(GVC_t* gvc) { laid_out_ = gvc; }

private:
    Agraph_t* g_;
    GVC_t* laid_out_ = nullptr;
};

// Prism's triangulation sums in an order that follows heap addresses, so
// the same input differs from run to run in the last bits (~1e-10 points);
// a hundredth of a unit is far below what a drawing shows and far above that.
double steady(double v)
{
    return std::round(v * 100) / 100;
}

std::string format_inches(double inches)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", inches);
    return buf;
}

} // namespace

Layout graphviz_layout(const Model& model, const LayoutInput& input)
{
    if (input.vertices.size() != model.nodes.size())
        throw std::invalid_argument("graphviz layout: input has " + std::to_string(input.vertices.size()) +
                                    " vertices for " + std::to_string(model.nodes.size()) + " nodes");
    // Graphviz 2.42 answers an unknown engine with a list of the known ones
    // that it never frees; only the two engines layout_input picks are asked for.
    if (input.engine != "neato" && input.engine != "sfdp")
        throw std::runtime_error("graphviz " + input.engine + ": not a layout engine of the report (neato, sfdp)");
    Layout layout;
    layout.method = input.engine;
    layout.node_spacing = graphviz_node_size;
    if (model.nodes.empty())
        return layout;

    std::lock_guard lock(graphviz_mutex);
    MessageCapture capture;
    Plugin plugin(input.engine);
    Context context(plugin);
    Graph graph;
    Agraph_t* g = graph.get();

    // Graph attributes: neato starts from classical MDS (start=self: no
    // randomness, and a torus comes out as the familiar ring of rings rather
    // than a tangle); sfdp only starts at random, from a fixed seed. Overlaps
    // removed (prism), components packed side by side, no edge routing (the
    // report draws straight lines).
    const bool neato = input.engine == "neato";
    agattr(g, AGRAPH, mut("start"), mut(neato ? "regular" : "1"));
    agattr(g, AGRAPH, mut("overlap"), mut("prism"));
    agattr(g, AGRAPH, mut("pack"), mut("true"));
    agattr(g, AGRAPH, mut("splines"), mut("none"));
    // sfdp's ideal edge length (inches); neato's default len is 1 inch too.
    agattr(g, AGRAPH, mut("K"), mut("1"));
    const std::string size = format_inches(graphviz_node_size / 72); // Graphviz sizes are in inches
    agattr(g, AGNODE, mut("shape"), mut("circle"));
    agattr(g, AGNODE, mut("fixedsize"), mut("true"));
    agattr(g, AGNODE, mut("width"), mut(size.c_str()));
    agattr(g, AGNODE, mut("height"), mut(size.c_str()));
    agattr(g, AGNODE, mut("label"), mut(""));
    // A bundle's cable count: sfdp takes it as the edge weight. neato in
    // Graphviz 2.42 leaks an array per layout once edges carry a weight, so
    // there a bundle of c cables gets a shorter ideal length instead,
    // 1/sqrt(c) inch (at least 0.5), which also draws its ends together.
    Agsym_t* strength = neato ? agattr(g, AGEDGE, mut("len"), mut("1")) : agattr(g, AGEDGE, mut("weight"), mut("1"));

    // sfdp: the hosts on a single cable stay out of the graph (placed round
    // their switch afterwards, host_placement.h), and a switch is drawn as
    // big as the ring they will sit on, so nothing else lands there. That
    // also leaves sfdp a fifth of the nodes on a fabric with four hosts a switch.
    const double min_distance = graphviz_node_size + 8; // prism's gap: 4 points a side
    std::vector<std::vector<std::size_t>> hosts_of(model.nodes.size());
    std::vector<bool> left_out(model.nodes.size(), false);
    if (!neato) {
        hosts_of = hosts_by_switch(model);
        for (const auto& hosts : hosts_of)
            for (std::size_t h : hosts)
                left_out[h] = true;
    }
    std::vector<Agnode_t*> nodes(input.vertices.size(), nullptr);
    Agsym_t* width = agattr(g, AGNODE, mut("width"), nullptr);
    Agsym_t* height = agattr(g, AGNODE, mut("height"), nullptr);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (left_out[i])
            continue;
        nodes[i] = agnode(g, mut(input.vertices[i].c_str()), 1);
        if (hosts_of[i].empty())
            continue;
        const double diameter = 2 * (host_ring_radius(hosts_of[i].size(), min_distance) + graphviz_node_size / 2 + 2);
        const std::string inches = format_inches(diameter / 72);
        agxset(nodes[i], width, mut(inches.c_str()));
        agxset(nodes[i], height, mut(inches.c_str()));
    }
    for (std::size_t i = 0; i < input.edges.size(); ++i) {
        const auto [a, b] = input.edges[i];
        if (nodes.at(a) == nullptr || nodes.at(b) == nullptr)
            continue;
        Agedge_t* e = agedge(g, nodes[a], nodes[b], nullptr, 1);
        const unsigned cables = std::max(1u, input.edge_weight.at(i));
        if (cables == 1)
            continue;
        const std::string value = neato ? format_inches(std::max(0.5, 1 / std::sqrt(static_cast<double>(cables))))
                                        : std::to_string(cables);
        agxset(e, strength, mut(value.c_str()));
    }

    // sfdp's coarsening draws from rand() before it seeds it from `start`:
    // without this the first layout in a process differs from the next ones.
    std::srand(1);
    if (gvLayout(context.get(), g, input.engine.c_str()) != 0) {
        std::string why = graphviz_messages;
        while (!why.empty() && (why.back() == '\n' || why.back() == ' '))
            why.pop_back();
        throw std::runtime_error("graphviz " + input.engine + " layout failed" + (why.empty() ? "" : ": " + why));
    }
    graph.laid_out_by(context.get());

    std::vector<Point> at(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i] != nullptr)
            at[i] = {ND_coord(nodes[i]).x, -ND_coord(nodes[i]).y}; // y down, as in SVG
    if (!neato) {
        for (std::size_t s = 0; s < hosts_of.size(); ++s)
            for (std::size_t h : hosts_of[s])
                at[h] = at[s];
        place_hosts_by_switch(model, at, min_distance);
    }

    double min_x = at[0].x, max_x = at[0].x, min_y = at[0].y, max_y = at[0].y;
    for (const Point& p : at) {
        min_x = std::min(min_x, p.x);
        max_x = std::max(max_x, p.x);
        min_y = std::min(min_y, p.y);
        max_y = std::max(max_y, p.y);
    }
    const double edge = graphviz_margin + graphviz_node_size / 2;
    layout.width = steady(max_x - min_x + 2 * edge);
    layout.height = steady(max_y - min_y + 2 * edge);
    layout.at.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        layout.at[model.nodes[i].guid] = {steady(at[i].x - min_x + edge), steady(at[i].y - min_y + edge)};
    return layout;
}

} // namespace ibsm::report
