// Matching labelled candidates against tp_traverse's report (which edges
// exist, which are owned and GC-visible, the positional edges left over),
// and handing each edge to the resolution pipeline (pend). See heap_walker.h
// for the edge modes and the overall order.
#include "heap_walker.h"

#include <algorithm>

namespace refscope::probe {

using format::EdgeKind;

// Once per edge. Flattened: GCC otherwise keeps the pending buffer's
// push_back out of line (its growth path makes it large) and passes every
// edge to it through memory (docs/performance-probe-cuts.md, "Two calls per edge
// inlined").
[[gnu::flatten]] void HeapWalker::pend(PyObject* target, PyObject* label_object, uint32_t label,
                                       EdgeKind kind, uint8_t flags) {
    nodes_.prefetch(reinterpret_cast<uint64_t>(target));
    if (label_object != nullptr) nodes_.prefetch(reinterpret_cast<uint64_t>(label_object));
    if (pending_.size() == pending_.capacity()) [[unlikely]]
        stream_pending();
    pending_.push_back({target, label_object, label, static_cast<uint8_t>(kind), flags, 0});
}

void HeapWalker::pend_node(uint32_t node, uint32_t label, uint8_t flags) {
    if (pending_.size() == pending_.capacity()) [[unlikely]]
        stream_pending();
    pending_.push_back({reinterpret_cast<PyObject*>(static_cast<uintptr_t>(node)), nullptr, label,
                        static_cast<uint8_t>(EdgeKind::Native), flags, 1});
}

// Finds an unconsumed tp_traverse entry equal to `target` and consumes it.
// Labellers usually propose edges in tp_traverse's own order, so a cursor
// with a short look-ahead finds most matches in O(1); otherwise the entries
// are sorted once (O(k log k)) and each pointer keeps a cursor into its run
// of equal entries, so k look-ups cost O(k log k) in total, never O(k^2).
bool HeapWalker::consume_match(PyObject* target) {
    size_t n = refs_.size();
    while (cursor_ < n && consumed_[cursor_]) ++cursor_;
    for (size_t j = cursor_; j < n && j < cursor_ + 3; ++j) {
        if (!consumed_[j] && refs_[j] == target) {
            consumed_[j] = 1;
            if (j == cursor_) ++cursor_;
            return true;
        }
    }
    if (n <= 8) {
        for (size_t j = 0; j < n; ++j)
            if (!consumed_[j] && refs_[j] == target) {
                consumed_[j] = 1;
                return true;
            }
        return false;
    }
    if (!sorted_ready_) {
        sorted_.resize(n);
        for (size_t j = 0; j < n; ++j) sorted_[j] = static_cast<uint32_t>(j);
        std::sort(sorted_.begin(), sorted_.end(), [this](uint32_t a, uint32_t b) {
            return refs_[a] != refs_[b] ? refs_[a] < refs_[b] : a < b;
        });
        group_next_.assign(n, 0);
        for (size_t p = 0; p < n; ++p) group_next_[p] = static_cast<uint32_t>(p);
        sorted_ready_ = true;
    }
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), target,
                               [this](uint32_t a, PyObject* t) { return refs_[a] < t; });
    if (it == sorted_.end() || refs_[*it] != target) return false;
    size_t group = static_cast<size_t>(it - sorted_.begin());
    size_t p = group_next_[group];
    while (p < n && refs_[sorted_[p]] == target && consumed_[sorted_[p]]) ++p;
    if (p < n && refs_[sorted_[p]] == target) {
        consumed_[sorted_[p]] = 1;
        group_next_[group] = static_cast<uint32_t>(p + 1);
        return true;
    }
    group_next_[group] = static_cast<uint32_t>(p);
    return false;
}

void HeapWalker::emit_edges(EdgeCollector& collector, bool reports_link_types) {
    consumed_.assign(refs_.size(), 0);
    sorted_ready_ = false;
    cursor_ = 0;
    auto emit = [&](const EdgeCandidate& c, uint8_t flags) {
        pend(c.target, c.label_object, c.label, c.kind, adjust_ownership(c.target, flags));
    };
    constexpr uint8_t kOwnedVisible = format::kEdgeOwned | format::kEdgeGcVisible;
    // Pass 1: edges that exist only if tp_traverse reports them. They go
    // first so that an optional candidate (pass 2) can never steal the
    // traverse entry a required one needs.
    for (const EdgeCandidate& c : collector.candidates) {
        if (c.mode == EdgeMode::Traversed && consume_match(c.target)) emit(c, kOwnedVisible);
        if (c.mode == EdgeMode::TraversedBorrowed && consume_match(c.target)) emit(c, format::kEdgeGcVisible);
        if (c.mode == EdgeMode::ReportedForOther) consume_match(c.target);
        if (c.mode == EdgeMode::OwnedIfTraversed) emit(c, consume_match(c.target) ? kOwnedVisible : 0);
    }
    cursor_ = 0;
    if (PyObject* sequence = collector.items_sequence) {
        const bool list = PyList_Check(sequence);
        PyObject* const* items = list ? reinterpret_cast<PyListObject*>(sequence)->ob_item
                                      : reinterpret_cast<PyTupleObject*>(sequence)->ob_item;
        const Py_ssize_t n = list ? PyList_GET_SIZE(sequence) : PyTuple_GET_SIZE(sequence);
        for (Py_ssize_t i = 0; i < n; ++i)
            if (PyObject* item = items[i])
                pend(item, nullptr, static_cast<uint32_t>(i), EdgeKind::Index, adjust_ownership(item, kOwnedVisible));
    }
    for (const EdgeCandidate& c : collector.candidates) {
        switch (c.mode) {
        case EdgeMode::Traversed:
        case EdgeMode::TraversedBorrowed:
        case EdgeMode::ReportedForOther:
        case EdgeMode::OwnedIfTraversed: break;
        case EdgeMode::Owned:
            emit(c, consume_match(c.target) ? kOwnedVisible : format::kEdgeOwned);
            break;
        case EdgeMode::OwnedUntraversed: emit(c, format::kEdgeOwned); break;
        case EdgeMode::OwnedVisible: emit(c, kOwnedVisible); break;
        case EdgeMode::NotOwned: emit(c, 0); break;
        case EdgeMode::Borrowed: emit(c, consume_match(c.target) ? format::kEdgeGcVisible : 0); break;
        case EdgeMode::Inferred: emit(c, format::kEdgeInferred); break;
        }
    }
    // Described edges: a native node's reference to a Python object is
    // visible to the collector only if this object's tp_traverse reports it.
    for (uint32_t index : collector.native_matches) {
        NativeEdge& e = native_edges_[index];
        if ((e.flags & format::kEdgeOwned) && consume_match(e.object)) e.flags |= format::kEdgeGcVisible;
    }
    for (const EdgeCollector::NodeEdge& e : collector.node_edges) pend_node(e.node, e.label, e.flags);
    if (collector.complete) return;
    uint32_t position = 0;
    // deque items are left over in index order (label_deque).
    bool positional = collector.leftover_kind == EdgeKind::Reference || collector.leftover_kind == EdgeKind::Index;
    link_types_.clear();
    for (size_t j = 0; j < refs_.size(); ++j) {
        if (consumed_[j]) continue;
        uint8_t flags = kOwnedVisible;
        if (reports_link_types && is_repeated_link_type(refs_[j])) flags = format::kEdgeGcVisible;
        pend(refs_[j], nullptr, positional ? position++ : 0, collector.leftover_kind, adjust_ownership(refs_[j], flags));
    }
}

}  // namespace refscope::probe
