// What kind of object a type makes, decided once per type.
//
// The per-object code (sizes, previews, labels, singleton roots) dispatches on
// this instead of re-running PyXxx_Check macros for every object: several of
// them (PyAnySet_Check, PyModule_Check, PyWeakref_Check, PyCFunction_Check,
// PyByteArray_Check) walk the MRO through PyType_IsSubtype, which for a heap
// of a million Python instances costs more than the rest of the node's work.
#pragma once

#include <Python.h>

#include <cstdint>
#include <vector>

namespace refscope::probe {

enum class ObjectKind : uint8_t {
    Other,
    None,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    ByteArray,
    Tuple,
    List,
    Dict,
    Set,       // set, frozenset and subclasses
    Type,
    Function,
    Code,
    Cell,
    Module,
    Method,
    CFunction,
    Generator, // generator, coroutine, async generator
    Frame,
    Weakref,   // references and proxies
    Descriptor,
};

// Standard-library types whose edges need code beyond a field table
// (stdlib_fields.cpp recognises them, edge_labels_stdlib.cpp labels them).
enum class SpecialKind : uint8_t {
    None,
    LruCache,     // functools._lru_cache_wrapper, layout checked: its link list
    LruLink,      // functools._lru_list_elem, layout checked
    Deque,        // collections.deque: items by index
    OrderedDict,  // collections.OrderedDict and subclasses: node keys
};

struct TypeFacts {
    ObjectKind kind = ObjectKind::Other;
    bool exact = false;     // the type is the builtin itself, not a subclass
    bool heap = false;      // Py_TPFLAGS_HEAPTYPE: instances own a reference to it
    bool gc = false;        // Py_TPFLAGS_HAVE_GC
    bool has_tp_is_gc = false;
    // The object members an instance holds (collect_member_slots), as a
    // range of the walker's member table; 0 members: none to label.
    uint32_t members_begin = 0;
    uint32_t members_count = 0;
    // tp_traverse reports, once per link of a private list of non-GC
    // objects, the links' type on their behalf (functools' lru_cache wrapper,
    // 3.10+): repeated reports of such a type are not references of its own.
    bool reports_link_types = false;
    SpecialKind special = SpecialKind::None;
    // Describer list of the type (DescribeSession::describers_for), 0 = none.
    uint32_t describers = 0;
    // Instances' memory is scanned for addresses of known objects
    // (heap_walker_inferred.cpp): nothing else could report their references.
    bool scan_words = false;
};

TypeFacts classify_type(PyTypeObject* tp);

// A heap type made by C code (PyType_FromSpec, pybind11, nanobind), not by
// a class statement: every class statement's type gets CPython's
// subtype_dealloc, which is not exported, so its address is learned once at
// import from a class made then (learn_class_dealloc; false if that
// failed, and then no type is said to be made by C).
bool learn_class_dealloc();
bool heap_type_made_by_c(PyTypeObject* tp);

// An object member (T_OBJECT / T_OBJECT_EX in tp_members): a strong
// reference by CPython's convention (PyMember_SetOne increfs, the type's
// dealloc decrefs), whether or not the type's tp_traverse reports it —
// unless `borrowed` (a type known to break the convention).
// How a slot is labelled: Member is a declared object member (a Slot edge,
// owned); the others are C fields named by stdlib_fields.cpp (Field edges):
// Owned (a strong reference), Traversed (kept only if tp_traverse reports
// it), Visible (owned, and reported by a holder's tp_traverse on this
// object's behalf: lru_cache links).
enum class SlotUse : uint8_t { Member, Owned, Traversed, Visible };

struct MemberSlot {
    Py_ssize_t offset;
    const char* name;
    bool borrowed;
    SlotUse use = SlotUse::Member;
};

// Appends to `out` the object members of `tp` and its bases that the walk
// labels, one per slot: a member aliasing a slot already labelled (by an
// earlier member, or as the instance's __dict__) is the same reference.
void collect_member_slots(PyTypeObject* tp, const TypeFacts& facts, std::vector<MemberSlot>& out);

// A C field of a known struct: its offset in the object, its label, and how
// the reference relates to tp_traverse.
struct FieldSpec {
    Py_ssize_t offset;
    const char* name;
    SlotUse use;
};

// The fields of Cython's function objects (cython_fields.cpp) when `tp` is
// one: true if it is (`out` stays empty when its layout is not known).
bool cython_function_fields(PyTypeObject* tp, std::vector<FieldSpec>& out);
// The Cython series whose function layout a type name selects: 29 for 0.29,
// 30-32 for 3.0-3.2, 0 for names (and series, ABI variants) not read.
int cython_function_series(const char* tp_name);

// Appends the C fields of the standard-library types stdlib_fields.cpp
// knows (after the type's members, skipping slots they name) and sets
// facts.special. facts.members_begin must be set.
void collect_stdlib_fields(PyTypeObject* tp, TypeFacts& facts, std::vector<MemberSlot>& out);

// PyObject_IS_GC without the function call.
inline bool object_is_gc(PyObject* op, const TypeFacts& facts) {
    if (!facts.gc) return false;
    PyTypeObject* tp = Py_TYPE(op);
    return !facts.has_tp_is_gc || tp->tp_is_gc(op);
}

}  // namespace refscope::probe
