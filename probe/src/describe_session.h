// DescribeSession: the probe's side of the describe API
// (probe/include/refscope/describe.h, docs/cpp-extensions.md).
//
// At the start of a walk it reads the registry that libraries publish to
// (a list in the interpreter's private dict), adds the probe's own
// recognisers (pybind11, nanobind, NumPy, Numba, PyTorch: recognise_*.cpp) and runs every heap
// callback. While the walk runs, HeapWalker::process() asks it to describe
// each instance of a type that has describers.
//
// Each callback writes into a CallReport through the C function table; the
// report is a copy (labels and names interned, counts bounded) and is applied
// to the snapshot only when the callback returns 0. A callback that fails,
// throws or leaves a Python exception set loses its reports; one that fails
// too often is not called again during this walk.
#pragma once

#include <Python.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "refscope/describe.h"

namespace refscope::probe {

class HeapWalker;
class EdgeCollector;

// Limits on one callback's reports (docs/cpp-extensions.md, "Rules for
// callbacks, and what the probe enforces").
inline constexpr size_t kMaxReportsPerCall = 1 << 16;
inline constexpr size_t kMaxLabelBytes = 256;
inline constexpr size_t kMaxTypeNameBytes = 512;
inline constexpr size_t kMaxPreviewBytes = 200;
// After this many failures in one walk a registration is not called again.
inline constexpr uint32_t kMaxFailuresPerWalk = 16;

// The length of a C string a callback handed over, read no further than
// `limit` bytes (it may lack its terminator).
inline size_t bounded_length(const char* text, size_t limit) {
    const void* end = std::memchr(text, '\0', limit);
    return end ? static_cast<size_t>(static_cast<const char*>(end) - text) : limit;
}

// One registration as the probe uses it (copied from the library's capsule,
// or one of the probe's own recognisers).
struct Describer {
    std::string library;
    uint32_t library_id = 0;  // string id, set by DescribeSession::add
    refscope_describe_instance_fn describe_instance = nullptr;
    refscope_describe_heap_fn describe_heap = nullptr;
    void* context = nullptr;
    // A library's own callback reports what its instances' C/C++ members
    // hold; the probe's pybind11 and nanobind recognisers describe every
    // bound type but report only the C++ object, keep_alive patients and
    // function records, never members (docs/format.md, type flag
    // "described").
    bool reports_members = true;
    uint32_t failures = 0;
    bool disabled = false;
};

// What one callback reported, in the order it reported it.
class DescribeSession;

struct CallReport {
    struct Native {
        uint32_t type_name = 0;   // string id of the C++ type name
        uint64_t address = 0;
        uint64_t size = 0;
        int64_t refcount = 0;
        uint32_t preview = 0;     // string id
        bool cpp_object = false;  // reported through cpp_object()
    };
    struct Edge {
        refscope_node from = REFSCOPE_SELF;
        PyObject* object = nullptr;         // target when it is a Python object
        refscope_node native = REFSCOPE_NO_NODE;  // target when it is a native node
        uint32_t label = 0;
        bool owned = true;
        bool attribute = false;  // REFSCOPE_EDGE_ATTRIBUTE
    };
    struct Root {
        refscope_node native = REFSCOPE_NO_NODE;
        PyObject* object = nullptr;
        uint32_t label = 0;
        uint32_t count = 0;
    };

    DescribeSession* session = nullptr;  // set once; clear() keeps it
    // Handles are generation << 32 | index + 1, so that a handle kept from
    // an earlier call never names a node of this one.
    uint32_t generation = 0;
    bool for_instance = false;
    PyObject* self = nullptr;
    uint64_t self_begin = 0, self_end = 0;  // the instance's own bytes
    size_t reports = 0;
    size_t dropped = 0;
    uint32_t library = 0;  // string id
    std::vector<Native> natives;
    std::vector<Edge> edges;
    std::vector<Root> roots;
    std::vector<PyObject*> includes;

    void clear();  // and starts a new generation
    // Counts one report; false (and counts it dropped) beyond the bound.
    bool admit();
    refscope_node handle(size_t index) const {
        return (static_cast<uint64_t>(generation) << 32) | (index + 1);
    }
    // The natives index of a handle of this call, or SIZE_MAX.
    size_t index_of(refscope_node handle) const {
        if ((handle >> 32) != generation) return SIZE_MAX;
        const uint64_t k = handle & 0xFFFFFFFFu;
        return k >= 1 && k <= natives.size() ? static_cast<size_t>(k - 1) : SIZE_MAX;
    }
};

struct DescribeStats {
    uint64_t calls = 0;
    uint64_t failed_calls = 0;
    uint64_t dropped_reports = 0;
    uint64_t native_nodes = 0;
    uint64_t disabled = 0;  // registrations switched off for too many failures
    uint64_t registrations = 0;
};

class DescribeSession {
public:
    explicit DescribeSession(HeapWalker& walker);
    ~DescribeSession();
    DescribeSession(const DescribeSession&) = delete;
    DescribeSession& operator=(const DescribeSession&) = delete;

    // Reads the registry, sets up the probe's recognisers and runs the heap
    // callbacks. Called once the start set and the roots are in.
    void begin();

    // Registers a describer for `type` (nullptr: heap callback only); the
    // probe's recognisers use this too. Returns its index for add_type().
    uint32_t add(PyTypeObject* type, Describer describer);
    // Makes describer `index` describe instances of `type` as well.
    void add_type(PyTypeObject* type, uint32_t index);

    // The describer list of a type (its own and its bases'), as an id for
    // TypeFacts::describers; 0 when none applies.
    uint32_t describers_for(PyTypeObject* tp);
    // Whether a describer of list `list` reports members (Describer::reports_members).
    bool reports_members(uint32_t list) const;

    // Runs the describers of list `list` on `op` (node `node`, whose own
    // bytes span [op, op + shallow_size)), adding its described edges to
    // `collector`.
    void describe_instance(PyObject* op, uint32_t node, uint64_t shallow_size, uint32_t list,
                           EdgeCollector& collector);

    const DescribeStats& stats() const { return stats_; }

    // For the C function table (describe_api.cpp): the report being filled,
    // or nullptr outside a callback.
    static CallReport* active(refscope_describe_sink* sink);
    HeapWalker& walker() { return walker_; }
    uint32_t type_name_id(const char* name, uint32_t flags);

private:
    bool call(Describer& d, PyObject* self);
    void commit(CallReport& report, uint32_t self_node, EdgeCollector* collector);
    void read_registry();

    HeapWalker& walker_;
    std::vector<Describer> describers_;
    std::unordered_map<PyTypeObject*, std::vector<uint32_t>> by_type_;
    std::vector<uint32_t> heap_describers_;
    // Describer lists per type: list 0 is empty; lists_[i] holds indexes
    // into describers_.
    std::vector<std::vector<uint32_t>> lists_;
    std::unordered_map<PyTypeObject*, uint32_t> list_of_type_;
    std::unordered_map<const char*, uint32_t> mangled_names_;
    CallReport report_;
    std::vector<uint32_t> local_nodes_;  // per report native: node id or kNoNode
    std::vector<uint8_t> writable_;      // per report native: may get out-edges (HeapWalker::native_node)
    DescribeStats stats_;
};

// The function table handed to callbacks (describe_api.cpp).
const refscope_describe_api* describe_api();

// The probe's recognisers (recognise_*.cpp). Each looks for its library in
// the running process and registers describers for what it can read safely;
// where it cannot, it registers nothing.
void recognise_pybind11(DescribeSession& session);
void recognise_nanobind(DescribeSession& session);
void recognise_numpy(DescribeSession& session);
// NumPy's ufunc loops and array-function dispatchers (recognise_numpy_holders.cpp),
// called by recognise_numpy with the dict of the module holding its C API.
void recognise_numpy_holders(DescribeSession& session, PyObject* module_dict);
void recognise_numba(DescribeSession& session);
void recognise_torch(DescribeSession& session);

}  // namespace refscope::probe
