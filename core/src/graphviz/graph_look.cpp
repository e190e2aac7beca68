#include "refscope/graphviz/graph_look.h"

namespace refscope::graphviz {

const char* export_colour(ColourRole role) {
    switch (role) {
        case ColourRole::PlainFill: return "#f2f2f2";
        case ColourRole::PlainBorder: return "#555555";
        case ColourRole::GroupFill: return "#e4e4e4";
        case ColourRole::PathFill: return "#dde8f7";
        case ColourRole::RootFill: return "#cfe0f5";
        case ColourRole::RootBorder: return "#1a4f9c";
        case ColourRole::SuspectFill: return "#ffe8c2";
        case ColourRole::SuspectBorder: return "#d97400";
        case ColourRole::HolderBorder: return "#b00020";
        case ColourRole::TargetFill: return "#f6b4b4";
        case ColourRole::TargetBorder: return "#b00020";
        case ColourRole::RootLine: return "#1a4f9c";
        case ColourRole::InvisibleLine: return "#b00020";
        case ColourRole::ClusterFill: return "#fafafa";
        case ColourRole::ClusterBorder: return "#aaaaaa";
        case ColourRole::Edge: return "#444444";
        case ColourRole::PathEdge: return "#1a4f9c";
        case ColourRole::BorrowedEdge: return "#999999";
        case ColourRole::WeakEdge: return "#888888";
        case ColourRole::InvisibleEdge: return "#d00000";
        case ColourRole::EdgeLabel: return "#333333";
    }
    return "#000000";
}

NodeLook node_look(const analysis::SubgraphNode& n) {
    NodeLook look;
    if (n.is_group()) {
        look.shape = NodeShape::Folder;
        look.fill = ColourRole::GroupFill;
    }
    if (n.on_path) look.fill = ColourRole::PathFill;
    if (n.is_root) {
        look.shape = NodeShape::Octagon;
        look.bold = true;
        look.peripheries = 2;
        look.fill = ColourRole::RootFill;
        look.border = ColourRole::RootBorder;
    }
    if (n.is_suspect) {
        look.border = ColourRole::SuspectBorder;
        look.pen_width = 2.0;
        if (!n.is_target) look.fill = ColourRole::SuspectFill;
    }
    if (n.is_holder) {
        look.border = ColourRole::HolderBorder;
        look.pen_width = 2.0;
        look.peripheries = 2;
    }
    if (n.is_target) {
        look.fill = ColourRole::TargetFill;
        look.border = ColourRole::TargetBorder;
        look.pen_width = 2.5;
    }
    return look;
}

EdgeLook edge_look(const analysis::SubgraphEdge& e) {
    EdgeLook look;
    if (e.on_path) {
        look.colour = ColourRole::PathEdge;
        look.pen_width = 2.2;
    }
    if (!e.owned && !e.weak) {
        // Borrowed: shown, but it keeps nothing alive.
        look.colour = ColourRole::BorrowedEdge;
        look.hollow_arrow = true;
    }
    if (e.weak) {
        look.line = LineStyle::Dotted;
        look.colour = ColourRole::WeakEdge;
        look.hollow_arrow = true;
    }
    if (e.gc_invisible) {
        look.line = LineStyle::Dashed;
        look.bold = e.on_path;
        look.colour = ColourRole::InvisibleEdge;
        look.label_colour = ColourRole::InvisibleEdge;
    }
    return look;
}

NodeLineKind node_line_kind(size_t index, std::string_view line) {
    if (index == 0) return NodeLineKind::Title;
    if (line.ends_with("the GC cannot see")) return NodeLineKind::Invisible;
    if (line.starts_with("root: ")) return NodeLineKind::Root;
    return NodeLineKind::Plain;
}

}  // namespace refscope::graphviz
