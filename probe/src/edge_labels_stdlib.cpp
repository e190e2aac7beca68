// Labels for the standard-library types whose edges need code, not a field
// table (those are in stdlib_fields.cpp): lru_cache's private list of links,
// deque items, OrderedDict's node keys.
#include "heap_walker.h"

#include <cstring>

#include "stdlib_layouts.h"

namespace refscope::probe {

using format::EdgeKind;

namespace {

// The wrapper's circular doubly linked list of links (root embedded at the
// start of the wrapper, bounded caches only) holds the reference each link
// was created with (CPython's comment says "borrowed", but clearing the
// list drops one reference per link): one owned edge wrapper → link. The
// cache dict holds the other (DictValue).
//
// tp_traverse reports each link's key and result (and, 3.10+, its type)
// from the wrapper, because links are not GC objects. Those references are
// the link's: the link node owns them (its key/result fields, marked
// GC-visible since the collector does see them through the wrapper) and
// the wrapper's reports are consumed without an edge, so none is counted
// twice. The wrapper → link edge is marked GC-visible for the same reason:
// the collector walks the list through the wrapper.
//
// A corrupt list must not hang the walk: at most len(cache) + 1 steps, and
// the walk stops at the first node that is not a link.
void label_lru_cache(PyObject* op, EdgeCollector& c) {
    auto* self = reinterpret_cast<layout::LruCache*>(op);
    layout::LruLink* root = &self->root;
    if (self->cache == nullptr || !PyDict_CheckExact(self->cache)) return;
    const Py_ssize_t bound = PyDict_GET_SIZE(self->cache) + 1;
    PyTypeObject* link_type = nullptr;
    Py_ssize_t steps = 0;
    for (layout::LruLink* link = root->next; link != nullptr && link != root && steps < bound;
         link = link->next, ++steps) {
        PyTypeObject* tp = Py_TYPE(reinterpret_cast<PyObject*>(link));
        if (link_type == nullptr) {
#if PY_VERSION_HEX >= 0x030A0000
            if (tp != self->lru_list_elem_type) return;
#else
            if (std::strcmp(tp->tp_name, "functools._lru_list_elem") != 0) return;
#endif
            link_type = tp;
        } else if (tp != link_type) {
            return;
        }
        auto* link_object = reinterpret_cast<PyObject*>(link);
        c.field(link_object, "lru list", EdgeMode::OwnedVisible);
        c.add(link->key, EdgeKind::Field, 0, EdgeMode::ReportedForOther);
        c.add(link->result, EdgeKind::Field, 0, EdgeMode::ReportedForOther);
#if PY_VERSION_HEX >= 0x030A0000
        c.add(reinterpret_cast<PyObject*>(tp), EdgeKind::Field, 0, EdgeMode::ReportedForOther);
#endif
    }
}

// deque_traverse reports the items left to right (after the type, 3.13+,
// which label_instance's __class__ claims): what is left over is the items
// in index order. Exact deques only: a subclass's slots could claim an item
// that equals them and shift the numbering.
// (SpecialKind::Deque is set for the exact type only.)
void label_deque(EdgeCollector& c) { c.leftover_kind = EdgeKind::Index; }

// Each key of an OrderedDict is held twice: by the dict and by its node in
// the order list (a counted reference, reported by odict_traverse). The
// nodes are C structs, not objects: the second reference is shown as an
// owned edge of its own. Every key has exactly one node.
void label_ordered_dict(PyObject* op, EdgeCollector& c) {
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    while (PyDict_Next(op, &pos, &key, &value)) c.field(key, "od node key", EdgeMode::Owned);
}

}  // namespace

void label_special(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    switch (facts.special) {
    case SpecialKind::LruCache: label_lru_cache(op, c); break;
    case SpecialKind::Deque: label_deque(c); break;
    case SpecialKind::OrderedDict: label_ordered_dict(op, c); break;
    default: break;
    }
}

}  // namespace refscope::probe
