// How the graph view draws nodes, edges and clusters: the same rules as the
// Graphviz export (core/src/graphviz/graph_render.cpp, style_node/style_edge),
// so the picture on screen and the exported file agree. In a light theme the
// colours are the export's; in a dark theme (the palette's base colour is
// dark) each has a dark counterpart of the same hue, so text stays readable.
#pragma once

#include <QColor>
#include <QPalette>
#include <Qt>

#include "refscope/analysis/subgraph.h"

namespace refscope::app {

struct GraphColours {
    bool dark = false;
    QColor background;
    QColor text;  // node text on a plain fill
    QColor plainFill, plainBorder;
    QColor groupFill;
    QColor pathFill;
    QColor rootFill, rootBorder;
    QColor suspectFill, suspectBorder;
    QColor holderBorder;
    QColor targetFill, targetBorder;
    QColor rootLine;       // "root: …" lines in a node
    QColor invisibleLine;  // "N references the GC cannot see"
    QColor clusterFill, clusterBorder, clusterText;
    QColor edge, pathEdge, borrowedEdge, weakEdge, invisibleEdge;
    QColor edgeLabel;
    QColor selection;

    // Light colours unless the palette's base (the view's background) is dark.
    static GraphColours fromPalette(const QPalette& palette);
};

enum class NodeShape { RoundedBox, Octagon, Folder };

// What a node looks like. Later rules win, as in the export: a target that is
// also a root keeps the root's shape and gets the target's fill.
struct NodeStyle {
    NodeShape shape = NodeShape::RoundedBox;
    QColor fill;
    QColor border;
    double borderWidth = 1.0;   // points
    bool bold = false;          // roots: a heavier outline
    bool doubleBorder = false;  // holders (Graphviz's peripheries=2)
};

NodeStyle node_style(const analysis::SubgraphNode& node, const GraphColours& colours);

struct EdgeStyle {
    QColor colour;
    QColor labelColour;
    double width = 1.0;  // points
    Qt::PenStyle penStyle = Qt::SolidLine;
    bool hollowArrow = false;  // references that keep nothing alive
};

EdgeStyle edge_style(const analysis::SubgraphEdge& edge, const GraphColours& colours);

}  // namespace refscope::app
