// How a drawn subgraph looks, by meaning: which shape, outline and colour
// role each node and edge gets from its flags, and which colour each role has
// in the exported drawing. One table for both pictures refscope draws:
//  - the Graphviz export (graph_render.cpp turns a look into DOT attributes
//    and export_colour's values);
//  - the desktop app's graph view (app/gui/graph/graph_style.cpp maps the
//    roles to its light palette, which is export_colour's, or a dark one).
// So the rules (and which flag wins) are written once. Names no Qt or
// Graphviz type.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "refscope/analysis/subgraph.h"

namespace refscope::graphviz {

// Every colour the drawing uses, named by what it marks.
enum class ColourRole : uint8_t {
    PlainFill,
    PlainBorder,
    GroupFill,
    PathFill,
    RootFill,
    RootBorder,
    SuspectFill,
    SuspectBorder,
    HolderBorder,
    TargetFill,
    TargetBorder,
    RootLine,       // "root: …" lines in a node
    InvisibleLine,  // "N references the GC cannot see" lines in a node
    ClusterFill,
    ClusterBorder,
    Edge,
    PathEdge,
    BorrowedEdge,
    WeakEdge,
    InvisibleEdge,
    EdgeLabel,
};
inline constexpr size_t kColourRoleCount = static_cast<size_t>(ColourRole::EdgeLabel) + 1;

// The export's colour for `role`: "#rrggbb", for a drawing on white.
const char* export_colour(ColourRole role);

enum class NodeShape : uint8_t { RoundedBox, Octagon, Folder };

// Later rules win: a target that is also a root keeps the root's shape and
// gets the target's fill.
struct NodeLook {
    NodeShape shape = NodeShape::RoundedBox;
    ColourRole fill = ColourRole::PlainFill;
    ColourRole border = ColourRole::PlainBorder;
    double pen_width = 1.0;  // points
    bool bold = false;       // roots: a heavier outline
    int peripheries = 1;     // roots and holders: a double outline
};

NodeLook node_look(const analysis::SubgraphNode& node);

enum class LineStyle : uint8_t { Solid, Dotted, Dashed };

struct EdgeLook {
    ColourRole colour = ColourRole::Edge;
    ColourRole label_colour = ColourRole::EdgeLabel;
    LineStyle line = LineStyle::Solid;
    double pen_width = 1.0;     // points
    bool bold = false;          // a GC-invisible reference on a retention path
    bool hollow_arrow = false;  // references that keep nothing alive
};

EdgeLook edge_look(const analysis::SubgraphEdge& edge);

// What a line of SubgraphNode::lines is, for its colour: lines[0] is the
// title (bold); root labels and "references the GC cannot see" notes are
// coloured (RootLine, InvisibleLine); the rest is plain text.
enum class NodeLineKind : uint8_t { Title, Plain, Root, Invisible };

NodeLineKind node_line_kind(size_t index, std::string_view line);

}  // namespace refscope::graphviz
