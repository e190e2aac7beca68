// Allocation sites from tracemalloc (allocation_sites.h says when and why).
#include "allocation_sites.h"

#include <Python.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "compat.h"
#include "heap_walker.h"
#include "python_text.h"

// tracemalloc's lookup of one memory block, _PyTraceMalloc_GetTraceback:
// exported (PyAPI_FUNC) with this signature from 3.8 to 3.15, declared in
// Include/tracemalloc.h up to 3.12 (without C linkage for C++ callers) and
// in the internal pycore_tracemalloc.h since 3.13, so the probe finds it by
// name. Returns None for a block it does not trace (or when not tracing),
// else a tuple of (filename, lineno) tuples, the most recent call first.
using GetTraceback = PyObject* (*)(unsigned int domain, uintptr_t ptr);

namespace refscope::probe {
namespace {

// The memory block an object lives in starts before the object by the
// pre-header (GC header, managed dict and weakref pointers). CPython's own
// _tracemalloc._get_object_traceback forgets the managed dict on 3.11, so
// the probe computes the block's address itself.
PyObject* object_traceback(GetTraceback get_traceback, PyObject* op) {
    const uintptr_t block = reinterpret_cast<uintptr_t>(op) - compat::pre_header_bytes(Py_TYPE(op));
    return get_traceback(0, block);
}

// A trace limit asked for on the command line or in the environment
// (-X tracemalloc=N, PYTHONTRACEMALLOC=N): tracing from start-up, before
// (or without) any import of tracemalloc. 0 when neither asks.
uint32_t startup_trace_limit() {
    long limit = 0;
    if (const char* env = std::getenv("PYTHONTRACEMALLOC"); env != nullptr && *env != '\0')
        limit = std::max(1L, std::strtol(env, nullptr, 10));
    PyObject* xoptions = PySys_GetObject("_xoptions");  // borrowed, no code runs
    if (xoptions != nullptr && PyDict_Check(xoptions)) {
        PyObject* value = dict_find_str(xoptions, "tracemalloc");
        if (value == Py_True) {
            limit = std::max(limit, 1L);
        } else if (value != nullptr) {
            std::string text;
            if (append_utf8(text, value, 20)) limit = std::max(1L, std::strtol(text.c_str(), nullptr, 10));
        }
    }
    return static_cast<uint32_t>(std::clamp(limit, 0L, 65535L));
}

// A builtin of _tracemalloc called through its C function pointer: what
// calling it from Python would run, minus the call machinery (and without
// any chance of reaching Python code: a replaced attribute is refused).
struct Builtin {
    PyCFunction function = nullptr;
    PyObject* self = nullptr;

    bool bind(PyObject* module_dict, const char* name, int calling_convention) {
        PyObject* f = dict_find_str(module_dict, name);
        if (f == nullptr || !PyCFunction_Check(f)) return false;
        constexpr int kConventions = METH_VARARGS | METH_KEYWORDS | METH_NOARGS | METH_O | METH_FASTCALL;
        if ((PyCFunction_GET_FLAGS(f) & kConventions) != calling_convention) return false;
        function = PyCFunction_GET_FUNCTION(f);
        self = PyCFunction_GET_SELF(f);
        return function != nullptr;
    }
    PyObject* call(PyObject* arg) const { return function(self, arg); }
};

// The lines a code object's line table gives its instructions, each
// reported to `f` (repeats included). The table's encoding changed in 3.10
// and 3.11 (CPython's Objects/lnotab_notes.txt and locations.md); this is
// one of the version branches compat.h lists.
template <typename F>
void for_each_code_line(PyCodeObject* co, F&& f) {
    int line = co->co_firstlineno;
#if PY_VERSION_HEX >= 0x030B0000
    // Entries start with a byte with bit 7 set: bits 3-6 the entry's code,
    // then (for codes 13 and 14) a signed varint line delta in 6-bit groups.
    PyObject* table = co->co_linetable;
    if (table == nullptr || !PyBytes_Check(table)) return;
    const auto* p = reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(table));
    const uint8_t* end = p + PyBytes_GET_SIZE(table);
    while (p < end) {
        const uint8_t first = *p++;
        if (!(first & 0x80)) continue;  // inside an entry: resynchronise
        const int code = (first >> 3) & 15;
        int delta = 0;
        if (code == 13 || code == 14) {
            uint32_t value = 0;
            int shift = 0;
            while (p < end && shift < 30) {
                const uint8_t b = *p++;
                value |= static_cast<uint32_t>(b & 63) << shift;
                shift += 6;
                if (!(b & 64)) break;
            }
            delta = (value & 1) ? -static_cast<int>(value >> 1) : static_cast<int>(value >> 1);
        } else if (code >= 10 && code <= 12) {
            delta = code - 10;
        }
        line += delta;
        if (code != 15) f(line);  // 15: no line
        while (p < end && !(*p & 0x80)) ++p;
    }
#elif PY_VERSION_HEX >= 0x030A0000
    // Pairs (bytecode delta, signed line delta); -128: no line.
    PyObject* table = co->co_linetable;
    if (table == nullptr || !PyBytes_Check(table)) return;
    const auto* p = reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(table));
    const Py_ssize_t n = PyBytes_GET_SIZE(table) / 2;
    for (Py_ssize_t i = 0; i < n; ++i) {
        const int ldelta = static_cast<signed char>(p[2 * i + 1]);
        if (ldelta == -128) continue;
        line += ldelta;
        if (p[2 * i] != 0) f(line);
    }
#else
    // co_lnotab: pairs (bytecode increment, signed line increment); a line
    // has instructions when the next pair moves the address.
    PyObject* table = co->co_lnotab;
    if (table == nullptr || !PyBytes_Check(table)) return;
    const auto* p = reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(table));
    const Py_ssize_t n = PyBytes_GET_SIZE(table) / 2;
    for (Py_ssize_t i = 0; i < n; ++i) {
        if (p[2 * i] != 0) f(line);
        line += static_cast<signed char>(p[2 * i + 1]);
    }
    f(line);
#endif
}

struct CodeSpan {
    PyCodeObject* code;
    int first;
    int last;
};

// File name object → string id, remembering the last 256 objects seen (with
// a reference held, so that an address cannot come back as another str).
// Interpreters that hand out the same object for a file hit every time;
// one that makes a new str per lookup (3.15) only pays for the text.
class FileNames {
public:
    explicit FileNames(HeapWalker& walker) : walker_(walker) {}
    ~FileNames() {
        for (Slot& slot : slots_) Py_XDECREF(slot.object);
    }
    FileNames(const FileNames&) = delete;
    FileNames& operator=(const FileNames&) = delete;

    static constexpr size_t kChars = 1000;

    uint32_t id(PyObject* file) {
        Slot& slot = slots_[(reinterpret_cast<uintptr_t>(file) >> 4) % kSlots];
        if (slot.object == file) return slot.id;
        Py_INCREF(file);
        Py_XDECREF(slot.object);
        slot.object = file;
        slot.id = walker_.python_text(file, kChars);
        return slot.id;
    }

private:
    static constexpr size_t kSlots = 256;
    struct Slot {
        PyObject* object = nullptr;
        uint32_t id = 0;
    };
    HeapWalker& walker_;
    Slot slots_[kSlots];
};

// Finds the function of (file, line) among the code objects of the heap.
// Files are string ids (their text interned): code objects of one module
// share one file name object, but tracemalloc may hand out a new str for
// every lookup (3.15 does), so objects cannot be the key.
class FunctionFinder {
public:
    explicit FunctionFinder(HeapWalker& walker) : walker_(walker) {
        const Snapshot& s = walker.snapshot();
        const auto code_type = reinterpret_cast<uint64_t>(&PyCode_Type);
        std::unordered_map<PyObject*, std::vector<PyCodeObject*>> by_object;
        for (uint32_t node = 0; node < s.node_count(); ++node) {
            if (s.node_flags[node] & format::kNodeNative) continue;
            const uint32_t t = s.node_type[node];
            if (t >= s.types.size() || s.types[t].type_address != code_type) continue;
            auto* co = reinterpret_cast<PyCodeObject*>(s.node_address[node]);
            by_object[co->co_filename].push_back(co);
        }
        for (auto& [name, codes] : by_object) {
            std::vector<PyCodeObject*>& same = by_file_[walker.python_text(name, FileNames::kChars)];
            same.insert(same.end(), codes.begin(), codes.end());
        }
    }

    // String id of the qualified name of the function running `line` of
    // file `file` (a string id), or 0.
    uint32_t function_at(uint32_t file, int line) {
        const std::vector<CodeSpan>& spans = spans_of(file);
        // Innermost first: the latest first line whose span holds `line`
        // and whose table really has it (an outer function's span covers
        // its nested functions' lines, its table does not).
        for (const CodeSpan& span : spans) {
            if (span.first > line || span.last < line) continue;
            bool has = false;
            for_each_code_line(span.code, [&](int l) { has = has || l == line; });
            if (has) return walker_.python_text(qualified_name(span.code));
        }
        return 0;
    }

private:
    static PyObject* qualified_name(PyCodeObject* co) {
#if PY_VERSION_HEX >= 0x030B0000
        return co->co_qualname;
#else
        return co->co_name;
#endif
    }

    const std::vector<CodeSpan>& spans_of(uint32_t file) {
        auto found = spans_.find(file);
        if (found != spans_.end()) return found->second;
        std::vector<CodeSpan>& spans = spans_[file];
        auto codes = by_file_.find(file);
        if (codes != by_file_.end()) {
            for (PyCodeObject* co : codes->second) {
                CodeSpan span{co, co->co_firstlineno, co->co_firstlineno};
                for_each_code_line(co, [&](int l) { span.last = std::max(span.last, l); });
                spans.push_back(span);
            }
        }
        std::sort(spans.begin(), spans.end(), [](const CodeSpan& a, const CodeSpan& b) { return a.first > b.first; });
        return spans;
    }

    HeapWalker& walker_;
    std::unordered_map<uint32_t, std::vector<PyCodeObject*>> by_file_;
    std::unordered_map<uint32_t, std::vector<CodeSpan>> spans_;
};

// Distinct frames and tracebacks. A frame is (file's string id, line).
class TracebackTable {
public:
    TracebackTable(HeapWalker& walker, AllocationSites& sites)
        : sites_(sites), files_(walker), functions_(walker) {}

    // Traceback id + 1 of tracemalloc's traceback tuple (frames of
    // (filename, lineno), the most recent first), 0 if it is malformed.
    uint32_t add(PyObject* traceback) {
        if (!PyTuple_CheckExact(traceback) || PyTuple_GET_SIZE(traceback) == 0) return 0;
        key_.clear();
        frame_ids_.clear();
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(traceback); ++i) {
            PyObject* frame = PyTuple_GET_ITEM(traceback, i);
            if (!PyTuple_CheckExact(frame) || PyTuple_GET_SIZE(frame) != 2) return 0;
            PyObject* file = PyTuple_GET_ITEM(frame, 0);
            PyObject* line_object = PyTuple_GET_ITEM(frame, 1);
            if (!PyUnicode_Check(file) || !PyLong_CheckExact(line_object)) return 0;
            const long line = PyLong_AsLong(line_object);
            if (line < 0 || PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
            frame_ids_.push_back(frame_id(files_.id(file), static_cast<int>(line)));
            key_.append(reinterpret_cast<const char*>(&frame_ids_.back()), sizeof(uint32_t));
        }
        auto [it, inserted] = tracebacks_.try_emplace(key_, 0);
        if (inserted) it->second = sites_.add_traceback(frame_ids_) + 1;
        return it->second;
    }

private:
    uint32_t frame_id(uint32_t file, int line) {
        const uint64_t key = (uint64_t{file} << 32) | static_cast<uint32_t>(line);
        auto [it, inserted] = frames_.try_emplace(key, 0);
        if (!inserted) return it->second;
        AllocationFrame frame;
        frame.file = file;
        frame.line = static_cast<uint32_t>(line);
        frame.function = functions_.function_at(file, line);
        sites_.frames.push_back(frame);
        return it->second = static_cast<uint32_t>(sites_.frames.size() - 1);
    }

    AllocationSites& sites_;
    FileNames files_;
    FunctionFinder functions_;
    std::unordered_map<uint64_t, uint32_t> frames_;
    std::unordered_map<std::string, uint32_t> tracebacks_;
    std::string key_;
    std::vector<uint32_t> frame_ids_;
};

}  // namespace

AllocationStats record_allocation_sites(HeapWalker& walker) {
    AllocationStats stats;
    const auto start = std::chrono::steady_clock::now();
    Snapshot& s = walker.snapshot();
    AllocationSites& sites = s.allocations;
    // Tracing? tracemalloc's own answer when it is imported; else what the
    // command line or environment asked for at start-up.
    PyObject* module = loaded_module_dict("_tracemalloc");
    Builtin is_tracing, get_limit;
    if (module != nullptr && is_tracing.bind(module, "is_tracing", METH_NOARGS) &&
        get_limit.bind(module, "get_traceback_limit", METH_NOARGS)) {
        PyObject* tracing = is_tracing.call(nullptr);
        stats.tracing = tracing == Py_True;
        Py_XDECREF(tracing);
        PyObject* limit = stats.tracing ? get_limit.call(nullptr) : nullptr;
        if (limit != nullptr && PyLong_CheckExact(limit))
            sites.traceback_limit = static_cast<uint32_t>(PyLong_AsLong(limit));
        Py_XDECREF(limit);
        if (PyErr_Occurred()) PyErr_Clear();
    } else {
        sites.traceback_limit = startup_trace_limit();
        stats.tracing = sites.traceback_limit > 0;
    }
    if (!stats.tracing) return stats;
    // Only the snapshot is read from here on, and tracemalloc's look-ups
    // allocate: the walk's maps and scratch go first (with the GIL held,
    // but only when tracing; otherwise finish_previews() frees them).
    walker.release_walk_tables();
    const auto get_traceback = reinterpret_cast<GetTraceback>(dlsym(RTLD_DEFAULT, "_PyTraceMalloc_GetTraceback"));
    if (get_traceback == nullptr) return stats;

    const size_t n = s.node_count();
    sites.node_traceback.assign(n, 0);
    {
        TracebackTable table(walker, sites);
        for (size_t node = 0; node < n; ++node) {
            if (s.node_flags[node] & format::kNodeNative) continue;
            auto* op = reinterpret_cast<PyObject*>(s.node_address[node]);
            PyObject* traceback = object_traceback(get_traceback, op);
            if (traceback == nullptr) {
                PyErr_Clear();
                ++stats.lookup_failures;
                continue;
            }
            if (traceback != Py_None) sites.node_traceback[node] = table.add(traceback);
            Py_DECREF(traceback);
            if (sites.node_traceback[node] != 0) ++stats.traced_objects;
        }
    }
    stats.tracebacks = sites.traceback_count();
    stats.frames = sites.frames.size();
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

}  // namespace refscope::probe
