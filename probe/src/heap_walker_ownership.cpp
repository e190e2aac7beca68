// Which emitted edges are Owned: the rules that keep one owned edge per real
// reference where a labeller or tp_traverse alone would count one twice or
// count one that does not exist (docs/probe.md, "One owned edge per real
// reference"). The member rules live with the member table
// (collect_member_slots, object_kinds.cpp).
#include "heap_walker.h"

#include <algorithm>

#include "compat.h"

namespace refscope::probe {

namespace {

// Objects the interpreter allocates statically whose refcount is a real
// count (up to 3.11: 3.12 makes them immortal).
bool statically_allocated(PyObject* op) {
    if (op == Py_None || op == Py_True || op == Py_False || op == Py_Ellipsis || op == Py_NotImplemented)
        return true;
    return PyType_Check(op) && !(reinterpret_cast<PyTypeObject*>(op)->tp_flags & Py_TPFLAGS_HEAPTYPE);
}

}  // namespace

// An owned edge is one real reference. A statically allocated holder
// (compat::is_static_holder) was initialised at compile time, without
// counting its references to the other static objects: those are borrowed.
uint8_t HeapWalker::adjust_static_ownership(PyObject* target, uint8_t flags) {
    if ((flags & format::kEdgeOwned) && statically_allocated(target))
        flags &= static_cast<uint8_t>(~format::kEdgeOwned);
    return flags;
}

// For a tp_traverse that visits the type of each of its private non-GC
// links (TypeFacts::reports_link_types): the first report of such a type is
// the holder's own reference (lru_cache keeps the link type in a field), a
// repeat is a link's reference to its type, which the link's own __class__
// edge counts. It stays an edge, GC-visible as the collector sees it, but
// not Owned: one owned edge per real reference.
bool HeapWalker::is_repeated_link_type(PyObject* op) {
    if (!PyType_Check(op)) return false;
    const unsigned long flags = reinterpret_cast<PyTypeObject*>(op)->tp_flags;
    if (!(flags & Py_TPFLAGS_HEAPTYPE) || (flags & Py_TPFLAGS_HAVE_GC)) return false;
    if (std::find(link_types_.begin(), link_types_.end(), op) != link_types_.end()) return true;
    link_types_.push_back(op);
    return false;
}

// An object whose refcount is 0 is dead: a free list keeps its memory for
// reuse (3.12's _asyncio reports its FutureIter free list from the module's
// tp_traverse). Nothing owns a reference to it, whatever reported it.
void HeapWalker::disown_dead_targets() {
    Snapshot& s = snapshot_;
    for (size_t e = 0; e < s.edge_target.size(); ++e) {
        const uint32_t target = s.edge_target[e];
        if (s.node_refcount[target] == 0 && !(s.node_flags[target] & format::kNodeNative))
            s.edge_flags[e] &= static_cast<uint8_t>(~format::kEdgeOwned);
    }
}

}  // namespace refscope::probe
