// Subgraph extraction: the few hundred objects worth drawing out of a heap of
// millions. Given one or more target objects it keeps, in this order:
//   1. the targets;
//   2. their retention paths from roots (the shortest, plus up to K−1
//      alternatives that reach the target through another parent or root);
//      for a target with no path, the chain from its nearest holder with
//      unexplained surplus (RetentionPaths::explain_unreachable);
//   3. k hops of neighbourhood around the targets (referrers and/or
//      referents), by BFS distance,
// until a node cap is reached. A node with many neighbours of one type that
// are not on a path shows them as one group node ("1,000 × str", total
// size) instead of a thousand boxes. Nodes can be clustered by module, type
// or cycle (SCC ids passed in).
//
// The result is plain data (no Graphviz, no Qt): the Graphviz renderer, the
// app's graph view and the CLI's JSON all read the same struct. Labels are
// plain UTF-8 text lines; escaping for a given output is the renderer's job.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {

inline constexpr uint32_t kNoCluster = 0xFFFFFFFFu;
inline constexpr uint32_t kNoType = 0xFFFFFFFFu;

enum class ClusterBy : uint8_t { None, Module, Type, Cycle };
std::string_view cluster_by_name(ClusterBy by);  // "none", "module", "type", "cycle"

struct SubgraphOptions {
    // Retention paths per target: 1 = the shortest only; more adds the next
    // shortest simple paths that leave the shortest one at some node through
    // another retaining parent (or start at another root).
    uint32_t max_paths = 1;
    // Neighbourhood radius around the targets, and which directions to follow.
    uint32_t hops = 1;
    bool referrers = true;  // in-edges: who points at the node
    bool referents = true;  // out-edges: what the node points at
    // Total nodes drawn, group nodes included. Path nodes are kept first. A
    // path of more than half the cap (at least 5) keeps its first and last
    // nodes and shows the stretch between as one elided node ("… 999,990
    // objects …"), so a million-long chain draws as a few dozen nodes.
    uint32_t max_nodes = 300;
    // When a node has at least this many neighbours of one type in one
    // direction that are not already drawn, they become one group node.
    uint32_t collapse_threshold = 8;
    // At most this many neighbours of one node in one direction are drawn one
    // by one (after the same-type groups); the rest become one mixed group
    // node ("184 more"). Hubs (a module, a type object) would otherwise fill
    // the whole picture with one column of boxes. 0 = no limit.
    uint32_t max_fanout = 24;
    ClusterBy cluster_by = ClusterBy::None;
    // For ClusterBy::Cycle: a strongly-connected-component id per node
    // (size == node_count), e.g. Cycles::cycle_ids(); kNoCluster (the same
    // value as kNoCycle) means "in no component". Nodes sharing an id form a
    // cluster when at least two of them are drawn.
    std::span<const uint32_t> component;
    // Extra nodes to flag as suspects (e.g. a leak ranking). Nodes with
    // unexplained surplus are always flagged.
    std::span<const uint32_t> suspects;
    // Bytes of a preview shown in a node's label.
    size_t preview_chars = 32;
};

struct SubgraphNode {
    uint32_t node = kNoNode;  // snapshot node id; kNoNode for a group node

    // Group nodes: `group_count` siblings of type `group_type` (kNoType for
    // the mixed "N more" group of a busy node), all neighbours of subgraph
    // node `group_anchor` in one direction.
    uint32_t group_count = 0;
    uint64_t group_bytes = 0;  // sum of shallow sizes
    uint32_t group_type = kNoType;
    uint32_t group_anchor = kNoNode;
    bool group_are_referrers = false;  // members point at the anchor (else the anchor points at them)
    // An elided stretch of a long retention path (a group node too, with no
    // anchor): how many objects along the path it stands for.
    uint64_t elided_objects = 0;

    // lines[0] is the title (type name, or "1,000 × str"); then a preview or
    // address, the size, and notes (root label, unexplained references).
    std::vector<std::string> lines;
    std::string tooltip;   // one line: describe_node(), or the group's summary

    bool is_root = false;     // has a RootRef
    bool is_target = false;
    bool is_suspect = false;  // unexplained surplus, or listed in options.suspects
    bool on_path = false;     // on a retention path or a holder chain
    bool is_holder = false;   // nearest unexplained holder of a target with no path
    uint32_t distance = kUnreached;  // BFS hops from the nearest target; kUnreached
                                     // for path nodes outside the neighbourhood
    uint32_t cluster = kNoCluster;

    bool is_group() const { return node == kNoNode; }
    bool is_elision() const { return node == kNoNode && elided_objects > 0; }
};

struct SubgraphEdge {
    uint32_t from = 0;  // indexes into Subgraph::nodes
    uint32_t to = 0;
    uint32_t edge = kNoEdge;  // snapshot edge id (the first one when merged or grouped)
    uint32_t count = 1;       // snapshot edges this one stands for (parallel or grouped)
    std::string label;        // describe_edge(); "3 × [i]" style for merged edges
    bool on_path = false;
    // GraphIndex::hidden_from_gc: a reference the collector cannot see that
    // can hide a cycle from it (not the str keys of every dict).
    bool gc_invisible = false;
    bool weak = false;          // EdgeKind::Weak
    bool owned = true;          // counts in refcount arithmetic
};

struct SubgraphCluster {
    std::string label;          // "module app", "type str", "cycle #12"
    uint32_t node_count = 0;
};

struct Subgraph {
    std::vector<SubgraphNode> nodes;
    std::vector<SubgraphEdge> edges;
    std::vector<SubgraphCluster> clusters;
    // One line per target without a retention path (explain_unreachable's text).
    std::vector<std::string> notes;
    uint32_t path_count = 0;       // retention paths drawn
    uint64_t omitted_nodes = 0;    // neighbours left out because of the cap
    uint64_t elided_objects = 0;   // objects of long paths drawn as elided nodes
    bool truncated = false;        // the cap was reached

    // The subgraph index of a snapshot node, or kNoNode (linear: for tests and
    // occasional look-ups).
    uint32_t find(uint32_t snapshot_node) const;
};

Subgraph extract_subgraph(const GraphIndex& index, const RootClasses& roots,
                          const RetentionPaths& paths, std::span<const uint32_t> targets,
                          const SubgraphOptions& options = {});

// Up to `limit` objects whose type is called `type_name`, the most telling
// first: no retention path, then unexplained surplus, then farthest from the
// roots; ties by node id. For `export-path --type NAME`.
std::vector<uint32_t> pick_targets_of_type(const GraphIndex& index, const RootClasses& roots,
                                           const RetentionPaths& paths,
                                           std::string_view type_name, size_t limit);

}  // namespace refscope::analysis
