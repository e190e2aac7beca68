#include "refscope/analysis/root_classes.h"

#include <algorithm>

namespace refscope::analysis {

std::string_view root_class_name(RootClass root_class) {
    switch (root_class) {
        case RootClass::Interpreter: return "interpreter";
        case RootClass::ThreadStack: return "thread stack";
        case RootClass::Extension: return "extension";
        case RootClass::Unexplained: return "unexplained";
    }
    return "?";
}

RootClasses::RootClasses(const GraphIndex& index) : index_(&index) {
    const Snapshot& s = index.snapshot();
    const uint32_t node_count = index.node_count();

    // Records grouped by node, in explanation order within a node.
    root_order_.reserve(s.roots.size());
    for (size_t r = 0; r < s.roots.size(); ++r) {
        const RootRef& root = s.roots[r];
        if (root.node >= node_count || static_cast<uint8_t>(root.kind) >= format::kRootKindCount) {
            ++invalid_records_;
            continue;
        }
        root_order_.push_back(static_cast<uint32_t>(r));
        ++totals_[static_cast<int>(root.kind)].records;
    }
    std::sort(root_order_.begin(), root_order_.end(), [&](uint32_t a, uint32_t b) {
        const RootRef& ra = s.roots[a];
        const RootRef& rb = s.roots[b];
        if (ra.node != rb.node) return ra.node < rb.node;
        if (ra.kind != rb.kind) return ra.kind < rb.kind;
        return a < b;
    });

    // Walk nodes and the sorted records together: no per-node search.
    size_t next_record = 0;
    for (uint32_t n = 0; n < node_count; ++n) {
        size_t end = next_record;
        while (end < root_order_.size() && s.roots[root_order_[end]].node == n) ++end;
        const std::span<const uint32_t> records(root_order_.data() + next_record, end - next_record);
        next_record = end;

        if (!records.empty()) {
            root_nodes_.push_back(n);
            bool seen[format::kRootKindCount] = {};
            for (uint32_t r : records) seen[static_cast<int>(s.roots[r].kind)] = true;
            for (int k = 0; k < format::kRootKindCount; ++k) totals_[k].objects += seen[k];
        }
        const SurplusBreakdown b = breakdown(n, records);
        if (!b.counted) continue;
        for (int k = 0; k < format::kRootKindCount; ++k) {
            totals_[k].references += static_cast<uint64_t>(b.explained[k]);
        }
        overexplained_ += static_cast<uint64_t>(b.overexplained);
        if (b.unexplained > 0) {
            unexplained_.push_back({n, b.unexplained});
            auto& total = totals_[static_cast<int>(RootClass::Unexplained)];
            ++total.objects;
            total.references += static_cast<uint64_t>(b.unexplained);
        }
        if (b.surplus < 0) negative_.push_back({n, b.surplus});
    }

    // BFS sources: interpreter roots first, so that at equal distance a path
    // starts at sys.modules rather than at some frame's local.
    std::stable_sort(root_nodes_.begin(), root_nodes_.end(), [&](uint32_t a, uint32_t b) {
        return s.roots[roots_of(a).front()].kind < s.roots[roots_of(b).front()].kind;
    });
}

SurplusBreakdown RootClasses::breakdown(uint32_t node) const {
    return breakdown(node, roots_of(node));
}

SurplusBreakdown RootClasses::breakdown(uint32_t node, std::span<const uint32_t> records) const {
    const Snapshot& s = index_->snapshot();
    SurplusBreakdown b;
    b.refcount = s.node_refcount[node];
    b.owned_in = index_->owned_in_degree(node);
    b.counted = (s.node_flags[node] & (format::kNodeImmortal | format::kNodeNative)) == 0;
    if (!b.counted) return b;

    b.surplus = b.refcount - static_cast<int64_t>(b.owned_in);
    int64_t remaining = std::max<int64_t>(b.surplus, 0);
    bool has_count_all = false;
    int64_t claimed_beyond = 0;
    for (uint32_t r : records) {
        const RootRef& root = s.roots[r];
        int64_t claim = remaining;
        if (root.count == 0) {
            has_count_all = true;
        } else {
            claim = std::min<int64_t>(remaining, root.count);
            claimed_beyond += root.count - claim;
        }
        b.explained[static_cast<int>(root.kind)] += claim;
        remaining -= claim;
    }
    b.unexplained = remaining;
    // A "count 0" record holds an unknown number of references, so records
    // beyond it are not a contradiction.
    b.overexplained = has_count_all ? 0 : claimed_beyond;
    return b;
}

std::span<const uint32_t> RootClasses::roots_of(uint32_t node) const {
    const Snapshot& s = index_->snapshot();
    const auto first = std::lower_bound(root_order_.begin(), root_order_.end(), node,
                                        [&](uint32_t r, uint32_t n) { return s.roots[r].node < n; });
    auto last = first;
    while (last != root_order_.end() && s.roots[*last].node == node) ++last;
    return {root_order_.data() + (first - root_order_.begin()),
            static_cast<size_t>(last - first)};
}

int64_t RootClasses::unexplained(uint32_t node) const {
    const auto it = std::lower_bound(unexplained_.begin(), unexplained_.end(), node,
                                     [](const NodeCount& c, uint32_t n) { return c.node < n; });
    return it != unexplained_.end() && it->node == node ? it->references : 0;
}

}  // namespace refscope::analysis
