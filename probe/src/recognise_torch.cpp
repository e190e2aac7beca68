// The probe's PyTorch recogniser.
//
// What it reports, for every torch.Tensor (any subclass of torch._C.TensorBase:
// Parameter, FakeTensor, user subclasses) and torch.UntypedStorage:
//   tensor --cdata--> c10::TensorImpl --storage_--> c10::StorageImpl
//          --data_ptr_--> "tensor data (<device>)" holding the storage's bytes;
//   TensorImpl --autograd_meta_->grad_--> the gradient's TensorImpl, and a
//          view's --autograd_meta_->backward_info_->base_--> its base's;
//   TensorImpl/StorageImpl --pyobj_slot_ (preserved)--> its Python object,
//          when C++ owns that object (PyObject preservation: the C++ object
//          outlives every Python reference, and the Python object with it).
// Views share one StorageImpl, so the bytes are one node, counted once. The
// C++ objects carry their strong reference counts: when the references the
// graph shows do not account for them, the walker roots the object as held
// by C/C++ code (HeapWalker::add_native_holder_roots), which is where the
// autograd graph's saved tensors show up.
//
// Nothing is read without a layout measured from the running release's own
// headers (torch_layout.h): the release is torch.__version__'s major.minor,
// read from the module dict without running code, and the layout is used only
// if TensorBase's basic size matches it. C++ objects are identified by their
// RTTI names (read from the vtable, no call), so a TensorImpl subclass, an
// undefined tensor or a stranger is never mistaken for what it is not.
// docs/pytorch-internals.md has the facts behind every read. The Python
// functions the C++ dispatcher holds are recognise_torch_dispatcher.cpp's.
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "describe_session.h"
#include "python_text.h"
#include "recognise_torch.h"

namespace refscope::probe {
namespace {

constexpr TorchLayout kTorchLayouts[] = {
#include "torch_layouts.inc"
    TorchLayout{},  // end of the list
};

constexpr size_t kMaxRank = 64;
// C++ objects one call may reach through .grad and view bases (the walk's
// own per-call report bound is far larger than what these produce).
constexpr size_t kMaxImplsPerCall = 4096;

struct TorchState {
    const TorchLayout* layout = nullptr;
    bool maybe_owned = false;  // THPVariable.cdata is a MaybeOwned<Tensor>
    size_t tensor_ptr = 0, tensor_borrowed = 0, storage_ptr = 0;
    bool read_autograd = false;  // AutogradMeta's layout assumes the C++11 std::string
    // torch.from_numpy's deleters: NumPy's ndarray type (null: not read) and
    // libtorch_python, whose code the deleter is.
    PyTypeObject* ndarray = nullptr;
    LoadedLibrary python_library;
    // libc10, whose (unexported) deleteInefficientStdFunctionContext is the
    // deleter of every DataPtr whose context is an InefficientStdFunctionContext.
    LoadedLibrary c10_library;
    // C++ objects whose out-edges this walk has reported (by whichever call
    // reported them first): the walker keeps only that call's edges. What a
    // call added is undone if the call fails (its reports are discarded).
    std::unordered_set<const void*> described;
    std::vector<const void*> described_by_call;
    // This call's node handles by address: a node reported twice in one call
    // would be two report entries, and facts given to the second are lost.
    std::unordered_map<const void*, refscope_node> handles;
    // vtable -> RTTI name (nullptr: not PyTorch's, or not inside a loaded
    // library), so each vtable is checked once.
    std::unordered_map<const void*, const char*> names;
};
TorchState g_torch;

// Whether `address` lies in a loaded shared object (dladdr only looks the
// address up in the loader's tables; it reads nothing there).
bool in_loaded_library(const void* address) {
    Dl_info info;
    return address != nullptr && dladdr(address, &info) != 0 && info.dli_fname != nullptr;
}

// dl_iterate_phdr's callback: the range of the PT_LOAD segments of the
// object loaded at `data`'s base.
struct SegmentSearch {
    uintptr_t base = 0, begin = 0, end = 0;
};
int find_segments(dl_phdr_info* info, size_t, void* data) {
    auto* s = static_cast<SegmentSearch*>(data);
    if (info->dlpi_addr != s->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const auto& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD) continue;
        const uintptr_t from = info->dlpi_addr + ph.p_vaddr, to = from + ph.p_memsz;
        s->begin = s->begin == 0 ? from : std::min(s->begin, from);
        s->end = std::max(s->end, to);
    }
    return 1;
}

// The loaded library `address` lies in; empty (path "", range 0..0) if none.
LoadedLibrary library_at(const void* address) {
    LoadedLibrary library;
    Dl_info info;
    if (address == nullptr || dladdr(address, &info) == 0 || info.dli_fname == nullptr) return library;
    SegmentSearch search;
    search.base = reinterpret_cast<uintptr_t>(info.dli_fbase);
    dl_iterate_phdr(&find_segments, &search);
    if (search.end == 0) return library;
    library.path = info.dli_fname;
    library.begin = search.begin;
    library.end = search.end;
    return library;
}

// libtorch_python, through a function of torch._C it defines.
LoadedLibrary find_torch_python(PyObject* c_module) {
    PyObject* init = dict_find_str(c_module, "_initExtension");
    if (init == nullptr || !PyCFunction_Check(init)) return {};
    return library_at(reinterpret_cast<const void*>(PyCFunction_GET_FUNCTION(init)));
}

// The RTTI name of a polymorphic C++ object ("N3c1010TensorImplE"), read from
// its vtable; nullptr unless it is in one of PyTorch's namespaces. Objects
// reached through other C++ objects may be replaced by threads that run
// without the GIL (the autograd engine accumulating a .grad), so the vtable,
// its type_info and the name must all lie in a loaded library before they
// are read: a freed object's first word is an allocator pointer into the
// heap, never a vtable.
const char* torch_rtti_name(const void* object) {
    auto* const* vtable = read_at<void* const*>(object, 0);
    auto cached = g_torch.names.find(vtable);
    if (cached != g_torch.names.end()) return cached->second;
    const char* result = nullptr;
    if (in_loaded_library(vtable) && in_loaded_library(vtable - 1)) {
        auto* info = static_cast<const std::type_info*>(vtable[-1]);
        if (in_loaded_library(info)) {
            const char* name = read_at<const char*>(info, sizeof(void*));  // type_info::__name
            if (in_loaded_library(name)) {
                if (*name == '*') ++name;  // a local type's name (type_info::name() skips it)
                for (const char* prefix : {"N3c10", "N2at", "N5torch"})
                    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) result = name;
            }
        }
    }
    if (g_torch.names.size() >= 4096) g_torch.names.clear();  // bounded, whatever it meets
    g_torch.names.emplace(vtable, result);
    return result;
}

// Marks `object` described by this call; false if it already was.
bool mark_described(const void* object) {
    if (!g_torch.described.insert(object).second) return false;
    g_torch.described_by_call.push_back(object);
    return true;
}

struct Counts {
    uint32_t strong = 0;
    PyObject* owned_pyobject = nullptr;  // the Python object C++ keeps alive
};

// The strong count of an intrusive_ptr_target (TensorImpl, StorageImpl) and
// whether it owns its Python object; `slot` is its PyObjectSlot's offset.
Counts read_counts(const void* object, size_t slot) {
    const TorchLayout& L = *g_torch.layout;
    Counts c;
    const auto pyobj = read_at<uintptr_t>(object, slot + L.slot_pyobj);
    if (L.combined_refcount) {
        // One word: strong count low, "has a PyObject" in the top bit. With
        // a PyObject and two or more strong references, C++ holds one
        // reference to the PyObject.
        const auto word = read_at<uint64_t>(object, L.refcount);
        c.strong = static_cast<uint32_t>(word);
        if ((word >> 63) != 0 && c.strong >= 2 && pyobj != 0) c.owned_pyobject = reinterpret_cast<PyObject*>(pyobj);
    } else {
        // Bit 0 of the slot's pointer: C++ owns the PyObject (it was
        // "resurrected" when its last Python reference went away).
        c.strong = read_at<uint32_t>(object, L.refcount);
        if ((pyobj & 1) != 0 && pyobj != 1) c.owned_pyobject = reinterpret_cast<PyObject*>(pyobj & ~uintptr_t{1});
    }
    return c;
}

const char* device_name(int8_t type) {
    for (const TorchDevice& d : g_torch.layout->devices)
        if (d.name != nullptr && d.type == type) return d.name;
    return "other device";
}

// Python's spelling of a dtype: the C++ enumerator lower-cased ("QUInt8" is
// torch.quint8, "Float8_e4m3fn" torch.float8_e4m3fn), except where Python
// names it by width.
std::string dtype_name(uint16_t index) {
    static constexpr struct { const char* cpp; const char* python; } kNames[] = {
        {"Byte", "uint8"},   {"Char", "int8"},     {"Short", "int16"},      {"Int", "int32"},
        {"Long", "int64"},   {"Half", "float16"},  {"Float", "float32"},    {"Double", "float64"},
        {"ComplexHalf", "complex32"},  {"ComplexFloat", "complex64"},      {"ComplexDouble", "complex128"},
    };
    for (const TorchScalarType& t : g_torch.layout->scalar_types) {
        if (t.name == nullptr || t.index != index) continue;
        for (const auto& n : kNames)
            if (std::strcmp(n.cpp, t.name) == 0) return n.python;
        std::string lower = t.name;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return lower;
    }
    return "?";
}

// "float32 (1000, 1000) cpu": sizes only when the TensorImpl keeps plain ones
// (not symbolic, no custom sizes policy), the device unless Python overrides it.
// Sizes kept on the heap (more than five dimensions) are read only for a
// tensor whose Python object is being described (`own`): another thread may
// resize a TensorImpl reached through C++ and free that array.
std::string tensor_preview(const char* impl, bool own) {
    const TorchLayout& L = *g_torch.layout;
    std::string out = dtype_name(read_at<uint16_t>(impl, L.ti_dtype));
    const bool symbolic = (read_at<uint8_t>(impl, L.symbolic_byte) & L.symbolic_mask) != 0;
    const bool custom_sizes = (read_at<uint8_t>(impl, L.policy_byte) & L.policy_mask) != 0;
    const auto rank = read_at<size_t>(impl, L.ti_sizes + L.sas_rank);
    const bool inline_sizes = rank <= static_cast<size_t>(L.sas_inline);
    if (!symbolic && !custom_sizes && rank <= kMaxRank && (inline_sizes || own)) {
        const char* sizes = inline_sizes
                                ? impl + L.ti_sizes + L.sas_storage
                                : read_at<const char*>(impl, L.ti_sizes + L.sas_storage);
        out += " (";
        for (size_t i = 0; sizes != nullptr && i < rank; ++i) {
            if (i > 0) out += ", ";
            out += std::to_string(read_at<int64_t>(sizes, i * sizeof(int64_t)));
        }
        out += rank == 1 ? ",)" : ")";
    }
    const bool custom_device = (read_at<uint8_t>(impl, L.device_policy_byte) & L.device_policy_mask) != 0;
    if (!custom_device && read_at<uint8_t>(impl, L.ti_device + 2) != 0) {
        out += ' ';
        out += device_name(read_at<int8_t>(impl, L.ti_device));
        const auto index = read_at<int8_t>(impl, L.ti_device + 1);
        if (index >= 0 && read_at<int8_t>(impl, L.ti_device) != 0) out += ':' + std::to_string(index);
    }
    return out;
}

void report_preserved(const refscope_describe_api* api, refscope_describe_sink* sink, refscope_node node,
                      const Counts& counts) {
    if (counts.owned_pyobject != nullptr)
        api->object_edge(sink, node, counts.owned_pyobject, "pyobj_slot_ (preserved)", 0);
}

// torch.from_numpy's memory stays the array's: the DataPtr's context is an
// InefficientStdFunctionContext whose deleter, a lambda of libtorch_python
// (torch/csrc/utils/tensor_numpy.cpp), captured the ndarray and holds a
// reference to it until the storage is freed. Its one capture is stored in
// place, first in the std::function. Reported only when every part checks
// out: the DataPtr's own deleter is code of libc10 (c10's deleter for such
// contexts is a static function, so no symbol names it exactly), the
// context's pointer is the data, the std::function's manager is code of
// libtorch_python, and the capture is an object whose type is exactly
// numpy.ndarray (a subclass, e.g. np.memmap, stays unexplained).
void report_numpy_owner(const refscope_describe_api* api, refscope_describe_sink* sink, refscope_node node,
                        const char* storage, const void* data, const char* context) {
    const TorchLayout& L = *g_torch.layout;
    if (g_torch.ndarray == nullptr || L.ctx_deleter == 0 || L.si_deleter == 0) return;
    if (!g_torch.c10_library.contains(read_at<const void*>(storage, L.si_deleter))) return;
    if (read_at<const void*>(context, L.ctx_ptr) != data) return;
    if (!g_torch.python_library.contains(read_at<const void*>(context, L.ctx_deleter + L.fn_manager))) return;
    const auto* array = read_at<const char*>(context, L.ctx_deleter);
    if (array == nullptr || reinterpret_cast<uintptr_t>(array) % alignof(PyObject) != 0) return;
    if (read_at<const PyTypeObject*>(array, offsetof(PyObject, ob_type)) != g_torch.ndarray) return;
    api->object_edge(sink, node, reinterpret_cast<PyObject*>(const_cast<char*>(array)),
                     "data_ptr_ deleter (from_numpy)", 0);
}

// The StorageImpl's facts and out-edges: its bytes as a node of their own.
// Memory PyTorch allocated itself has the data pointer as its DataPtr
// context; other memory (torch.from_numpy, frombuffer, a mapped file) has a
// context of its own and belongs to someone else: the NumPy array that owns
// it already counts its bytes, so here it is a node of size 0, "borrowed".
void describe_storage(const refscope_describe_api* api, refscope_describe_sink* sink, const char* storage,
                      refscope_node node) {
    const TorchLayout& L = *g_torch.layout;
    const Counts counts = read_counts(storage, L.si_pyobj_slot);
    const char* device = device_name(read_at<int8_t>(storage, L.si_device));
    // size_bytes_ is a SymInt: a plain count unless it was made symbolic.
    const bool symbolic = read_at<bool>(storage, L.si_size_heap);
    const auto bytes = read_at<int64_t>(storage, L.si_size_bytes);
    const auto* data = read_at<const void*>(storage, L.si_data);
    const auto* context = read_at<const char*>(storage, L.si_context);
    const bool borrowed = data != nullptr && context != data;
    char preview[128];
    if (symbolic || bytes < 0) std::snprintf(preview, sizeof preview, "%s, symbolic size", device);
    else std::snprintf(preview, sizeof preview, "%s, %lld bytes%s", device, static_cast<long long>(bytes),
                       data == nullptr ? ", not allocated"
                                       : borrowed ? ", borrowed (allocated outside PyTorch)" : "");
    api->native_details(sink, node, counts.strong, preview);
    report_preserved(api, sink, node, counts);
    if (borrowed && context != nullptr) report_numpy_owner(api, sink, node, storage, data, context);
    if (data == nullptr || symbolic || bytes <= 0) return;
    const std::string type = std::string("tensor data (") + device + (borrowed ? ", borrowed)" : ")");
    refscope_node bytes_node =
        api->native_node(sink, type.c_str(), 0, data, borrowed ? 0 : static_cast<uint64_t>(bytes));
    api->native_edge(sink, node, bytes_node, "data_ptr_", 0);
}

// The node of a C++ object for this call: reported once per call, the same
// handle after that.
refscope_node node_for(const refscope_describe_api* api, refscope_describe_sink* sink, const char* name,
                       const void* object, uint64_t size) {
    auto known = g_torch.handles.find(object);
    if (known != g_torch.handles.end()) return known->second;
    refscope_node node = api->native_node(sink, name, REFSCOPE_NAME_MANGLED, object, size);
    g_torch.handles.emplace(object, node);
    return node;
}

// The node of a live TensorImpl, or REFSCOPE_NO_NODE.
refscope_node impl_node(const refscope_describe_api* api, refscope_describe_sink* sink, const char* impl) {
    const char* name = impl != nullptr ? torch_rtti_name(impl) : nullptr;
    if (name == nullptr || std::strcmp(name, "N3c1019UndefinedTensorImplE") == 0) return REFSCOPE_NO_NODE;
    return node_for(api, sink, name, impl, g_torch.layout->ti_size);
}

// What a TensorImpl's autograd metadata holds: its .grad, and a view's base
// (in one or two ViewInfos: backward and, when they differ, forward).
// Appends the TensorImpls not described yet to `pending`.
void describe_autograd(const refscope_describe_api* api, refscope_describe_sink* sink, refscope_node node,
                       const char* meta, std::vector<const char*>& pending) {
    const TorchLayout& L = *g_torch.layout;
    const char* name = meta != nullptr && g_torch.read_autograd ? torch_rtti_name(meta) : nullptr;
    if (name == nullptr) return;
    const bool view = std::strcmp(name, "N5torch8autograd22DifferentiableViewMetaE") == 0;
    if (!view && std::strcmp(name, "N5torch8autograd12AutogradMetaE") != 0) return;
    auto link = [&](const char* target, const char* label) {
        refscope_node to = impl_node(api, sink, target);
        if (to == REFSCOPE_NO_NODE) return;
        api->native_edge(sink, node, to, label, 0);
        if (!g_torch.described.contains(target)) pending.push_back(target);
    };
    link(read_at<const char*>(meta, L.am_grad), "autograd_meta_->grad_");
    if (!view) return;
    if (read_at<bool>(meta, L.am_view_backward + L.view_engaged))
        link(read_at<const char*>(meta, L.am_view_backward + L.view_base), "autograd_meta_->backward_info_->base_");
    if (read_at<bool>(meta, L.am_view_forward + L.view_engaged))
        link(read_at<const char*>(meta, L.am_view_forward + L.view_base), "autograd_meta_->forward_info_->base_");
}

// Reports the out-edges of `first` and of every TensorImpl it reaches
// through .grad and view bases that this walk has not described yet (a
// worklist, not recursion: chains have no depth limit, only the per-call
// bound). `first` belongs to the Python object being described.
void describe_impls(const refscope_describe_api* api, refscope_describe_sink* sink, const char* first) {
    const TorchLayout& L = *g_torch.layout;
    std::vector<const char*> pending{first};
    for (size_t done = 0; !pending.empty() && done < kMaxImplsPerCall; ++done) {
        const char* impl = pending.back();
        pending.pop_back();
        refscope_node node = impl_node(api, sink, impl);
        if (node == REFSCOPE_NO_NODE || !mark_described(impl)) continue;
        const Counts counts = read_counts(impl, L.ti_pyobj_slot);
        api->native_details(sink, node, counts.strong, tensor_preview(impl, impl == first).c_str());
        report_preserved(api, sink, node, counts);

        const auto* storage = read_at<const char*>(impl, L.ti_storage);
        const char* storage_name = storage != nullptr ? torch_rtti_name(storage) : nullptr;
        if (storage_name != nullptr) {
            refscope_node s = node_for(api, sink, storage_name, storage, L.si_size);
            if (s != REFSCOPE_NO_NODE) {
                api->native_edge(sink, node, s, "storage_", 0);
                if (mark_described(storage)) describe_storage(api, sink, storage, s);
            }
        }
        describe_autograd(api, sink, node, read_at<const char*>(impl, L.ti_autograd_meta), pending);
    }
}

// Runs one describe call; on failure (a C++ exception: memory) forgets what
// it marked described, since the walker discards its reports.
template <typename Body>
int guarded(Body body) {
    g_torch.described_by_call.clear();
    g_torch.handles.clear();
    try {
        body();
        return 0;
    } catch (...) {
        for (const void* object : g_torch.described_by_call) g_torch.described.erase(object);
        return -1;
    }
}

int describe_tensor(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self, void*) {
    return guarded([&] {
        const auto* impl = read_at<const char*>(self, g_torch.tensor_ptr);
        refscope_node node = impl_node(api, sink, impl);
        if (node == REFSCOPE_NO_NODE) return;
        describe_impls(api, sink, impl);
        // A borrowed cdata (2.6 and earlier, after resurrection) holds no
        // reference: the TensorImpl owns the Python object instead.
        const bool borrowed = g_torch.maybe_owned && read_at<bool>(self, g_torch.tensor_borrowed);
        api->native_edge(sink, REFSCOPE_SELF, node, "cdata", borrowed ? REFSCOPE_EDGE_NOT_OWNED : 0);
    });
}

int describe_storage_object(const refscope_describe_api* api, refscope_describe_sink* sink, PyObject* self,
                            void*) {
    return guarded([&] {
        const auto* storage = read_at<const char*>(self, g_torch.storage_ptr);
        const char* name = storage != nullptr ? torch_rtti_name(storage) : nullptr;
        if (name == nullptr) return;
        refscope_node node = node_for(api, sink, name, storage, g_torch.layout->si_size);
        if (node == REFSCOPE_NO_NODE) return;
        if (mark_described(storage)) describe_storage(api, sink, storage, node);
        const bool borrowed = g_torch.maybe_owned && read_at<bool>(self, sizeof(PyObject));
        api->native_edge(sink, REFSCOPE_SELF, node, "cdata", borrowed ? REFSCOPE_EDGE_NOT_OWNED : 0);
    });
}

// A static type of torch._C named `name`, or nullptr.
PyTypeObject* torch_c_type(PyObject* module, const char* name, const char* tp_name) {
    PyObject* type = dict_find_str(module, name);
    if (type == nullptr || !PyType_Check(type)) return nullptr;
    auto* tp = reinterpret_cast<PyTypeObject*>(type);
    if ((tp->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0 || std::strcmp(tp->tp_name, tp_name) != 0) return nullptr;
    return tp;
}

}  // namespace

void* find_symbol(const char* path, const char* symbol) {
    void* handle = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (handle == nullptr) return nullptr;
    void* address = dlsym(handle, symbol);
    dlclose(handle);
    return address;
}

void recognise_torch(DescribeSession& session) {
    g_torch.layout = nullptr;
    g_torch.described.clear();
    PyObject* module = loaded_module_dict("torch._C");
    int major = 0, minor = 0;
    if (module == nullptr || !module_version(loaded_module_dict("torch"), major, minor)) return;
    for (const TorchLayout& layout : kTorchLayouts)
        if (layout.major == major && layout.minor == minor && major != 0) g_torch.layout = &layout;
    if (g_torch.layout == nullptr) return;
    const TorchLayout& L = *g_torch.layout;
    PyTypeObject* tensor = torch_c_type(module, "TensorBase", "torch._C.TensorBase");
    if (tensor == nullptr) return;
    // THPVariable: PyObject_HEAD, cdata, then two PyObject* (backward and
    // post-accumulate-grad hooks). Releases with the two-count refcount keep
    // cdata as a MaybeOwned<Tensor>, later ones as a Tensor.
    g_torch.maybe_owned = !L.combined_refcount;
    const size_t cdata = g_torch.maybe_owned ? L.maybe_owned_size : L.tensor_size;
    if (static_cast<size_t>(tensor->tp_basicsize) != sizeof(PyObject) + cdata + 2 * sizeof(PyObject*)) {
        g_torch.layout = nullptr;
        return;
    }
    g_torch.tensor_ptr = sizeof(PyObject) + (g_torch.maybe_owned ? L.maybe_owned_ptr : 0);
    g_torch.tensor_borrowed = sizeof(PyObject) + L.maybe_owned_borrowed;
    // AutogradMeta's offsets depend on std::string's ABI: read it only when
    // torch was built with the ABI the layout was measured with.
    PyObject* abi = dict_find_str(module, "_GLIBCXX_USE_CXX11_ABI");
    g_torch.read_autograd = abi == (L.cxx11_abi ? Py_True : Py_False);
    PyObject* numpy = loaded_module_dict("numpy");
    PyObject* ndarray = numpy != nullptr ? dict_find_str(numpy, "ndarray") : nullptr;
    g_torch.ndarray = ndarray != nullptr && PyType_Check(ndarray) ? reinterpret_cast<PyTypeObject*>(ndarray) : nullptr;
    g_torch.python_library = find_torch_python(module);
    // c10::InefficientStdFunctionContext::makeDataPtr, exported by libc10:
    // its std::function is taken by value (2.6, 2.14) or by const reference
    // (other releases).
    g_torch.c10_library = {};
    for (const char* symbol : {"_ZN3c1029InefficientStdFunctionContext11makeDataPtrEPvSt8functionIFvS1_EENS_6DeviceE",
                               "_ZN3c1029InefficientStdFunctionContext11makeDataPtrEPvRKSt8functionIFvS1_EENS_6DeviceE"}) {
        if (g_torch.python_library.path.empty()) break;
        g_torch.c10_library = library_at(find_symbol(g_torch.python_library.path.c_str(), symbol));
        if (!g_torch.c10_library.path.empty()) break;
    }
    Describer d;
    d.library = "torch";
    d.describe_instance = &describe_tensor;
    session.add(tensor, d);
    // THPStorage: PyObject_HEAD, cdata (a MaybeOwned<Storage> and a bool
    // `is_hermetic` with the two-count refcount, a Storage after).
    PyTypeObject* storage = torch_c_type(module, "StorageBase", "torch._C.StorageBase");
    const size_t storage_size = sizeof(PyObject) + (g_torch.maybe_owned ? L.maybe_owned_size + 8 : L.tensor_size);
    if (storage != nullptr && static_cast<size_t>(storage->tp_basicsize) == storage_size) {
        g_torch.storage_ptr = sizeof(PyObject) + (g_torch.maybe_owned ? L.maybe_owned_ptr : 0);
        Describer s;
        s.library = "torch";
        s.describe_instance = &describe_storage_object;
        session.add(storage, s);
    }
    if (!g_torch.python_library.path.empty())
        recognise_torch_dispatcher(session, L, g_torch.python_library, g_torch.read_autograd);
}

}  // namespace refscope::probe
