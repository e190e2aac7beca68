// How the graph view draws nodes, edges and clusters: the rules (shape,
// outline, colour role; which flag wins) are core's graph_look.h, the same
// table the Graphviz export (graph_render.cpp) reads, so the picture on
// screen and the exported file agree. In a light theme the colours are the
// export's (graphviz::export_colour); in a dark theme (the palette's base
// colour is dark) each role has a dark counterpart of the same hue, so text
// stays readable.
#pragma once

#include <QColor>
#include <QPalette>
#include <Qt>

#include "refscope/analysis/subgraph.h"
#include "refscope/graphviz/graph_look.h"

namespace refscope::app {

struct GraphColours {
    bool dark = false;
    QColor background;
    QColor text;  // node text on a plain fill
    QColor clusterText;
    QColor selection;
    // One per graphviz::ColourRole (colour() maps a role to its member).
    QColor plainFill, plainBorder;
    QColor groupFill;
    QColor pathFill;
    QColor rootFill, rootBorder;
    QColor suspectFill, suspectBorder;
    QColor holderBorder;
    QColor targetFill, targetBorder;
    QColor rootLine;       // "root: …" lines in a node
    QColor invisibleLine;  // "N references the GC cannot see"
    QColor clusterFill, clusterBorder;
    QColor edge, pathEdge, borrowedEdge, weakEdge, invisibleEdge;
    QColor edgeLabel;

    // Light colours unless the palette's base (the view's background) is dark.
    static GraphColours fromPalette(const QPalette& palette);
    const QColor& colour(graphviz::ColourRole role) const;
};

using graphviz::NodeShape;

// What a node looks like: graphviz::node_look in this palette's colours.
struct NodeStyle {
    NodeShape shape = NodeShape::RoundedBox;
    QColor fill;
    QColor border;
    double borderWidth = 1.0;   // points
    bool bold = false;          // roots: a heavier outline
    bool doubleBorder = false;  // roots and holders (Graphviz's peripheries=2)
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
