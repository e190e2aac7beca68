// Labels for containers and instances: dict entries, list/tuple indexes, set
// members, instance attributes (managed dicts, inline values, __dict__) and
// __slots__. The dispatcher label_edges() is here too.
#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"

namespace refscope::probe {

using format::EdgeKind;

void label_runtime_object(PyObject* op, const TypeFacts& facts, EdgeCollector& c);  // edge_labels_runtime.cpp
void label_special(PyObject* op, const TypeFacts& facts, EdgeCollector& c);  // edge_labels_stdlib.cpp

namespace {

void label_dict(PyObject* op, EdgeCollector& c) {
    // Split tables (3.9-3.12 instance dicts sharing the type's key table):
    // the key references belong to that shared table, emitted once from the
    // type (edge_labels_runtime.cpp), so here they are shown but not owned.
    bool split = rs_dict_is_split(op) != 0;
    // 3.13+: a dict materialized over an object's inline values shares them
    // with the object: one reference each, which 3.13.0's tp_traverse
    // reports from the object and later releases (3.13.5, 3.14) from the
    // dict, the object then reporting its dict instead. One probe build
    // serves every patch release of a minor version, so a value belongs to
    // whichever reports it: the dict's edge is OwnedIfTraversed (when not
    // owned it still names the key), the object's Attribute edge Traversed
    // (label_instance).
    bool embedded = rs_dict_values_embedded(op) != 0;
    // The interned strs' dict maps each to itself and holds no counted
    // reference (CPython takes its two off the str's refcount). 3.14 no
    // longer untracks str-only dicts, so it is in the start set: its values
    // are matched with what dict_traverse reports, and nothing is owned.
    bool interned = op == c.walker().interned_strings();
    EdgeMode key_mode = split || interned ? EdgeMode::NotOwned : EdgeMode::Owned;
    EdgeMode value_mode = embedded ? EdgeMode::OwnedIfTraversed : interned ? EdgeMode::TraversedBorrowed : EdgeMode::Traversed;
    Py_ssize_t pos = 0;
    PyObject* key;
    PyObject* value;
    while (PyDict_Next(op, &pos, &key, &value)) {
        c.add_keyed(value, EdgeKind::DictValue, key, value_mode);
        // dict_traverse skips the keys of str-only tables; they are owned all
        // the same, hence Owned (GcVisible only when tp_traverse reports them).
        c.add(key, EdgeKind::DictKey, 0, key_mode);
    }
}

void label_sequence(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    const bool list = facts.kind == ObjectKind::List;
    // list_traverse/tuple_traverse report exactly the non-NULL items in
    // order, so for the exact types the items are the whole edge list,
    // emitted straight from the object.
    if (facts.exact) {
        c.items_of(op);
        c.complete = true;
        return;
    }
    const EdgeMode mode = EdgeMode::Traversed;
    if (list) {
        Py_ssize_t n = PyList_GET_SIZE(op);
        c.candidates.reserve(static_cast<size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i)
            c.add(PyList_GET_ITEM(op, i), EdgeKind::Index, static_cast<uint32_t>(i), mode);
    } else {
        Py_ssize_t n = PyTuple_GET_SIZE(op);
        c.candidates.reserve(static_cast<size_t>(n));
        for (Py_ssize_t i = 0; i < n; ++i)
            c.add(PyTuple_GET_ITEM(op, i), EdgeKind::Index, static_cast<uint32_t>(i), mode);
    }
}

void add_attribute(PyObject* name, PyObject* value, void* context) {
    static_cast<EdgeCollector*>(context)->add_keyed(value, EdgeKind::Attribute, name,
                                                    EdgeMode::Traversed);
}

// Object members (__slots__ of classes, T_OBJECT/T_OBJECT_EX members of C
// types), one per slot, as collected once per type (collect_member_slots).
// They are strong references, so they are Owned; they are GcVisible only if
// tp_traverse reports them. A C type that declares a member but does not
// traverse it (nanobind's Wrapper holding `value`) therefore shows an owned
// edge the garbage collector cannot see, which is what makes such a cycle
// uncollectable. Members known to be borrowed are shown, not counted.
void label_members(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    // A struct sequence (a tuple subclass) names its visible items as
    // members too: those slots are labelled as Index edges already.
    Py_ssize_t items_begin = 0;
    Py_ssize_t items_end = 0;
    if (facts.kind == ObjectKind::Tuple) {
        items_begin = static_cast<Py_ssize_t>(offsetof(PyTupleObject, ob_item));
        items_end = items_begin + PyTuple_GET_SIZE(op) * static_cast<Py_ssize_t>(sizeof(PyObject*));
    }
    const MemberSlot* members = c.walker().member_slots(facts);
    for (uint32_t i = 0; i < facts.members_count; ++i) {
        const MemberSlot& m = members[i];
        if (m.offset >= items_begin && m.offset < items_end) continue;
        PyObject* value = *reinterpret_cast<PyObject**>(reinterpret_cast<char*>(op) + m.offset);
        if (value == nullptr) continue;
        EdgeMode mode = EdgeMode::Owned;
        if (m.borrowed) mode = EdgeMode::Borrowed;
        else if (m.use == SlotUse::Traversed) mode = EdgeMode::Traversed;
        else if (m.use == SlotUse::Visible) mode = EdgeMode::OwnedVisible;
        c.add(value, m.use == SlotUse::Member ? EdgeKind::Slot : EdgeKind::Field, c.walker().literal(m.name), mode);
    }
}

// Attributes of instances of Python classes.
void label_instance(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    PyTypeObject* tp = Py_TYPE(op);
    // Instances of heap types own a reference to their type
    // (PyType_GenericAlloc / PyObject_Init increment it).
    c.field(reinterpret_cast<PyObject*>(tp), "__class__", EdgeMode::Owned);

    if (compat::has_managed_dict(tp)) {
        PyObject* dict = nullptr;
        rs_managed_attributes(op, &add_attribute, &c, &dict);
        // The managed dict pointer is a strong reference; 3.13.0 does not
        // report it while the inline values are still valid (label_dict).
        c.field(dict, "__dict__", EdgeMode::Owned);
    } else if (tp->tp_dictoffset != 0 && facts.kind != ObjectKind::Type && facts.kind != ObjectKind::Module) {
        // Types and modules label their own __dict__ (no double counting).
        PyObject** slot = _PyObject_GetDictPtr(op);
        if (slot != nullptr) c.field(*slot, "__dict__", EdgeMode::Owned);
    }

    if (facts.members_count != 0) label_members(op, facts, c);
}

}  // namespace

void label_edges(PyObject* op, const TypeFacts& facts, EdgeCollector& c) {
    switch (facts.kind) {
    case ObjectKind::Dict: label_dict(op, c); break;
    case ObjectKind::List:
    case ObjectKind::Tuple: label_sequence(op, facts, c); break;
    case ObjectKind::Set: c.leftover_kind = EdgeKind::SetMember; break;  // set_traverse: the members
    case ObjectKind::Str:
    case ObjectKind::Int:
    case ObjectKind::Float:
    case ObjectKind::Bytes:
    case ObjectKind::None:
    case ObjectKind::Bool:
    case ObjectKind::ByteArray: break;
    default: label_runtime_object(op, facts, c); break;
    }
    if (facts.heap) {
        label_instance(op, facts, c);
    } else if (facts.kind == ObjectKind::Other || facts.kind == ObjectKind::Dict) {
        // Static C types (classmethod, partial on 3.9, exceptions,
        // OrderedDict, io objects before 3.12...) keep their instance dict
        // at tp_dictoffset too: a strong reference, as for heap types.
        PyTypeObject* tp = Py_TYPE(op);
        if (tp->tp_dictoffset != 0 && !compat::has_managed_dict(tp)) {
            PyObject** slot = _PyObject_GetDictPtr(op);
            if (slot != nullptr) c.field(*slot, "__dict__", EdgeMode::Owned);
        }
        if (facts.members_count != 0) label_members(op, facts, c);
    }
    if (facts.special != SpecialKind::None) label_special(op, facts, c);
}

}  // namespace refscope::probe
