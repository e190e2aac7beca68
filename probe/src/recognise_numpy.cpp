// The probe's NumPy and Numba recognisers.
//
// NumPy: an ndarray that owns its data gets a native node "ndarray data"
// (the bytes, shape and dtype in its preview) through an owned edge `data`;
// every ndarray gets its owned `base` and `dtype` edges (ndarray is not a GC
// type, so nothing reports them: a view's base showed as unexplained
// surplus); arrays of Python objects get an edge per element from their data
// node. Views own no data, so the bytes are counted once, at the array that
// owns them, however many views share them. Keyed on NumPy's C ABI version,
// read from its own API table (PyArray_GetNDArrayCVersion, a C function
// returning a constant; the table is the `_ARRAY_API` capsule of
// numpy._core._multiarray_umath in 2.x, numpy.core._multiarray_umath in
// 1.x). The layouts restated below are NumPy's public ABI:
//   ABI 0x01000009 (every 1.x): PyArray_Descr has `char flags` and
//       `int elsize`, `int alignment`;
//   ABI 0x02000000 (every 2.x, checked against 2.2 and 2.4's headers):
//       PyArray_Descr has `npy_uint64 flags`, `npy_intp elsize`,
//       `npy_intp alignment` after type_num;
//   both: PyArrayObject_fields is unchanged; mem_handler exists from C API
//       feature version 0xF (1.22).
// Other ABI versions are not recognised (degrades to nothing).
//
// Numba: each numba.core.runtime._nrt_python._MemInfo Python object gets a
// native node for its NRT MemInfo (refcount, bytes: the MemInfo header and
// its data, allocated together). Keyed on numba.__version__: the MemInfo and
// MemInfoObject layouts below are those of Numba 0.56 (verified against the
// sources Debian ships in python3-numba: 0.56 in Debian 12, 0.61.2 in
// Debian 13, 0.65.1 in testing, all alike); versions outside 0.49 to 0.x are
// not recognised.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "describe_session.h"
#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {
namespace {

// ------------------------------------------------------------------ NumPy

// numpy/ndarraytypes.h: the public fields of PyArray_Descr, 1.x and 2.x.
struct NumpyDescr1 {
    PyObject_HEAD
    PyTypeObject* typeobj;
    char kind;
    char type;
    char byteorder;
    char flags;
    int type_num;
    int elsize;
    int alignment;
};

struct NumpyDescr2 {
    PyObject_HEAD
    PyTypeObject* typeobj;
    char kind;
    char type;
    char byteorder;
    char former_flags;
    int type_num;
    uint64_t flags;
    Py_ssize_t elsize;
    Py_ssize_t alignment;
};

// The fields both share, at the same offsets.
using NumpyDescrHead = NumpyDescr1;
static_assert(offsetof(NumpyDescr1, type_num) == offsetof(NumpyDescr2, type_num));
static_assert(offsetof(NumpyDescr1, typeobj) == offsetof(NumpyDescr2, typeobj));

struct NumpyArray {
    PyObject_HEAD
    char* data;
    int nd;
    Py_ssize_t* dimensions;
    Py_ssize_t* strides;
    PyObject* base;
    NumpyDescrHead* descr;
    int flags;
    PyObject* weakreflist;
    void* buffer_info;     // feature version >= 0xE (1.20)
    PyObject* mem_handler; // feature version >= 0xF (1.22): owned when OWNDATA
};

constexpr unsigned kNumpyAbi1 = 0x01000009;
constexpr unsigned kNumpyAbi2 = 0x02000000;
constexpr unsigned kFeatureMemHandler = 0xF;
constexpr int kOwnData = 0x0004;      // NPY_ARRAY_OWNDATA
constexpr int kContiguous = 0x0003;   // NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_F_CONTIGUOUS
constexpr int kObjectTypeNum = 17;    // NPY_OBJECT
constexpr size_t kMaxObjectElements = 60000;  // stays under the per-call bound

struct NumpyState {
    bool mem_handler = false;
    bool abi2 = false;
};
NumpyState g_numpy;

// The element size, read with the layout of the running NumPy's ABI.
int64_t element_size(const NumpyDescrHead* descr) {
    if (g_numpy.abi2) return reinterpret_cast<const NumpyDescr2*>(descr)->elsize;
    return descr->elsize;
}

void format_shape(const NumpyArray* a, std::string& out) {
    out += '(';
    for (int i = 0; i < a->nd && i < 32; ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(a->dimensions[i]);
    }
    if (a->nd == 1) out += ',';
    out += ')';
}

int describe_ndarray(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    auto* a = reinterpret_cast<NumpyArray*>(self);
    if (a->descr != nullptr)
        api->object_edge(sink, REFSCOPE_SELF, reinterpret_cast<PyObject*>(a->descr), "dtype", REFSCOPE_EDGE_ATTRIBUTE);
    if (a->base != nullptr) api->object_edge(sink, REFSCOPE_SELF, a->base, "base", REFSCOPE_EDGE_ATTRIBUTE);
    if (!(a->flags & kOwnData) || a->data == nullptr || a->descr == nullptr || a->nd < 0 || a->nd > 64) return 0;
    if (g_numpy.mem_handler && a->mem_handler != nullptr)
        api->object_edge(sink, REFSCOPE_SELF, a->mem_handler, "mem_handler", 0);

    uint64_t elements = 1;
    bool overflow = false;
    for (int i = 0; i < a->nd; ++i) {
        const Py_ssize_t d = a->dimensions[i];
        overflow |= d < 0 || __builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements);
    }
    uint64_t bytes = 0;
    const int64_t elsize = element_size(a->descr);
    overflow |= elsize < 0 || __builtin_mul_overflow(elements, static_cast<uint64_t>(elsize), &bytes);
    if (overflow) return 0;

    refscope_node data = api->native_node(sink, "ndarray data", 0, a->data, bytes);
    std::string preview;
    const char* dtype = a->descr->typeobj != nullptr ? a->descr->typeobj->tp_name : "?";
    if (std::strncmp(dtype, "numpy.", 6) == 0) dtype += 6;
    preview = dtype;
    preview += ' ';
    format_shape(a, preview);
    api->native_details(sink, data, -1, preview.c_str());
    api->native_edge(sink, REFSCOPE_SELF, data, "data", 0);

    // An object array's buffer holds a reference to each element; nothing
    // reports them to the collector (ndarray has no tp_traverse).
    if (a->descr->type_num == kObjectTypeNum && (a->flags & kContiguous) &&
        elsize == static_cast<int64_t>(sizeof(PyObject*))) {
        auto** items = reinterpret_cast<PyObject**>(a->data);
        char label[32];
        const uint64_t shown = elements < kMaxObjectElements ? elements : kMaxObjectElements;
        for (uint64_t i = 0; i < shown; ++i) {
            if (items[i] == nullptr) continue;
            std::snprintf(label, sizeof label, "[%llu]", static_cast<unsigned long long>(i));
            api->object_edge(sink, data, items[i], label, 0);
        }
    }
    return 0;
}

}  // namespace

void recognise_numpy(DescribeSession& session) {
    // NumPy 2 keeps its C API table in numpy._core._multiarray_umath, 1.x in
    // numpy.core._multiarray_umath (in 2.x a shim that must not be touched).
    PyObject* module = loaded_module_dict("numpy._core._multiarray_umath");
    PyObject* capsule = dict_find_str(module, "_ARRAY_API");
    if (capsule == nullptr) {
        module = loaded_module_dict("numpy.core._multiarray_umath");
        capsule = dict_find_str(module, "_ARRAY_API");
    }
    if (capsule == nullptr || !PyCapsule_IsValid(capsule, nullptr)) return;
    auto** api = static_cast<void**>(PyCapsule_GetPointer(capsule, nullptr));
    if (api == nullptr) return;
    // Slot 0: PyArray_GetNDArrayCVersion; slot 211: ...CFeatureVersion;
    // slot 2: &PyArray_Type (the same slots in 1.x and 2.x). Both functions
    // return constants.
    auto abi = reinterpret_cast<unsigned (*)(void)>(api[0]);
    auto feature = reinterpret_cast<unsigned (*)(void)>(api[211]);
    if (abi == nullptr || feature == nullptr) return;
    const unsigned version = abi();
    if (version != kNumpyAbi1 && version != kNumpyAbi2) return;
    auto* array_type = static_cast<PyTypeObject*>(api[2]);
    if (array_type == nullptr || array_type->tp_basicsize < static_cast<Py_ssize_t>(offsetof(NumpyArray, weakreflist)))
        return;
    g_numpy.abi2 = version == kNumpyAbi2;
    g_numpy.mem_handler = feature() >= kFeatureMemHandler &&
                          array_type->tp_basicsize >= static_cast<Py_ssize_t>(sizeof(NumpyArray));
    Describer d;
    d.library = "numpy";
    d.describe_instance = &describe_ndarray;
    session.add(array_type, d);
    // ufunc loops and array-function dispatchers (1.22+: the same feature
    // version as mem_handler).
    if (feature() >= kFeatureMemHandler) recognise_numpy_holders(session, module);
}

// ------------------------------------------------------------------ Numba

namespace {

// numba/core/runtime/nrt.c (struct MemInfo) and _nrt_python.c
// (MemInfoObject), Numba 0.56.
struct NrtMemInfo {
    size_t refct;
    void (*dtor)(void*, size_t, void*);
    void* dtor_info;
    void* data;
    size_t size;
    void* external_allocator;
};

struct MemInfoObject {
    PyObject_HEAD
    NrtMemInfo* meminfo;
};

int describe_meminfo(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    NrtMemInfo* mi = reinterpret_cast<MemInfoObject*>(self)->meminfo;
    if (mi == nullptr) return 0;
    // NRT allocates the MemInfo and its data in one block.
    const uint64_t bytes = sizeof(NrtMemInfo) + mi->size;
    refscope_node node = api->native_node(sink, "NRT_MemInfo", 0, mi, bytes);
    char preview[64];
    std::snprintf(preview, sizeof preview, "refct %zu, %zu bytes", mi->refct, mi->size);
    api->native_details(sink, node, static_cast<int64_t>(mi->refct), preview);
    api->native_edge(sink, REFSCOPE_SELF, node, "meminfo", 0);
    return 0;
}

}  // namespace

void recognise_numba(DescribeSession& session) {
    PyObject* numba = loaded_module_dict("numba");
    PyObject* nrt = loaded_module_dict("numba.core.runtime._nrt_python");
    if (numba == nullptr || nrt == nullptr) return;
    int major = -1, minor = -1;
    if (!module_version(numba, major, minor) || major != 0 || minor < 49) return;
    PyObject* type = dict_find_str(nrt, "_MemInfo");
    if (type == nullptr || !PyType_Check(type)) return;
    auto* tp = reinterpret_cast<PyTypeObject*>(type);
    if (tp->tp_basicsize != static_cast<Py_ssize_t>(sizeof(MemInfoObject))) return;
    Describer d;
    d.library = "numba";
    d.describe_instance = &describe_meminfo;
    session.add(tp, d);
}

}  // namespace refscope::probe
