#include "refscope/graphviz/graph_render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "graphviz_session.h"
#include "path_rows.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/format/atomic_file.h"
#include "refscope/graphviz/graph_look.h"

namespace refscope::graphviz {
namespace {

using analysis::Subgraph;
using analysis::SubgraphEdge;
using analysis::SubgraphNode;

// U+FFFE and U+FFFF: valid UTF-8 (a Python str may hold them) but not XML
// characters, so the expat parser under Graphviz's HTML labels rejects them.
bool is_xml_noncharacter(std::string_view sequence) {
    return sequence == "\xEF\xBF\xBE" || sequence == "\xEF\xBF\xBF";
}

// Snapshot text is untrusted (a corrupt file, an odd type name): drop what
// would break Graphviz's UTF-8 input or its HTML-like label parser (control
// characters, invalid UTF-8 and XML non-characters → U+FFFD), then escape
// markup characters and ']'. A label Graphviz cannot parse is not an error to it:
// it silently draws the node's internal name instead.
std::string html_text(std::string_view text) {
    // Graphviz's HTML grammar has no empty text run: "<B></B>" (a type
    // named '', an empty line) is a syntax error, one space is not.
    if (text.empty()) return " ";
    std::string out;
    out.reserve(text.size() + 8);
    for (size_t pos = 0; pos < text.size();) {
        const size_t length = analysis::utf8_sequence_length(text, pos);
        if (length == 0) {
            out += "\uFFFD";
            ++pos;
            continue;
        }
        if (length > 1) {
            const std::string_view sequence = text.substr(pos, length);
            if (is_xml_noncharacter(sequence)) {
                out += "\uFFFD";
            } else {
                out.append(sequence);
            }
            pos += length;
            continue;
        }
        const char c = text[pos++];
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            // A run of text that is only ']' ("]", "]]": a type or key named
            // so) is a syntax error to Graphviz's HTML lexer (2.42 at least);
            // the character reference never is.
            case ']': out += "&#93;"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
                    out += "\uFFFD";
                } else {
                    out += c;
                }
        }
    }
    return out;
}

// Plain (non-HTML) attribute values such as tooltips are "escString"s in
// which Graphviz expands \N, \G, \n...: a literal backslash must be doubled.
std::string escaped_plain(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            out += ' ';
            continue;
        }
        out += c;
    }
    // Same UTF-8 hygiene as labels; escaping added no non-ASCII bytes.
    std::string clean;
    for (size_t pos = 0; pos < out.size();) {
        const size_t length = analysis::utf8_sequence_length(out, pos);
        if (length == 0) {
            clean += "\uFFFD";
            ++pos;
        } else {
            clean.append(out, pos, length);
            pos += length;
        }
    }
    return clean;
}

std::string font_colour(ColourRole role, const std::string& html) {
    return std::string("<FONT COLOR=\"") + export_colour(role) + "\">" + html + "</FONT>";
}

// "2", "2.5": penwidth values as DOT writes them.
std::string points(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

std::string node_label(const SubgraphNode& n) {
    std::string html = "<B>" + html_text(n.lines.empty() ? std::string("?") : n.lines[0]) + "</B>";
    for (size_t i = 1; i < n.lines.size(); ++i) {
        const std::string& line = n.lines[i];
        html += "<BR/>";
        switch (node_line_kind(i, line)) {
            case NodeLineKind::Invisible:
                html += font_colour(ColourRole::InvisibleLine, html_text(line));
                break;
            case NodeLineKind::Root:
                html += font_colour(ColourRole::RootLine, html_text(line));
                break;
            default:
                html += html_text(line);
        }
    }
    return html;
}

// Symbols of every attribute the renderer sets, declared on the root graph
// with their defaults so that DOT output carries them as `node [...]` lines.
struct Attributes {
    Agsym_t* graph_label;
    Agsym_t* cluster_style;
    Agsym_t* cluster_color;
    Agsym_t* cluster_fill;
    Agsym_t* node_label;
    Agsym_t* node_shape;
    Agsym_t* node_style;
    Agsym_t* node_fill;
    Agsym_t* node_color;
    Agsym_t* node_penwidth;
    Agsym_t* node_peripheries;
    Agsym_t* node_tooltip;
    Agsym_t* edge_label;
    Agsym_t* edge_xlabel;
    Agsym_t* edge_style;
    Agsym_t* edge_color;
    Agsym_t* edge_fontcolor;
    Agsym_t* edge_penwidth;
    Agsym_t* edge_tooltip;
    Agsym_t* edge_arrowhead;
    // Declared only for a wrapped drawing (null otherwise): wrap_path.
    Agsym_t* edge_minlen;
    Agsym_t* edge_weight;
    Agsym_t* edge_constraint;
    Agsym_t* graph_rank;
};

// `wrapped`: a long path drawn in rows (wrap_path), laid out top to bottom
// with room between a row's objects for the hops' xlabels; the attributes
// only rows use are declared only then, so other drawings' DOT stays short.
Attributes declare_attributes(Agraph_t* g, const RenderOptions& options, bool wrapped) {
    const RankDir rankdir = wrapped ? RankDir::TopToBottom : options.rankdir;
    declare_attribute(g, AGRAPH, "rankdir", rankdir == RankDir::LeftToRight ? "LR" : "TB");
    declare_attribute(g, AGRAPH, "fontname", "Helvetica");
    declare_attribute(g, AGRAPH, "fontsize", "12");
    declare_attribute(g, AGRAPH, "labelloc", "t");
    declare_attribute(g, AGRAPH, "labeljust", "l");
    declare_attribute(g, AGRAPH, "nodesep", wrapped ? "0.8" : "0.25");
    declare_attribute(g, AGRAPH, "ranksep", "0.5");
    // Bounds on dot's iterative phases, so that no drawing can make the
    // layout run away (a long path with a hub every node points at took
    // over ten minutes without them): network simplex iterations per node
    // (ranking and x-coordinates), crossing-minimisation passes, the
    // simplex's search size. A layout that stops early is less tidy, not
    // wrong. docs/graphviz.md, "Bounded layout".
    declare_attribute(g, AGRAPH, "nslimit", "2");
    declare_attribute(g, AGRAPH, "nslimit1", "2");
    declare_attribute(g, AGRAPH, "mclimit", "0.3");
    declare_attribute(g, AGRAPH, "searchsize", "20");
    declare_attribute(g, AGRAPH, "bgcolor", "white");
    declare_attribute(g, AGRAPH, "dpi", std::to_string(static_cast<int>(options.dpi)).c_str());
    Attributes a{};
    a.graph_label = declare_attribute(g, AGRAPH, "label", "");
    a.cluster_style = declare_attribute(g, AGRAPH, "style", "");
    a.cluster_color = declare_attribute(g, AGRAPH, "color", "black");
    a.cluster_fill = declare_attribute(g, AGRAPH, "fillcolor", "white");

    declare_attribute(g, AGNODE, "fontname", "Helvetica");
    declare_attribute(g, AGNODE, "fontsize", "10");
    a.node_label = declare_attribute(g, AGNODE, "label", "\\N");
    a.node_shape = declare_attribute(g, AGNODE, "shape", "box");
    a.node_style = declare_attribute(g, AGNODE, "style", "rounded,filled");
    a.node_fill = declare_attribute(g, AGNODE, "fillcolor", export_colour(ColourRole::PlainFill));
    a.node_color = declare_attribute(g, AGNODE, "color", export_colour(ColourRole::PlainBorder));
    a.node_penwidth = declare_attribute(g, AGNODE, "penwidth", "1");
    a.node_peripheries = declare_attribute(g, AGNODE, "peripheries", "1");
    a.node_tooltip = declare_attribute(g, AGNODE, "tooltip", "");

    declare_attribute(g, AGEDGE, "fontname", "Helvetica");
    declare_attribute(g, AGEDGE, "fontsize", "9");
    a.edge_label = declare_attribute(g, AGEDGE, "label", "");
    a.edge_xlabel = declare_attribute(g, AGEDGE, "xlabel", "");
    a.edge_style = declare_attribute(g, AGEDGE, "style", "solid");
    a.edge_color = declare_attribute(g, AGEDGE, "color", export_colour(ColourRole::Edge));
    a.edge_fontcolor =
        declare_attribute(g, AGEDGE, "fontcolor", export_colour(ColourRole::EdgeLabel));
    a.edge_penwidth = declare_attribute(g, AGEDGE, "penwidth", "1");
    a.edge_tooltip = declare_attribute(g, AGEDGE, "tooltip", "");
    a.edge_arrowhead = declare_attribute(g, AGEDGE, "arrowhead", "normal");
    if (wrapped) {
        a.edge_minlen = declare_attribute(g, AGEDGE, "minlen", "1");
        a.edge_weight = declare_attribute(g, AGEDGE, "weight", "1");
        a.edge_constraint = declare_attribute(g, AGEDGE, "constraint", "true");
        a.graph_rank = declare_attribute(g, AGRAPH, "rank", "");
    }
    return a;
}

// Only what differs from the declared defaults (a plain node) is set, so the
// DOT text stays short.
void style_node(Agraph_t* g, Agnode_t* gn, const SubgraphNode& n, const Attributes& a) {
    set_html_attribute(g, gn, a.node_label, node_label(n));
    set_attribute(gn, a.node_tooltip, escaped_plain(n.tooltip));
    const NodeLook look = node_look(n);
    switch (look.shape) {
        case NodeShape::RoundedBox: break;
        case NodeShape::Folder: set_attribute(gn, a.node_shape, "folder"); break;
        // Only roots are octagons, always with two outlines.
        case NodeShape::Octagon: set_attribute(gn, a.node_shape, "doubleoctagon"); break;
    }
    if (look.shape != NodeShape::RoundedBox) {
        set_attribute(gn, a.node_style, look.bold ? "filled,bold" : "filled");
    }
    if (look.fill != ColourRole::PlainFill) set_attribute(gn, a.node_fill, export_colour(look.fill));
    if (look.border != ColourRole::PlainBorder) {
        set_attribute(gn, a.node_color, export_colour(look.border));
    }
    if (look.pen_width != 1.0) set_attribute(gn, a.node_penwidth, points(look.pen_width));
    // Also for the doubleoctagon: the graph-wide default of one outline would
    // otherwise override the shape's own second outline.
    if (look.peripheries != 1) {
        set_attribute(gn, a.node_peripheries, std::to_string(look.peripheries));
    }
}

// `crosses_cluster`: Graphviz 2.42's dot double-frees in gvFreeLayout when
// an edge with a `label` leaves a cluster (labels become virtual nodes that
// its cluster code frees twice). Such edges get an `xlabel` instead, placed
// after layout, which takes no part in ranking.
void style_edge(Agraph_t* g, Agedge_t* ge, const SubgraphEdge& e, const Attributes& a,
                bool crosses_cluster) {
    // Wrapped in a tag: cgraph 2.42 shares one string pool between HTML and
    // plain values, so an HTML "x" and a plain tooltip "x" would be one string
    // (and one kind). A tag makes HTML values differ from any plain one.
    if (!e.label.empty()) {
        set_html_attribute(g, ge, crosses_cluster ? a.edge_xlabel : a.edge_label,
                           "<I>" + html_text(e.label) + "</I>");
    }
    const EdgeLook look = edge_look(e);
    if (look.colour != ColourRole::Edge) set_attribute(ge, a.edge_color, export_colour(look.colour));
    if (look.label_colour != ColourRole::EdgeLabel) {
        set_attribute(ge, a.edge_fontcolor, export_colour(look.label_colour));
    }
    if (look.pen_width != 1.0) set_attribute(ge, a.edge_penwidth, points(look.pen_width));
    switch (look.line) {
        case LineStyle::Solid: break;
        case LineStyle::Dotted: set_attribute(ge, a.edge_style, "dotted"); break;
        case LineStyle::Dashed:
            set_attribute(ge, a.edge_style, look.bold ? "dashed,bold" : "dashed");
            break;
    }
    if (look.hollow_arrow) set_attribute(ge, a.edge_arrowhead, "empty");
    if (e.gc_invisible) {
        set_attribute(ge, a.edge_tooltip,
                      "GC cannot see: an owned reference that tp_traverse does not report");
    } else if (e.weak) {
        set_attribute(ge, a.edge_tooltip, "weak reference: keeps nothing alive");
    }
}

std::string graph_caption(const Subgraph& subgraph, const RenderOptions& options) {
    std::vector<std::string> lines;
    if (!options.title.empty()) lines.push_back(options.title);
    if (options.show_notes) {
        for (const std::string& note : subgraph.notes) lines.push_back(note);
        if (subgraph.truncated) {
            lines.push_back(analysis::with_thousands(subgraph.omitted_nodes) +
                            " more neighbours not shown (node cap reached)");
        }
    }
    std::string html;
    for (const std::string& line : lines) {
        if (!html.empty()) html += "<BR ALIGN=\"LEFT\"/>";
        html += html_text(line);
    }
    if (!html.empty()) html += "<BR ALIGN=\"LEFT\"/>";
    return html;
}

// The Graphviz objects made for one Subgraph, in Subgraph order.
struct BuiltGraph {
    std::vector<Agnode_t*> nodes;
    std::vector<Agedge_t*> edges;
    std::vector<Agraph_t*> clusters;
};

// A long path's rows (path_rows.h): each row one rank, the hop from a row's
// end to the next row's start two ranks long.
void wrap_path(Agraph_t* g, const std::vector<std::vector<uint32_t>>& rows, const BuiltGraph& built,
               const Subgraph& subgraph, const Attributes& a) {
    std::vector<uint32_t> row_of(built.nodes.size(), kNoRow);
    for (size_t r = 0; r < rows.size(); ++r) {
        const std::string name = "row_" + std::to_string(r);
        Agraph_t* sub = agsubg(g, const_cast<char*>(name.c_str()), 1);
        if (!sub) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agsubg failed");
        set_attribute(sub, a.graph_rank, "same");
        for (const uint32_t i : rows[r]) {
            agsubnode(sub, built.nodes[i], 1);
            row_of[i] = static_cast<uint32_t>(r);
        }
    }
    // dot straightens edges: left alone it puts each row's start under the
    // last row's end, a staircase. An invisible, heavy edge between the rows'
    // starts lines them up on the left; the real hop from a row's end to the
    // next row's start pulls nothing (weight 0).
    for (size_t r = 1; r < rows.size(); ++r) {
        Agedge_t* align = agedge(g, built.nodes[rows[r - 1].front()], built.nodes[rows[r].front()], nullptr, 1);
        if (!align) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agedge failed");
        set_attribute(align, a.edge_style, "invis");
        set_attribute(align, a.edge_weight, "100");
        set_attribute(align, a.edge_minlen, "2");
    }
    for (size_t i = 0; i < subgraph.edges.size(); ++i) {
        const SubgraphEdge& e = subgraph.edges[i];
        const bool hop = e.on_path && row_of[e.from] != kNoRow && row_of[e.to] != kNoRow;
        if (hop && row_of[e.to] == row_of[e.from] + 1) {
            set_attribute(built.edges[i], a.edge_minlen, "2");
            set_attribute(built.edges[i], a.edge_weight, "0");
        } else if (!hop && row_of[e.to] != kNoRow) {
            // Only the rows rank the path's objects. Any other reference into
            // one (a back pointer, a referrer, a shortcut) would rank its
            // source above that row, and through it pull a later row above an
            // earlier one; it is drawn but does not constrain. References out
            // of a row still put their targets below it.
            set_attribute(built.edges[i], a.edge_constraint, "false");
        }
    }
}

BuiltGraph build_graph(Agraph_t* g, const Subgraph& subgraph, const RenderOptions& options) {
    // Only the default left-to-right drawing wraps: a caller asking for top
    // to bottom gets exactly that.
    const std::vector<std::vector<uint32_t>> rows =
        options.rankdir == RankDir::LeftToRight && options.wrap_long_paths ? path_rows(subgraph)
                                                                           : std::vector<std::vector<uint32_t>>{};
    const Attributes a = declare_attributes(g, options, !rows.empty());
    if (const std::string caption = graph_caption(subgraph, options); !caption.empty()) {
        set_html_attribute(g, g, a.graph_label, caption);
    }

    BuiltGraph built;
    for (size_t c = 0; c < subgraph.clusters.size(); ++c) {
        const std::string name = "cluster_" + std::to_string(c);
        Agraph_t* sub = agsubg(g, const_cast<char*>(name.c_str()), 1);
        if (!sub) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agsubg failed");
        set_html_attribute(g, sub, a.graph_label, "<B>" + html_text(subgraph.clusters[c].label) + "</B>");
        set_attribute(sub, a.cluster_style, "rounded,filled");
        set_attribute(sub, a.cluster_color, export_colour(ColourRole::ClusterBorder));
        set_attribute(sub, a.cluster_fill, export_colour(ColourRole::ClusterFill));
        built.clusters.push_back(sub);
    }

    for (size_t i = 0; i < subgraph.nodes.size(); ++i) {
        const SubgraphNode& n = subgraph.nodes[i];
        // Node names are stable and readable in DOT: n<index>.
        const std::string name = "n" + std::to_string(i);
        Agnode_t* gn = agnode(g, const_cast<char*>(name.c_str()), 1);
        if (!gn) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agnode failed");
        if (n.cluster < built.clusters.size()) agsubnode(built.clusters[n.cluster], gn, 1);
        style_node(g, gn, n, a);
        built.nodes.push_back(gn);
    }
    for (const SubgraphEdge& e : subgraph.edges) {
        if (e.from >= built.nodes.size() || e.to >= built.nodes.size()) {
            throw GraphvizError(GraphvizError::Kind::Graph, "subgraph edge names a missing node");
        }
        // Anonymous edges: a multigraph keeps parallel edges apart.
        Agedge_t* ge = agedge(g, built.nodes[e.from], built.nodes[e.to], nullptr, 1);
        if (!ge) throw GraphvizError(GraphvizError::Kind::Graph, "Graphviz: agedge failed");
        const bool crosses_cluster = !subgraph.clusters.empty() &&
                                     subgraph.nodes[e.from].cluster != subgraph.nodes[e.to].cluster;
        // Wrapped rows: a label is a virtual node in dot's ranking, and 2.42
        // corrupts its heap on labelled edges among rank=same rows (random
        // paths with back references crashed); an xlabel takes no part.
        style_edge(g, ge, e, a, crosses_cluster || !rows.empty());
        built.edges.push_back(ge);
    }
    if (!rows.empty()) wrap_path(g, rows, built, subgraph, a);
    return built;
}

const char* graphviz_format(OutputFormat format) {
    switch (format) {
        case OutputFormat::Png: return "png";
        case OutputFormat::Svg: return "svg";
        case OutputFormat::Pdf: return "pdf";
        case OutputFormat::Dot: return "dot";
    }
    return "?";
}

// Writes `bytes` through an AtomicFile: a reader never sees half a picture,
// and a failure leaves what was at `path` untouched.
void write_atomically(const std::filesystem::path& path, std::string_view bytes) {
    try {
        format::AtomicFile file(path.string());
        file.write(bytes.data(), bytes.size());
        file.commit();
    } catch (const format::AtomicFileError& e) {
        throw GraphvizError(GraphvizError::Kind::Io, e.what());
    }
}

// The size is only known after layout, and the "size"/"dpi" attributes are
// read before it; the renderer takes its resolution from the layout's
// drawing record, so that is where a lower one goes.
void limit_png_resolution(Agraph_t* g, const RenderOptions& options) {
    layout_t* drawing = GD_drawing(g);
    if (!drawing) return;
    const boxf bb = GD_bb(g);
    const double dpi = drawing->dpi > 0 ? drawing->dpi : options.dpi;
    const double width = std::max(1.0, (bb.UR.x - bb.LL.x) * dpi / 72.0);
    const double height = std::max(1.0, (bb.UR.y - bb.LL.y) * dpi / 72.0);
    double scale = std::min(1.0, 32000.0 / std::max(width, height));
    if (options.max_png_pixels > 0) {
        scale = std::min(scale, std::sqrt(options.max_png_pixels / (width * height)));
    }
    if (scale < 1.0) drawing->dpi = dpi * scale;
}

}  // namespace

OutputFormat parse_output_format(std::string_view name) {
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lower == "png") return OutputFormat::Png;
    if (lower == "svg") return OutputFormat::Svg;
    if (lower == "pdf") return OutputFormat::Pdf;
    if (lower == "dot" || lower == "gv") return OutputFormat::Dot;
    throw GraphvizError(GraphvizError::Kind::UnknownFormat,
                        "unknown output format '" + std::string(name) +
                            "' (expected png, svg, pdf or dot)");
}

std::optional<OutputFormat> output_format_for_path(const std::filesystem::path& path) {
    std::string extension = path.extension().string();
    if (extension.size() < 2) return std::nullopt;
    try {
        return parse_output_format(std::string_view(extension).substr(1));
    } catch (const GraphvizError&) {
        return std::nullopt;
    }
}

std::string_view output_format_name(OutputFormat format) { return graphviz_format(format); }

std::string render_dot(const Subgraph& subgraph, const RenderOptions& options) {
    const std::lock_guard lock(graphviz_mutex());
    const ErrorCapture errors;
    const GraphHolder graph("refscope");
    build_graph(graph.get(), subgraph, options);
    return graph.write_dot();
}

std::string render(const Subgraph& subgraph, OutputFormat format, const RenderOptions& options) {
    if (format == OutputFormat::Dot) return render_dot(subgraph, options);
    const std::lock_guard lock(graphviz_mutex());
    const ErrorCapture errors;
    // Declaration order is release order reversed: data, layout, graph.
    GVC_t* context = shared_context();
    const GraphHolder graph("refscope");
    build_graph(graph.get(), subgraph, options);
    const LayoutHolder layout(context, graph.get(), options.engine, errors);
    if (format == OutputFormat::Png) limit_png_resolution(graph.get(), options);
    const RenderedData data(context, graph.get(), graphviz_format(format), errors);
    return std::string(data.view());
}

void render_to_file(const Subgraph& subgraph, OutputFormat format,
                    const std::filesystem::path& path, const RenderOptions& options) {
    if (path.empty()) throw GraphvizError(GraphvizError::Kind::Io, "no output path given");
    // Rendered in memory first (under the lock); the file I/O needs no lock.
    const std::string bytes = render(subgraph, format, options);
    write_atomically(path, bytes);
}

GraphLayout compute_layout(const Subgraph& subgraph, const RenderOptions& options) {
    const std::lock_guard lock(graphviz_mutex());
    const ErrorCapture errors;
    GVC_t* context = shared_context();
    const GraphHolder graph("refscope");
    const BuiltGraph built = build_graph(graph.get(), subgraph, options);
    const LayoutHolder layout(context, graph.get(), options.engine, errors);

    Agraph_t* g = graph.get();
    const boxf bb = GD_bb(g);
    GraphLayout out;
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    const auto flip = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };

    for (size_t i = 0; i < built.nodes.size(); ++i) {
        Agnode_t* n = built.nodes[i];
        const Point centre = flip(ND_coord(n));
        out.nodes.push_back({static_cast<uint32_t>(i), centre.x, centre.y, ND_width(n) * 72.0,
                             ND_height(n) * 72.0});
    }
    for (size_t i = 0; i < built.edges.size(); ++i) {
        Agedge_t* e = built.edges[i];
        EdgePlacement placement;
        placement.edge = static_cast<uint32_t>(i);
        if (const splines* spl = ED_spl(e); spl && spl->size > 0) {
            // dot draws one Bézier per edge (several only with concentrate=true).
            // The counts are int before Graphviz 13 and size_t after.
            for (decltype(spl->size) b = 0; b < spl->size; ++b) {
                const bezier& curve = spl->list[b];
                for (decltype(curve.size) p = 0; p < curve.size; ++p)
                    placement.points.push_back(flip(curve.list[p]));
                if (curve.eflag) placement.arrow_head = flip(curve.ep);
            }
        }
        if (const textlabel_t* label = ED_label(e); label && label->set) {
            placement.label = flip(label->pos);
        } else if (const textlabel_t* xlabel = ED_xlabel(e); xlabel && xlabel->set) {
            placement.label = flip(xlabel->pos);
        }
        out.edges.push_back(std::move(placement));
    }
    for (size_t i = 0; i < built.clusters.size(); ++i) {
        const boxf cb = GD_bb(built.clusters[i]);
        out.clusters.push_back({static_cast<uint32_t>(i), cb.LL.x - bb.LL.x, bb.UR.y - cb.UR.y,
                                cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y});
    }
    return out;
}

}  // namespace refscope::graphviz
