/* Reads CPython's private layouts for the probe (interface and rationale in
 * cpython_internals.h). Compiled as C with Py_BUILD_CORE against the
 * internal headers of the exact minor version the extension is built for, so
 * struct offsets come from CPython's own definitions, never from guesses.
 * This file: dicts and managed attributes, types, modules and the
 * interpreter's own references; frames are in cpython_frames.c.
 *
 * The two exceptions are 3.9/3.10, whose dict key table (Objects/dict-common.h)
 * and module object (Objects/moduleobject.c) are private to the .c files and
 * not installed: those two layouts are restated below, with the version
 * range they were checked against. */
#include "cpython_core_headers.h"

#include "cpython_internals.h"

#include <stdio.h>
#include <string.h>

/* Dict tables reserve 1/3 of the index slots: entries = 2/3 of the size
 * (USABLE_FRACTION in Objects/dictobject.c, identical in 3.9..3.13). */
static size_t rs_usable_fraction(size_t n) { return (n << 1) / 3; }

#if PY_VERSION_HEX < 0x030B0000
/* 3.9/3.10 Objects/dict-common.h: the key table header, followed by
 * dk_size indices of 1/2/4/8 bytes, followed by the entries. */
typedef struct {
    Py_hash_t me_hash;
    PyObject *me_key;
    PyObject *me_value;
} rs_entry_v39;
typedef struct {
    Py_ssize_t dk_refcnt;
    Py_ssize_t dk_size;
    void *dk_lookup;
    Py_ssize_t dk_usable;
    Py_ssize_t dk_nentries;
    char dk_indices[];
} rs_keys_v39;
static size_t rs_index_bytes_v39(Py_ssize_t size) {
    if (size <= 0xff) return 1;
    if (size <= 0xffff) return 2;
    if (size <= 0xffffffffLL) return 4;
    return 8;
}
static const rs_entry_v39 *rs_entries_v39(const rs_keys_v39 *keys) {
    return (const rs_entry_v39 *)(keys->dk_indices +
                                  rs_index_bytes_v39(keys->dk_size) * (size_t)keys->dk_size);
}
/* 3.9/3.10 Objects/moduleobject.c */
typedef struct {
    PyObject_HEAD
    PyObject *md_dict;
    struct PyModuleDef *md_def;
    void *md_state;
    PyObject *md_weaklist;
    PyObject *md_name;
} rs_module_v39;
#endif

/* ----------------------------------------------------- managed attributes */

#if PY_VERSION_HEX >= 0x030B0000
static void rs_visit_values(PyDictKeysObject *keys, PyObject *const *values, Py_ssize_t capacity,
                            rs_attribute_visit visit, void *context) {
    if (keys == NULL || !DK_IS_UNICODE(keys)) return;
    PyDictUnicodeEntry *entries = DK_UNICODE_ENTRIES(keys);
    Py_ssize_t n = keys->dk_nentries;
    if (capacity >= 0 && n > capacity) n = capacity;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *value = values[i];
        if (value != NULL && entries[i].me_key != NULL) visit(entries[i].me_key, value, context);
    }
}
#endif

int rs_managed_attributes(PyObject *obj, rs_attribute_visit visit, void *context,
                          PyObject **dict_out) {
    *dict_out = NULL;
#if PY_VERSION_HEX >= 0x030B0000
    PyTypeObject *tp = Py_TYPE(obj);
    if (!(tp->tp_flags & Py_TPFLAGS_MANAGED_DICT)) return 0;
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
#if PY_VERSION_HEX >= 0x030D0000
    if (tp->tp_flags & Py_TPFLAGS_INLINE_VALUES) {
        PyDictValues *values = _PyObject_InlineValues(obj);
        if (values->valid) rs_visit_values(keys, values->values, values->capacity, visit, context);
    }
    *dict_out = (PyObject *)_PyObject_ManagedDictPointer(obj)->dict;
#elif PY_VERSION_HEX >= 0x030C0000
    PyDictOrValues dorv = *_PyObject_DictOrValuesPointer(obj);
    if (_PyDictOrValues_IsValues(dorv))
        rs_visit_values(keys, _PyDictOrValues_GetValues(dorv)->values, -1, visit, context);
    else
        *dict_out = _PyDictOrValues_GetDict(dorv);
#else
    PyDictValues *values = *_PyObject_ValuesPointer(obj);
    if (values != NULL) rs_visit_values(keys, values->values, -1, visit, context);
    *dict_out = *_PyObject_ManagedDictPointer(obj);
#endif
    return 1;
#else
    (void)obj;
    (void)visit;
    (void)context;
    return 0;
#endif
}

int rs_dict_values_embedded(PyObject *dict) {
#if PY_VERSION_HEX >= 0x030D0000
    PyDictObject *mp = (PyDictObject *)dict;
    return mp->ma_values != NULL && mp->ma_values->embedded;
#else
    (void)dict;
    return 0;
#endif
}

int rs_dict_is_split(PyObject *dict) { return ((PyDictObject *)dict)->ma_values != NULL; }

size_t rs_dict_extra_bytes(PyObject *dict) {
    PyDictObject *mp = (PyDictObject *)dict;
    size_t bytes = 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = mp->ma_keys;
    if (mp->ma_values != NULL) {
#if PY_VERSION_HEX >= 0x030D0000
        if (!mp->ma_values->embedded)
            bytes += (size_t)mp->ma_values->capacity * sizeof(PyObject *) + sizeof(PyObject *) +
                     _Py_SIZE_ROUND_UP((size_t)mp->ma_values->capacity, sizeof(PyObject *));
#else
        size_t n = (size_t)(keys->dk_nentries + keys->dk_usable);
        bytes += n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n + 2, sizeof(PyObject *));
#endif
    }
    if (keys->dk_refcnt == 1) {
        size_t slots = (size_t)1 << keys->dk_log2_size;
        size_t entry = DK_IS_UNICODE(keys) ? sizeof(PyDictUnicodeEntry) : sizeof(PyDictKeyEntry);
        bytes += sizeof(PyDictKeysObject) + ((size_t)1 << keys->dk_log2_index_bytes) +
                 rs_usable_fraction(slots) * entry;
    }
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)mp->ma_keys;
    size_t size = (size_t)keys->dk_size;
    size_t usable = rs_usable_fraction(size);
    if (mp->ma_values != NULL) bytes += usable * sizeof(PyObject *);
    if (keys->dk_refcnt == 1)
        bytes += sizeof(rs_keys_v39) + rs_index_bytes_v39(keys->dk_size) * size +
                 sizeof(rs_entry_v39) * usable;
#endif
    return bytes;
}

size_t rs_instance_values_bytes(PyObject *obj) {
#if PY_VERSION_HEX >= 0x030B0000
    PyTypeObject *tp = Py_TYPE(obj);
    if (!(tp->tp_flags & Py_TPFLAGS_MANAGED_DICT)) return 0;
#if PY_VERSION_HEX >= 0x030D0000
    if (!(tp->tp_flags & Py_TPFLAGS_INLINE_VALUES)) return 0;
    size_t n = _PyObject_InlineValues(obj)->capacity;
    return sizeof(PyObject *) + n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n, sizeof(PyObject *));
#elif PY_VERSION_HEX >= 0x030C0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
    PyDictOrValues dorv = *_PyObject_DictOrValuesPointer(obj);
    if (!_PyDictOrValues_IsValues(dorv) || keys == NULL) return 0;
#else
    PyDictKeysObject *keys = ((PyHeapTypeObject *)tp)->ht_cached_keys;
    if (*_PyObject_ValuesPointer(obj) == NULL || keys == NULL) return 0;
#endif
#if PY_VERSION_HEX < 0x030D0000
    size_t n = (size_t)(keys->dk_nentries + keys->dk_usable);
    return n * sizeof(PyObject *) + _Py_SIZE_ROUND_UP(n + 2, sizeof(PyObject *));
#endif
#else
    (void)obj;
    return 0;
#endif
}

void rs_cached_keys_visit(PyTypeObject *type, void (*visit)(PyObject *key, void *context),
                          void *context) {
    if (!(type->tp_flags & Py_TPFLAGS_HEAPTYPE)) return;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL || !DK_IS_UNICODE(keys)) return;
    PyDictUnicodeEntry *entries = DK_UNICODE_ENTRIES(keys);
    for (Py_ssize_t i = 0; i < keys->dk_nentries; i++)
        if (entries[i].me_key != NULL) visit(entries[i].me_key, context);
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return;
    const rs_entry_v39 *entries = rs_entries_v39(keys);
    for (Py_ssize_t i = 0; i < keys->dk_nentries; i++)
        if (entries[i].me_key != NULL) visit(entries[i].me_key, context);
#endif
}

size_t rs_cached_keys_bytes(PyTypeObject *type) {
    if (!(type->tp_flags & Py_TPFLAGS_HEAPTYPE)) return 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyDictKeysObject *keys = ((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return 0;
    size_t slots = (size_t)1 << keys->dk_log2_size;
    size_t entry = DK_IS_UNICODE(keys) ? sizeof(PyDictUnicodeEntry) : sizeof(PyDictKeyEntry);
    return sizeof(PyDictKeysObject) + ((size_t)1 << keys->dk_log2_index_bytes) +
           rs_usable_fraction(slots) * entry;
#else
    const rs_keys_v39 *keys = (const rs_keys_v39 *)((PyHeapTypeObject *)type)->ht_cached_keys;
    if (keys == NULL) return 0;
    size_t size = (size_t)keys->dk_size;
    return sizeof(rs_keys_v39) + rs_index_bytes_v39(keys->dk_size) * size +
           sizeof(rs_entry_v39) * rs_usable_fraction(size);
#endif
}

PyObject *rs_module_name(PyObject *module) {
#if PY_VERSION_HEX >= 0x030B0000
    return ((PyModuleObject *)module)->md_name;
#else
    return ((rs_module_v39 *)module)->md_name;
#endif
}

/* ------------------------------------------------------- interpreter */

void rs_type_cache_visit(void (*visit)(PyObject *name, void *context), void *context) {
#if PY_VERSION_HEX >= 0x030A0000
    PyInterpreterState *interp = PyInterpreterState_Get();
#if PY_VERSION_HEX >= 0x030C0000
    struct type_cache *cache = &interp->types.type_cache;
#else
    struct type_cache *cache = &interp->type_cache;
#endif
    for (size_t i = 0; i < sizeof(cache->hashtable) / sizeof(cache->hashtable[0]); i++) {
        PyObject *name = cache->hashtable[i].name;
        if (name != NULL) visit(name, context);
    }
#else
    /* 3.9 keeps the cache in a static array of Objects/typeobject.c. */
    (void)visit;
    (void)context;
#endif
}

PyObject *rs_type_subclasses(PyTypeObject *type) {
    uintptr_t value = (uintptr_t)type->tp_subclasses;
#if PY_VERSION_HEX >= 0x030C0000
    /* A 1-based index into the interpreter's table, or a dict pointer
     * (never below the first page). The table entry must name this type. */
    if (value == 0 || value >= 4096) return (PyObject *)type->tp_subclasses;
    size_t index = value - 1;
    PyInterpreterState *interp = PyInterpreterState_Get();
#if PY_VERSION_HEX >= 0x030D0000
    if (index < _Py_MAX_MANAGED_STATIC_BUILTIN_TYPES && interp->types.builtins.initialized[index].type == type)
        return interp->types.builtins.initialized[index].tp_subclasses;
    if (index < _Py_MAX_MANAGED_STATIC_EXT_TYPES && interp->types.for_extensions.initialized[index].type == type)
        return interp->types.for_extensions.initialized[index].tp_subclasses;
#else
    if (index < _Py_MAX_STATIC_BUILTIN_TYPES && interp->types.builtins[index].type == type)
        return interp->types.builtins[index].tp_subclasses;
#endif
    return NULL;
#else
    return (PyObject *)value;
#endif
}

void rs_interpreter_types_visit(void (*visit)(PyObject *type, const char *field, void *context), void *context) {
#if PY_VERSION_HEX >= 0x030C0000
    /* interp->cached_objects: created at start-up, released with Py_CLEAR
     * in _Py_clear_generic_types (Objects/typevarobject.c). */
    PyInterpreterState *interp = PyInterpreterState_Get();
#define RS_VISIT_TYPE(field) \
    if (interp->cached_objects.field != NULL) visit((PyObject *)interp->cached_objects.field, #field, context)
    RS_VISIT_TYPE(generic_type);
    RS_VISIT_TYPE(typevar_type);
    RS_VISIT_TYPE(typevartuple_type);
    RS_VISIT_TYPE(paramspec_type);
    RS_VISIT_TYPE(paramspecargs_type);
    RS_VISIT_TYPE(paramspeckwargs_type);
#if PY_VERSION_HEX >= 0x030E0000
    RS_VISIT_TYPE(constevaluator_type);
#endif
#undef RS_VISIT_TYPE
#else
    (void)visit;
    (void)context;
#endif
}

PyObject *rs_interned_strings(void) {
#if PY_VERSION_HEX >= 0x030C0000
    return _Py_INTERP_CACHED_OBJECT(PyInterpreterState_Get(), interned_strings);
#else
    /* A static of Objects/unicodeobject.c, and never GC-tracked. */
    return NULL;
#endif
}
