#include "graphviz_session.h"

#include <atomic>
#include <string>
#include <type_traits>

namespace refscope::graphviz {
namespace {

// Written by the agerr handler; only touched under graphviz_mutex().
std::string& captured() {
    static std::string text;
    return text;
}

int capture_message(char* message) {
    if (message) captured() += message;
    return 0;
}

// cgraph's I/O discipline with the channel being a std::string*: agwrite
// produces DOT straight into memory.
int no_read(void*, char*, int) { return 0; }
int append_to_string(void* channel, const char* text) {
    static_cast<std::string*>(channel)->append(text);
    return 0;
}
int no_flush(void*) { return 0; }

Agiodisc_t string_io = {no_read, append_to_string, no_flush};

std::atomic<int> live_objects{0};
std::atomic<int> rejected_labels{0};

// Graphviz 2.42-14 differ in three places; each is decided from the declared
// API itself, so no version number has to be trusted:
// - Agdisc_t lost its memory discipline (and AgMemDisc) in later releases.
//   Members are set by name and the rest left null: agopen falls back to its
//   default discipline for every null member, in every release.
// - gvRenderData's length is unsigned int* before 13 and size_t* after.
// - agstrfree gained an is_html flag.
Agdisc_t make_string_discipline() {
    Agdisc_t discipline{};
    discipline.id = &AgIdDisc;
    discipline.io = &string_io;
    return discipline;
}
Agdisc_t string_discipline = make_string_discipline();

template <typename Length>
Length render_length_type(int (*)(GVC_t*, graph_t*, const char*, char**, Length*));
using RenderLength = decltype(render_length_type(&gvRenderData));

// A template, so that only the branch the installed cgraph declares is compiled.
void free_html_string(auto* graph, char* value) {
    if constexpr (std::is_invocable_v<decltype(agstrfree), Agraph_t*, const char*, bool>)
        agstrfree(graph, value, true);
    else
        agstrfree(graph, value);
}

}  // namespace

int graphviz_live_objects() { return live_objects.load(); }

int graphviz_rejected_labels() { return rejected_labels.load(); }

std::mutex& graphviz_mutex() {
    static std::mutex mutex;
    return mutex;
}

ErrorCapture::ErrorCapture() : previous_(agseterrf(capture_message)) { captured().clear(); }

ErrorCapture::~ErrorCapture() {
    agseterrf(previous_);
    captured().clear();
}

std::string ErrorCapture::messages() const {
    std::string out;
    const std::string& text = captured();
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + start, end - start);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
        if (!line.empty()) {
            if (!out.empty()) out += "; ";
            out += line;
        }
        start = end + 1;
    }
    return out;
}

ContextHolder::ContextHolder() : context_(gvContext()) {
    if (!context_) throw GraphvizError(GraphvizError::Kind::Render, "Graphviz: gvContext failed");
}

ContextHolder::~ContextHolder() { gvFreeContext(context_); }

GVC_t* shared_context() {
    // A function-local static: built on first use (under the lock), its
    // destructor runs at exit, before LeakSanitizer's check.
    static const ContextHolder context;
    return context.get();
}

GraphHolder::GraphHolder(const char* name)
    : graph_(agopen(const_cast<char*>(name), Agdirected, &string_discipline)) {
    if (!graph_) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agopen failed");
    ++live_objects;
}

GraphHolder::~GraphHolder() {
    agclose(graph_);
    --live_objects;
}

std::string GraphHolder::write_dot() const {
    std::string out;
    if (agwrite(graph_, &out) != 0) {
        throw GraphvizError(GraphvizError::Kind::Render, "Graphviz: writing DOT failed");
    }
    return out;
}

LayoutHolder::LayoutHolder(GVC_t* context, Agraph_t* graph, const std::string& engine,
                           const ErrorCapture& errors)
    : context_(context), graph_(graph) {
    if (gvLayout(context, graph, engine.c_str()) != 0) {
        const std::string why = errors.messages();
        // Graphviz finds its layout plugins through a configuration file that
        // `dot -c` writes, which Debian runs only when the graphviz package
        // (not just the libraries) is installed.
        const bool no_plugins = why.find("not recognized") != std::string::npos;
        throw GraphvizError(GraphvizError::Kind::Layout,
                            "Graphviz layout with '" + engine + "' failed" +
                                (why.empty() ? std::string() : ": " + why) +
                                (no_plugins ? " (Graphviz's plugins are not configured: install Debian's "
                                              "graphviz package, or run `dot -c` as root)"
                                            : std::string()));
    }
    // Graphviz reports an HTML label it cannot parse ("syntax error ... in
    // label of node n3") and lays the node out with its name instead.
    const std::string warnings = errors.messages();
    for (size_t at = warnings.find("in label of"); at != std::string::npos;
         at = warnings.find("in label of", at + 1)) {
        ++rejected_labels;
    }
    ++live_objects;
}

LayoutHolder::~LayoutHolder() {
    gvFreeLayout(context_, graph_);
    --live_objects;
}

RenderedData::RenderedData(GVC_t* context, Agraph_t* graph, const char* format,
                           const ErrorCapture& errors) {
    RenderLength length = 0;
    if (gvRenderData(context, graph, format, &data_, &length) != 0 || !data_) {
        if (data_) gvFreeRenderData(data_);
        const std::string why = errors.messages();
        throw GraphvizError(GraphvizError::Kind::Render,
                            std::string("Graphviz could not render '") + format + "'" +
                                (why.empty() ? std::string() : ": " + why) +
                                " (is Debian's libgvc6 with its cairo plugin installed?)");
    }
    length_ = static_cast<size_t>(length);
    ++live_objects;
}

RenderedData::~RenderedData() {
    gvFreeRenderData(data_);
    --live_objects;
}

void set_attribute(void* object, Agsym_t* symbol, const std::string& value) {
    agxset(object, symbol, const_cast<char*>(value.c_str()));
}

void set_html_attribute(Agraph_t* graph, void* object, Agsym_t* symbol, const std::string& html) {
    char* value = agstrdup_html(graph, const_cast<char*>(html.c_str()));
    // agxset keeps its own reference (and the HTML mark); drop ours.
    agxset(object, symbol, value);
    free_html_string(graph, value);
}

Agsym_t* declare_attribute(Agraph_t* graph, int kind, const char* name, const char* default_value) {
    return agattr(graph, kind, const_cast<char*>(name), const_cast<char*>(default_value));
}

}  // namespace refscope::graphviz
