// "Why is this object alive?" as text: the shortest retention path from a GC
// root as a chain of labelled hops, or, when there is none, the plain-words
// reason (analysis::RetentionPaths::explain_unreachable) and the cycle the
// object sits in (analysis::Cycles::explain). The one-line chain is exactly
// what `refscope-cli path` prints first, and what "Copy path" puts on the
// clipboard:
//
//   sys.modules → dict (len=1) → ['app'] → module app → .__dict__ → dict (len=2) → ['cache'] → app.Cache @ 0x…
//
// i.e. the root record's label, the root object, then per hop the edge label
// and the object it leads to (analysis::describe_root/describe_edge/
// describe_node).
#pragma once

#include <cstdint>
#include <vector>

#include <QString>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::app {

struct PathHop {
    uint32_t node = kNoNode;
    uint32_t edge = analysis::kNoEdge;  // the edge into `node`; kNoEdge for the first hop (the root or holder)
    QString edgeLabel;                  // describe_edge(); empty for the first hop
    QString object;                     // describe_node()
    bool gcInvisible = false;           // GraphIndex::hidden_from_gc
    bool weak = false;
};

struct PathDescription {
    uint32_t target = kNoNode;
    QString targetText;     // describe_node_at(target)
    bool hasPath = false;
    // hasPath: the root record's label and class ("interpreter", "thread
    // stack (thread MainThread)"); hops[0] is the root object, the last hop
    // the target.
    QString rootLabel;
    QString rootClass;
    // !hasPath: the reason in plain words, plus the cycle the target is in
    // when it is in one. When a holder with unexplained surplus retains the
    // target, hops is the chain from that holder (hops[0]) to the target;
    // otherwise hops is empty.
    QString explanation;
    std::vector<PathHop> hops;
    // hasPath: the path runs through the state of a finalizer waiting for an
    // object further along it (analysis::finalizer_path_note), else empty.
    QString finalizerNote;
};

// kNoNode or an id out of range gives an empty description (no path, no
// explanation).
PathDescription describe_path(const analysis::SnapshotAnalysis& analysis, uint32_t node);

// The CLI's one-line chain, and after a blank line the finalizer note when
// there is one (the CLI prints it after its table); with no path,
// "<target>: <explanation>" and, when a holder retains it, after a blank
// line, "held through: <chain from the holder>" (the first lines
// `refscope-cli path` prints, word for word).
QString path_as_text(const PathDescription& path);

// The same for a rich-text label: the root label in bold, edges in a
// monospace font, GC-invisible edges in red and marked, weak edges marked;
// every object is a link "refscope:node/<id>" for QLabel::linkActivated.
QString path_as_html(const PathDescription& path);

}  // namespace refscope::app
