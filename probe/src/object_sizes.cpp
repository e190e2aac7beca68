// Shallow sizes, computed from the object's layout without calling
// __sizeof__ (which is Python-overridable) or sys.getsizeof.
//
// Rules (documented in docs/probe.md):
//   base      tp_basicsize + tp_itemsize * |ob_size| for var-sized types
//             (int digits come from lv_tag on 3.12+; str has its own rule);
//   header    + the allocator's pre-header: 16 bytes of GC links for GC
//             types, + 16 bytes of managed dict/weakref pointers on 3.11+;
//   extras    list: allocated * 8 (the item array);
//             dict: the key table if this dict alone owns it, and the values
//                   array of split tables (as dict.__sizeof__ counts them);
//             set/frozenset: the hash table when it is not the inline one;
//             str: the compact header + (length + 1) * kind, plus a cached
//                   UTF-8 copy when one exists;
//             bytearray: ob_alloc;
//             instances (3.11+): their inline/managed values array;
//             heap types: their shared instance key table.
// Allocator rounding (pymalloc's 16-byte size classes) is not added.
#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"

namespace refscope::probe {

static uint64_t str_size(PyObject* op) {
    if (!compat::str_is_ready(op)) return static_cast<uint64_t>(Py_TYPE(op)->tp_basicsize);
    auto length = static_cast<uint64_t>(PyUnicode_GET_LENGTH(op));
    uint64_t size;
    if (PyUnicode_IS_COMPACT_ASCII(op)) {
        size = sizeof(PyASCIIObject) + length + 1;
    } else {
        uint64_t kind = static_cast<uint64_t>(PyUnicode_KIND(op));
        size = (PyUnicode_IS_COMPACT(op) ? sizeof(PyCompactUnicodeObject) : sizeof(PyUnicodeObject)) +
               (length + 1) * kind;
        auto* compact = reinterpret_cast<PyCompactUnicodeObject*>(op);
        if (compact->utf8 != nullptr && compact->utf8 != PyUnicode_DATA(op))
            size += static_cast<uint64_t>(compact->utf8_length) + 1;
    }
    return size;
}

uint64_t shallow_size(PyObject* op, const TypeFacts& facts) {
    PyTypeObject* tp = Py_TYPE(op);
    uint64_t size = static_cast<uint64_t>(tp->tp_basicsize);
    if (facts.kind == ObjectKind::Str) {
        size = str_size(op);
    } else if (facts.kind == ObjectKind::Int || facts.kind == ObjectKind::Bool) {
        size_t digits = compat::int_digit_count(op);
        size += static_cast<uint64_t>(tp->tp_itemsize) * (digits == 0 ? 1 : digits);
    } else if (facts.kind == ObjectKind::Generator) {
        size += static_cast<uint64_t>(tp->tp_itemsize) * rs_generator_frame_slots(op);
    } else if (facts.kind == ObjectKind::Frame && !compat::kFramesAreObjects) {
        size += static_cast<uint64_t>(tp->tp_itemsize) * rs_frame_object_slots(op);
    } else if (tp->tp_itemsize != 0) {
        Py_ssize_t n = Py_SIZE(op);
        size += static_cast<uint64_t>(tp->tp_itemsize) * static_cast<uint64_t>(n < 0 ? -n : n);
    }
    size += compat::pre_header_bytes(tp);

    switch (facts.kind) {
    case ObjectKind::List:
        size += static_cast<uint64_t>(reinterpret_cast<PyListObject*>(op)->allocated) * sizeof(PyObject*);
        break;
    case ObjectKind::Dict: size += rs_dict_extra_bytes(op); break;
    case ObjectKind::Set: {
        auto* s = reinterpret_cast<PySetObject*>(op);
        if (s->table != s->smalltable) size += static_cast<uint64_t>(s->mask + 1) * sizeof(setentry);
        break;
    }
    case ObjectKind::ByteArray:
        size += static_cast<uint64_t>(reinterpret_cast<PyByteArrayObject*>(op)->ob_alloc);
        break;
    case ObjectKind::Type: size += rs_cached_keys_bytes(reinterpret_cast<PyTypeObject*>(op)); break;
    default: break;
    }
    if (facts.heap && compat::has_managed_dict(tp)) size += rs_instance_values_bytes(op);
    return size;
}

}  // namespace refscope::probe
