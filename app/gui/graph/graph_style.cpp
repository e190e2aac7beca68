#include "graph/graph_style.h"

#include <algorithm>

namespace refscope::app {

GraphColours GraphColours::fromPalette(const QPalette& palette) {
    GraphColours c;
    c.dark = palette.color(QPalette::Base).lightness() < 128;
    c.selection = palette.color(QPalette::Highlight);
    if (!c.dark) {
        // The Graphviz export's colours.
        c.background = QColor(Qt::white);
        c.text = QColor(Qt::black);
        c.plainFill = QColor(0xf2f2f2);
        c.plainBorder = QColor(0x555555);
        c.groupFill = QColor(0xe4e4e4);
        c.pathFill = QColor(0xdde8f7);
        c.rootFill = QColor(0xcfe0f5);
        c.rootBorder = QColor(0x1a4f9c);
        c.suspectFill = QColor(0xffe8c2);
        c.suspectBorder = QColor(0xd97400);
        c.holderBorder = QColor(0xb00020);
        c.targetFill = QColor(0xf6b4b4);
        c.targetBorder = QColor(0xb00020);
        c.rootLine = QColor(0x1a4f9c);
        c.invisibleLine = QColor(0xb00020);
        c.clusterFill = QColor(0xfafafa);
        c.clusterBorder = QColor(0xaaaaaa);
        c.clusterText = QColor(Qt::black);
        c.edge = QColor(0x444444);
        c.pathEdge = QColor(0x1a4f9c);
        c.borrowedEdge = QColor(0x999999);
        c.weakEdge = QColor(0x888888);
        c.invisibleEdge = QColor(0xd00000);
        c.edgeLabel = QColor(0x333333);
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
    NodeStyle s;
    s.fill = c.plainFill;
    s.border = c.plainBorder;
    if (n.is_group()) {
        s.shape = NodeShape::Folder;
        s.fill = c.groupFill;
    }
    if (n.on_path) s.fill = c.pathFill;
    if (n.is_root) {
        s.shape = NodeShape::Octagon;
        // The export asks for a doubleoctagon but also declares peripheries=1
        // for every node, so Graphviz draws one bold outline: so does the view.
        s.bold = true;
        s.fill = c.rootFill;
        s.border = c.rootBorder;
    }
    if (n.is_suspect) {
        s.border = c.suspectBorder;
        s.borderWidth = 2.0;
        if (!n.is_target) s.fill = c.suspectFill;
    }
    if (n.is_holder) {
        s.border = c.holderBorder;
        s.borderWidth = 2.0;
        s.doubleBorder = true;
    }
    if (n.is_target) {
        s.fill = c.targetFill;
        s.border = c.targetBorder;
        s.borderWidth = 2.5;
    }
    if (s.bold) s.borderWidth = std::max(s.borderWidth, 2.0);
    return s;
}

EdgeStyle edge_style(const analysis::SubgraphEdge& e, const GraphColours& c) {
    EdgeStyle s;
    s.colour = c.edge;
    s.labelColour = c.edgeLabel;
    if (e.on_path) {
        s.colour = c.pathEdge;
        s.width = 2.2;
    }
    if (!e.owned && !e.weak) {
        // Borrowed: shown, but it keeps nothing alive.
        s.colour = c.borrowedEdge;
        s.hollowArrow = true;
    }
    if (e.weak) {
        s.penStyle = Qt::DotLine;
        s.colour = c.weakEdge;
        s.hollowArrow = true;
    }
    if (e.gc_invisible) {
        s.penStyle = Qt::DashLine;
        s.colour = c.invisibleEdge;
        s.labelColour = c.invisibleEdge;
        if (e.on_path) s.width = std::max(s.width, 2.2);
    }
    return s;
}

}  // namespace refscope::app
