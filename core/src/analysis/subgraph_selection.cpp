// Choosing what a subgraph draws: the targets, their retention paths (the
// shortest and a few alternatives, or the chain from the holder that explains
// a missing path), and the neighbourhood within the hop limit, where crowds of
// same-type neighbours and a busy node's overflow become group nodes.
#include <algorithm>
#include <tuple>

#include "refscope/analysis/descriptions.h"
#include "subgraph_extraction.h"

namespace refscope::analysis::detail {
namespace {

// A candidate alternative path: leave the shortest path at path node
// `position` through retaining in-edge `edge` (whose source has its own
// shortest path), then follow the shortest path's suffix to the target.
struct Deviation {
    uint32_t length;
    uint32_t position;
    uint32_t edge;
};

}  // namespace

uint32_t Extraction::select(uint32_t node) {
    taken_.set(node);
    if (!selected_.set(node)) return kNoNode;
    SubgraphNode n;
    n.node = node;
    out_.nodes.push_back(std::move(n));
    return static_cast<uint32_t>(out_.nodes.size() - 1);
}

void Extraction::add_path_edges(uint32_t first, const std::vector<uint32_t>& edges) {
    // Nodes 0..total-1 along the path: `first`, then each edge's target.
    // Over the budget, nodes [head, tail) become one elided node.
    const size_t total = edges.size() + 1;
    const size_t budget = std::max<size_t>(5, options_.max_nodes / 2);
    const size_t head = total > budget ? budget / 2 : total;
    const size_t tail = total > budget ? total - (budget - head) : total;
    const auto node_at = [&](size_t i) { return i == 0 ? first : index_.target(edges[i - 1]); };
    for (size_t i = 0; i < total; ++i) {
        if (i == head && head < tail) {
            SubgraphNode elided;
            elided.elided_objects = tail - head;
            elided.on_path = true;
            out_.nodes.push_back(std::move(elided));
            elisions_.push_back({node_at(head - 1), static_cast<uint32_t>(out_.nodes.size() - 1), node_at(tail),
                                 edges[head - 1], edges[tail - 1]});
            out_.elided_objects += tail - head;
            i = tail - 1;
            continue;
        }
        const uint32_t node = node_at(i);
        select(node);
        path_nodes_.push_back(node);
        if (i > 0 && i != tail) path_edges_.push_back(edges[i - 1]);
    }
}

void Extraction::add_retention_paths(uint32_t target) {
    if (const auto shortest = paths_.path_to(target)) {
        add_path_edges(shortest->root_node, shortest->edges);
        ++out_.path_count;
        if (options_.max_paths > 1) add_alternative_paths(*shortest);
        return;
    }
    // No path: the explanation names the nearest holder with unexplained
    // surplus, the likely C/C++ owner or leak; draw the chain from it.
    NoPathExplanation why = paths_.explain_unreachable(target, 200'000);
    out_.notes.push_back(describe_node(s_, target) + ": " + why.text);
    if (why.reason == NoPathExplanation::Reason::UnexplainedSurplus) {
        holders_.push_back(target);
    } else if (why.holder != kNoNode) {
        holders_.push_back(why.holder);
        add_path_edges(why.holder, why.holder_edges);
    }
}

void Extraction::add_alternative_paths(const RetentionPath& shortest) {
    std::vector<uint32_t> nodes{shortest.root_node};
    for (uint32_t e : shortest.edges) nodes.push_back(index_.target(e));
    const auto length = static_cast<uint32_t>(shortest.edges.size());

    // Every retaining in-edge of a path node from a reachable source is a
    // detour; its total length is known without building it. Bounded so that
    // a path through an object with millions of referrers stays fast.
    constexpr size_t kMaxScanned = 1'000'000;
    std::vector<Deviation> deviations;
    size_t scanned = 0;
    for (uint32_t i = 0; i <= length && scanned < kMaxScanned; ++i) {
        const uint32_t path_in = i == 0 ? kNoEdge : shortest.edges[i - 1];
        for (uint32_t e : index_.in_edges(nodes[i])) {
            if (++scanned > kMaxScanned) break;
            if (e == path_in || !index_.retains(e)) continue;
            const uint32_t source = index_.source(e);
            if (!paths_.reachable(source)) continue;
            deviations.push_back({paths_.distance(source) + 1 + (length - i), i, e});
        }
    }
    std::sort(deviations.begin(), deviations.end(), [](const Deviation& a, const Deviation& b) {
        return std::tie(a.length, a.position, a.edge) < std::tie(b.length, b.position, b.edge);
    });

    uint32_t accepted = 1;
    std::vector<uint32_t> used;
    for (const Deviation& d : deviations) {
        if (accepted >= options_.max_paths) break;
        const auto prefix = paths_.path_to(index_.source(d.edge));
        if (!prefix) continue;
        std::vector<uint32_t> edges = prefix->edges;
        edges.push_back(d.edge);
        edges.insert(edges.end(), shortest.edges.begin() + d.position, shortest.edges.end());
        // Only simple paths: the detour must not come back through the suffix.
        used.assign({prefix->root_node});
        for (uint32_t e : edges) used.push_back(index_.target(e));
        const size_t before = used.size();
        sort_unique(used);
        if (used.size() != before) continue;
        add_path_edges(prefix->root_node, edges);
        ++accepted;
        ++out_.path_count;
    }
}

void Extraction::add_neighbourhood() {
    for (uint32_t t : targets_) {
        if (bfs_seen_.set(t)) bfs_queue_.push_back({t, 0});
    }
    // Nodes enter the queue in distance order, so the cap keeps the nearest.
    for (size_t head = 0; head < bfs_queue_.size(); ++head) {
        const auto [node, distance] = bfs_queue_[head];
        if (const uint32_t i = sub_index(node); i != kNoNode) {
            out_.nodes[i].distance = std::min(out_.nodes[i].distance, distance);
        }
        if (distance >= options_.hops) continue;
        if (options_.referents) expand(node, distance, false);
        if (options_.referrers) expand(node, distance, true);
    }
}

// Looks at one direction of `node`'s neighbours: same-type crowds become a
// group node, then up to max_fanout are drawn one by one while the cap
// allows, and what is left of a busy node becomes one mixed group.
void Extraction::expand(uint32_t node, uint32_t distance, bool referrers) {
    const auto for_each_edge = [&](auto&& visit) {
        if (referrers) {
            for (uint32_t e : index_.in_edges(node)) visit(e, index_.source(e));
        } else {
            for (uint32_t e : index_.out_edges(node)) visit(e, index_.target(e));
        }
    };

    candidates_.clear();
    touched_types_.clear();
    for_each_edge([&](uint32_t, uint32_t other) {
        if (other == node) return;
        if (taken_.test(other)) {
            // Already drawn (a path node, say): the BFS still walks through it.
            if (selected_.test(other) && bfs_seen_.set(other)) {
                bfs_queue_.push_back({other, distance + 1});
            }
            return;
        }
        if (!seen_here_.set(other)) return;
        candidates_.push_back(other);
        const uint32_t t = type_slot(other);
        if (type_count_[t]++ == 0) touched_types_.push_back(t);
        type_bytes_[t] += s_.node_size[other];
    });

    const uint32_t anchor = sub_index(node);
    const auto new_group = [&](uint32_t count, uint64_t bytes, uint32_t type) {
        SubgraphNode group;
        group.group_count = count;
        group.group_bytes = bytes;
        group.group_type = type;
        group.group_anchor = anchor;
        group.group_are_referrers = referrers;
        group.distance = distance + 1;
        out_.nodes.push_back(std::move(group));
        group_edges_.push_back({});
        group_edges_.back().group = static_cast<uint32_t>(out_.nodes.size() - 1);
        return group_edges_.back().group;
    };
    bool made_group = false;
    uint32_t individual = static_cast<uint32_t>(candidates_.size());
    for (uint32_t t : touched_types_) {
        if (type_count_[t] < options_.collapse_threshold || !room() || anchor == kNoNode) continue;
        type_group_[t] = new_group(type_count_[t], type_bytes_[t],
                                   t < s_.types.size() ? t : kNoType);
        individual -= type_count_[t];
        made_group = true;
    }
    // The overflow of a busy node: everything past the first max_fanout − 1
    // individual neighbours (the group takes the last slot).
    uint32_t overflow_group = kNoNode;
    if (options_.max_fanout > 0 && individual > options_.max_fanout && room() &&
        anchor != kNoNode) {
        uint32_t kept = 0;
        uint32_t count = 0;
        uint64_t bytes = 0;
        for (uint32_t other : candidates_) {
            if (type_group_[type_slot(other)] != kNoNode) continue;
            if (++kept < options_.max_fanout) continue;
            overflow_.set(other);
            ++count;
            bytes += s_.node_size[other];
        }
        overflow_group = new_group(count, bytes, kNoType);
        made_group = true;
    }
    const auto group_of = [&](uint32_t other) {
        const uint32_t g = type_group_[type_slot(other)];
        return g != kNoNode ? g : overflow_.test(other) ? overflow_group : kNoNode;
    };

    if (made_group) {
        for_each_edge([&](uint32_t e, uint32_t other) {
            if (!seen_here_.test(other)) return;
            const uint32_t g = group_of(other);
            if (g == kNoNode) return;
            // This expansion's groups are the last few entries.
            auto it = std::find_if(group_edges_.rbegin(), group_edges_.rend(),
                                   [g](const GroupEdges& ge) { return ge.group == g; });
            GroupEdges& ge = *it;
            const uint8_t flags = s_.edge_flags[e];
            const uint8_t kind = s_.edge_kind[e];
            if (ge.count++ == 0) {
                ge.first_edge = e;
                ge.kind = kind;
            } else if (kind != ge.kind) {
                ge.mixed_kinds = true;
            }
            const bool owned = (flags & format::kEdgeOwned) != 0;
            ge.any_owned |= owned;
            ge.gc_invisible |= index_.hidden_from_gc(e);
            ge.all_weak &= static_cast<EdgeKind>(kind) == EdgeKind::Weak;
        });
    }

    for (uint32_t other : candidates_) {
        seen_here_.clear(other);
        if (group_of(other) != kNoNode) {
            overflow_.clear(other);
            taken_.set(other);
            continue;
        }
        if (!room()) {
            ++out_.omitted_nodes;
            out_.truncated = true;
            continue;
        }
        const uint32_t i = select(other);
        out_.nodes[i].distance = distance + 1;
        lookup_.insert(std::upper_bound(lookup_.begin(), lookup_.end(),
                                        std::pair<uint32_t, uint32_t>{other, i}),
                       {other, i});
        bfs_seen_.set(other);
        bfs_queue_.push_back({other, distance + 1});
    }
    for (uint32_t t : touched_types_) {
        type_count_[t] = 0;
        type_bytes_[t] = 0;
        type_group_[t] = kNoNode;
    }
}

}  // namespace refscope::analysis::detail
