#include "graph/graph_style.h"

#include <algorithm>

#include "models/text_colours.h"
namespace refscope::app {
namespace {

using graphviz::ColourRole;

// The member of GraphColours that holds `role`'s colour.
QColor GraphColours::*member_for(ColourRole role) {
    switch (role) {
        case ColourRole::PlainFill: return &GraphColours::plainFill;
        case ColourRole::PlainBorder: return &GraphColours::plainBorder;
        case ColourRole::GroupFill: return &GraphColours::groupFill;
        case ColourRole::PathFill: return &GraphColours::pathFill;
        case ColourRole::RootFill: return &GraphColours::rootFill;
        case ColourRole::RootBorder: return &GraphColours::rootBorder;
        case ColourRole::SuspectFill: return &GraphColours::suspectFill;
        case ColourRole::SuspectBorder: return &GraphColours::suspectBorder;
        case ColourRole::HolderBorder: return &GraphColours::holderBorder;
        case ColourRole::TargetFill: return &GraphColours::targetFill;
        case ColourRole::TargetBorder: return &GraphColours::targetBorder;
        case ColourRole::RootLine: return &GraphColours::rootLine;
        case ColourRole::InvisibleLine: return &GraphColours::invisibleLine;
        case ColourRole::ClusterFill: return &GraphColours::clusterFill;
        case ColourRole::ClusterBorder: return &GraphColours::clusterBorder;
        case ColourRole::Edge: return &GraphColours::edge;
        case ColourRole::PathEdge: return &GraphColours::pathEdge;
        case ColourRole::BorrowedEdge: return &GraphColours::borrowedEdge;
        case ColourRole::WeakEdge: return &GraphColours::weakEdge;
        case ColourRole::InvisibleEdge: return &GraphColours::invisibleEdge;
        case ColourRole::EdgeLabel: return &GraphColours::edgeLabel;
    }
    return &GraphColours::plainBorder;
}

}  // namespace

const QColor& GraphColours::colour(ColourRole role) const { return this->*member_for(role); }

GraphColours GraphColours::fromPalette(const QPalette& palette) {
    GraphColours c;
    c.dark = is_dark_palette(palette);
    c.selection = palette.color(QPalette::Highlight);
    if (!c.dark) {
        // The Graphviz export's colours.
        c.background = QColor(Qt::white);
        c.text = QColor(Qt::black);
        c.clusterText = QColor(Qt::black);
        for (size_t role = 0; role < graphviz::kColourRoleCount; ++role) {
            const auto r = static_cast<ColourRole>(role);
            c.*member_for(r) = QColor(QLatin1String(graphviz::export_colour(r)));
        }
    } else {
        // Same hues, dark fills and light strokes: the same meaning at a
        // glance, readable on a dark background.
        c.background = palette.color(QPalette::Base);
        c.text = QColor(0xe8e8e8);
        c.plainFill = QColor(0x3a3a3a);
        c.plainBorder = QColor(0xa0a0a0);
        c.groupFill = QColor(0x4a4a4a);
        c.pathFill = QColor(0x263750);
        c.rootFill = QColor(0x1f3a5f);
        c.rootBorder = QColor(0x7fb0ff);
        c.suspectFill = QColor(0x5a3d12);
        c.suspectBorder = QColor(0xffa040);
        c.holderBorder = QColor(0xff5c6c);
        c.targetFill = QColor(0x6b2226);
        c.targetBorder = QColor(0xff5c6c);
        c.rootLine = QColor(0x9cc3ff);
        c.invisibleLine = QColor(0xff8a8a);
        c.clusterFill = c.background.lighter(125);
        c.clusterBorder = QColor(0x707070);
        c.clusterText = QColor(0xe0e0e0);
        c.edge = QColor(0xb8b8b8);
        c.pathEdge = QColor(0x7fb0ff);
        c.borrowedEdge = QColor(0x7a7a7a);
        c.weakEdge = QColor(0x8a8a8a);
        c.invisibleEdge = QColor(0xff4d4d);
        c.edgeLabel = QColor(0xcfcfcf);
    }
    return c;
}

NodeStyle node_style(const analysis::SubgraphNode& n, const GraphColours& c) {
    const graphviz::NodeLook look = graphviz::node_look(n);
    NodeStyle s;
    s.shape = look.shape;
    s.fill = c.colour(look.fill);
    s.border = c.colour(look.border);
    s.bold = look.bold;
    s.doubleBorder = look.peripheries > 1;
    // Graphviz draws a bold outline at least 2 points wide.
    s.borderWidth = look.bold ? std::max(look.pen_width, 2.0) : look.pen_width;
    return s;
}

EdgeStyle edge_style(const analysis::SubgraphEdge& e, const GraphColours& c) {
    const graphviz::EdgeLook look = graphviz::edge_look(e);
    EdgeStyle s;
    s.colour = c.colour(look.colour);
    s.labelColour = c.colour(look.label_colour);
    s.width = look.pen_width;
    switch (look.line) {
        case graphviz::LineStyle::Solid: s.penStyle = Qt::SolidLine; break;
        case graphviz::LineStyle::Dotted: s.penStyle = Qt::DotLine; break;
        case graphviz::LineStyle::Dashed: s.penStyle = Qt::DashLine; break;
    }
    s.hollowArrow = look.hollow_arrow;
    return s;
}

}  // namespace refscope::app
