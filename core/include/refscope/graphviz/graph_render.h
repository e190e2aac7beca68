// Drawing an extracted Subgraph with Graphviz: DOT text, PNG/SVG/PDF bytes or
// files, and laid-out positions for the app's graph scene.
//
// Graphviz (cgraph + gvc) is not thread-safe: it keeps global state (the
// error handler, string pools, plugin loading). Every call this library makes
// into it holds one process-wide mutex, graphviz_mutex(); any other code in
// the process that calls Graphviz directly must hold it too. Contexts, graphs,
// layouts and rendered buffers live in RAII holders, so they are freed on
// every path, errors included.
//
// This header names no Graphviz type: only refscope_graphviz links Graphviz.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/subgraph.h"

namespace refscope::graphviz {

// The one lock around every Graphviz call in the process.
std::mutex& graphviz_mutex();

// Graphs, layouts and rendered buffers currently held (0 between calls).
// LeakSanitizer cannot see a leaked Graphviz graph (cgraph keeps global
// pointers to it), so the tests check this count instead.
int graphviz_live_objects();

// HTML-like labels Graphviz has rejected since the process started (it then
// draws the node's internal name). The label text is escaped so that this
// stays 0; the tests and the export fuzzer check it.
int graphviz_rejected_labels();

class GraphvizError : public std::runtime_error {
public:
    enum class Kind {
        UnknownFormat,  // not png/svg/pdf/dot, or no Graphviz plugin renders it
        Layout,         // the layout engine failed (or is unknown)
        Render,         // the renderer failed
        Io,             // the output file could not be written
        Graph,          // building the graph failed (bad label, ...)
    };
    GraphvizError(Kind kind, const std::string& message)
        : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

private:
    Kind kind_;
};

enum class OutputFormat : uint8_t { Png, Svg, Pdf, Dot };

// "png", "svg", "pdf", "dot" (also "gv"), case-insensitive; throws
// GraphvizError(UnknownFormat) otherwise.
OutputFormat parse_output_format(std::string_view name);
// From a file name's extension (".png" ...), or nullopt.
std::optional<OutputFormat> output_format_for_path(const std::filesystem::path& path);
std::string_view output_format_name(OutputFormat format);

enum class RankDir : uint8_t { LeftToRight, TopToBottom };

struct RenderOptions {
    RankDir rankdir = RankDir::LeftToRight;
    // Left to right only: a retention path longer than a few objects is cut
    // into rows read like lines of text, so that the drawing has a screen's
    // shape rather than a strip's (src/graphviz/path_rows.h).
    bool wrap_long_paths = true;
    // Shown above the graph, followed by the subgraph's notes (targets with
    // no path) and a "… not shown" line when the cap was reached.
    std::string title;
    bool show_notes = true;
    double dpi = 96.0;           // PNG only
    // PNG only: a drawing that would need more pixels than this at `dpi` is
    // rendered at a lower resolution instead. PNG encoding (libpng + zlib in
    // Graphviz's cairo plugin) costs ~100 ns per pixel: 8 MP is about 1 s.
    // Big graphs read better as SVG or PDF. Sides are also kept under
    // cairo's 32767-pixel limit. 0 = only that limit.
    double max_png_pixels = 8'000'000.0;
    std::string engine = "dot";  // Graphviz layout engine
};

// DOT text of the graph, not laid out (no Graphviz layout run: fast, and the
// file re-renders with `dot -Tpng`).
std::string render_dot(const analysis::Subgraph& subgraph, const RenderOptions& options = {});

// Lays out and renders to memory: PNG/PDF bytes, SVG text, or DOT (as
// render_dot). Throws GraphvizError.
std::string render(const analysis::Subgraph& subgraph, OutputFormat format,
                   const RenderOptions& options = {});

// Renders, then writes `path` atomically (a temporary file in the same
// folder, renamed over `path`): on any error nothing is left at `path` or
// beside it, and an existing file there is untouched. Throws GraphvizError.
void render_to_file(const analysis::Subgraph& subgraph, OutputFormat format,
                    const std::filesystem::path& path, const RenderOptions& options = {});

// Positions from the `dot` layout, for a scene that draws the graph itself.
// Units are points (1/72 inch); the origin is the top-left corner and y grows
// downwards (Graphviz's own y grows upwards: flipped here).
struct Point {
    double x = 0;
    double y = 0;
};

struct NodePlacement {
    uint32_t node = 0;  // index into Subgraph::nodes
    double x = 0;       // centre
    double y = 0;
    double width = 0;
    double height = 0;
};

struct EdgePlacement {
    uint32_t edge = 0;  // index into Subgraph::edges
    // Cubic Bézier control points: p0, then three per segment.
    std::vector<Point> points;
    // Where the arrowhead's tip is, when Graphviz drew one past the spline.
    std::optional<Point> arrow_head;
    std::optional<Point> label;  // centre of the edge label
};

struct ClusterPlacement {
    uint32_t cluster = 0;  // index into Subgraph::clusters
    double x = 0;          // top-left corner
    double y = 0;
    double width = 0;
    double height = 0;
};

struct GraphLayout {
    double width = 0;
    double height = 0;
    std::vector<NodePlacement> nodes;      // one per Subgraph node, same order
    std::vector<EdgePlacement> edges;      // one per Subgraph edge, same order
    std::vector<ClusterPlacement> clusters;
};

GraphLayout compute_layout(const analysis::Subgraph& subgraph, const RenderOptions& options = {});

}  // namespace refscope::graphviz
