// The RAII side of talking to Graphviz: one session = the process-wide lock,
// a captured error log, a GVC_t context, one graph, its layout and rendered
// buffers, all released in reverse order whatever happens in between.
//
// Private to refscope_graphviz: only this library includes Graphviz headers.
#pragma once

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>
#include <string>
#include <string_view>

#include "refscope/graphviz/graph_render.h"

namespace refscope::graphviz {

// While alive, Graphviz errors and warnings (agerr) go into `messages()`
// instead of stderr; the previous handler is restored on destruction. Only
// valid under graphviz_mutex(): the handler is a process global.
class ErrorCapture {
public:
    ErrorCapture();
    ~ErrorCapture();
    ErrorCapture(const ErrorCapture&) = delete;
    ErrorCapture& operator=(const ErrorCapture&) = delete;
    // What Graphviz reported since construction, trimmed, lines joined by "; ".
    std::string messages() const;

private:
    agusererrf previous_;
};

class ContextHolder {
public:
    ContextHolder();  // throws GraphvizError(Render) when gvContext fails
    ~ContextHolder();
    ContextHolder(const ContextHolder&) = delete;
    ContextHolder& operator=(const ContextHolder&) = delete;
    GVC_t* get() const { return context_; }

private:
    GVC_t* context_;
};

// The process's one GVC_t, made on first use, freed at exit. Not one per
// render: Graphviz 2.42's pango plugin caches a pointer to the last font
// name it measured, which lives in the context's font dictionary, and
// compares against it in the next context — a use after free once the first
// context is gone (found by ASan). One long-lived context keeps that pointer
// valid. Call under graphviz_mutex().
GVC_t* shared_context();

class GraphHolder {
public:
    // A directed graph whose agwrite() appends to the std::string passed as
    // its channel (a custom I/O discipline: no FILE*, no temporary file).
    explicit GraphHolder(const char* name);
    ~GraphHolder();
    GraphHolder(const GraphHolder&) = delete;
    GraphHolder& operator=(const GraphHolder&) = delete;
    Agraph_t* get() const { return graph_; }
    std::string write_dot() const;

private:
    Agraph_t* graph_;
};

// gvLayout on construction, gvFreeLayout on destruction (only if it worked).
class LayoutHolder {
public:
    LayoutHolder(GVC_t* context, Agraph_t* graph, const std::string& engine,
                 const ErrorCapture& errors);
    ~LayoutHolder();
    LayoutHolder(const LayoutHolder&) = delete;
    LayoutHolder& operator=(const LayoutHolder&) = delete;

private:
    GVC_t* context_;
    Agraph_t* graph_;
};

// gvRenderData's buffer, released with gvFreeRenderData.
class RenderedData {
public:
    RenderedData(GVC_t* context, Agraph_t* graph, const char* format, const ErrorCapture& errors);
    ~RenderedData();
    RenderedData(const RenderedData&) = delete;
    RenderedData& operator=(const RenderedData&) = delete;
    std::string_view view() const { return {data_, length_}; }

private:
    char* data_ = nullptr;
    size_t length_ = 0;
};

// Attribute setting with the const_casts cgraph's char* API needs in one place.
void set_attribute(void* object, Agsym_t* symbol, const std::string& value);
// An HTML-like label value (`<...>` in DOT): the text is parsed as markup.
void set_html_attribute(Agraph_t* graph, void* object, Agsym_t* symbol, const std::string& html);
Agsym_t* declare_attribute(Agraph_t* graph, int kind, const char* name, const char* default_value);

}  // namespace refscope::graphviz
