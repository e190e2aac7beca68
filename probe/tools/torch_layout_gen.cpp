// Build-time generator: prints, as one C++ designated initializer of
// refscope::probe::TorchLayout (probe/src/torch_layout.h), where PyTorch keeps
// the fields the probe reads (docs/pytorch-internals.md), measured with
// offsetof and bit probes against one release's own headers (Debian's
// libtorch-dev, unpacked by packaging/fetch-third-party.sh, or a wheel's
// torch/include). probe/CMakeLists.txt compiles and runs it once per header
// set it finds, so no offset is written by hand and each release gets its own
// table.
//
// It is compiled without libc10: only offsetof, sizeof, enum values and
// stores into a zeroed buffer, nothing that needs a torch symbol. Private
// members are reached by compiling it with -fno-access-control.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

#include <ATen/core/boxing/OperatorKernel.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/SafePyObject.h>
#include <c10/core/StorageImpl.h>
#include <c10/core/TensorImpl.h>
#include <c10/util/MaybeOwned.h>
#include <torch/csrc/autograd/variable.h>

#if __has_include(<torch/headeronly/version.h>)
#include <torch/headeronly/version.h>
#else
#include <torch/csrc/api/include/torch/version.h>
#endif

#pragma GCC diagnostic ignored "-Winvalid-offsetof"

namespace {

// The refcount scheme: one 64-bit word whose top bit says "has a PyObject"
// (PyTorch's reworked PyObject preservation) or two 32-bit counts.
template <class T>
constexpr bool kCombined = requires(T t) { t.combined_refcount_; };

template <class T>
size_t refcount_offset() {
    if constexpr (kCombined<T>) return offsetof(T, combined_refcount_);
    else return offsetof(T, refcount_);
}

// Byte and mask of a TensorImpl bit field: set it to all ones in a zeroed
// buffer and see which bits changed.
alignas(alignof(c10::TensorImpl)) unsigned char g_buffer[sizeof(c10::TensorImpl)];

// Where a UniqueVoidPtr keeps its context pointer (inside the unique_ptr,
// whose layout is the standard library's): construct one in a zeroed buffer
// with a recognisable context and find it. It is never destroyed.
void marker_deleter(void*) {}

// Where UniqueVoidPtr keeps its context and its deleter (a unique_ptr's
// pointer and deleter, in whatever order the standard library's tuple puts
// them): found by constructing one with markers.
struct VoidPtrOffsets {
    size_t context = SIZE_MAX, deleter = SIZE_MAX;
};
VoidPtrOffsets void_ptr_offsets() {
    alignas(c10::detail::UniqueVoidPtr) unsigned char buffer[sizeof(c10::detail::UniqueVoidPtr)] = {};
    void* const marker = reinterpret_cast<void*>(uintptr_t{0x5a5a5a5a5a5a5a50});
    c10::DeleterFnPtr const deleter = &marker_deleter;
    new (buffer) c10::detail::UniqueVoidPtr(nullptr, marker, deleter);
    VoidPtrOffsets offsets;
    for (size_t i = 0; i + sizeof(void*) <= sizeof buffer; i += alignof(void*)) {
        void* word;
        std::memcpy(&word, buffer + i, sizeof word);
        if (word == marker) offsets.context = i;
        if (word == reinterpret_cast<void*>(deleter)) offsets.deleter = i;
    }
    return offsets;
}

template <class Set>
void print_bits(const char* name, Set set) {
    std::memset(g_buffer, 0, sizeof g_buffer);
    set(*reinterpret_cast<c10::TensorImpl*>(g_buffer));
    for (size_t i = 0; i < sizeof g_buffer; ++i) {
        if (g_buffer[i] == 0) continue;
        std::printf(" .%s_byte = %zu, .%s_mask = 0x%02x,", name, i, name, g_buffer[i]);
        return;
    }
    std::printf(" .%s_byte = 0, .%s_mask = 0,", name, name);
}

// The dispatcher's operator list and each operator's registered kernels,
// down to the Python callable a Python kernel holds
// (recognise_torch_dispatcher.cpp). libstdc++'s std::list keeps a sentinel
// node (next, prev, size) inside the list object; c10's flat_hash_map
// (ska's sherwood_v3_table) keeps an array of entries, each a signed
// distance (negative: empty) and then the key-value pair. A
// PythonKernelHolder is defined in a .cpp file (torch/csrc/utils/
// python_dispatch.cpp) as an OperatorKernel whose first member is a
// SafePyObject and whose second is the DispatchKey it was registered for;
// its offsets are measured on a struct of that shape.
struct KernelHolderShape : c10::OperatorKernel {
    c10::SafePyObject func;
    c10::DispatchKey key;
};

void print_dispatcher() {
    using c10::Dispatcher;
    using Def = Dispatcher::OperatorDef;
    using Entry = c10::impl::OperatorEntry;
    using Kernels = decltype(Entry::kernels_);
    using Slot = std::remove_pointer_t<Kernels::EntryPointer>;
    using Pair = decltype(Slot::value);
    using Annotated = c10::impl::AnnotatedKernel;
    std::printf(" .d_operators = %zu, .list_size = %zu, .d_node_value = %zu, .d_guard = %zu, .d_guard_mutex = %zu,",
                offsetof(Dispatcher, operators_), offsetof(std::list<Def>, _M_impl._M_node._M_size),
                offsetof(std::_List_node<Def>, _M_storage) + offsetof(Def, op), offsetof(Dispatcher, guard_),
                offsetof(Dispatcher::Guard, mutex));
    std::printf(" .oe_name = %zu, .oe_overload = %zu, .oe_kernels = %zu, .oe_size = %zu,",
                offsetof(Entry, name_) + offsetof(c10::OperatorName, name),
                offsetof(Entry, name_) + offsetof(c10::OperatorName, overload_name), offsetof(Entry, kernels_),
                sizeof(Entry));
    std::printf(" .map_entries = %zu, .map_slots = %zu, .map_lookups = %zu, .slot_size = %zu, .slot_distance = %zu,"
                " .slot_kernels = %zu,",
                offsetof(Kernels, entries), offsetof(Kernels, num_slots_minus_one), offsetof(Kernels, max_lookups),
                sizeof(Slot), offsetof(Slot, distance_from_desired), offsetof(Slot, value) + offsetof(Pair, second));
    std::printf(" .ak_functor = %zu, .kh_func = %zu, .kh_interpreter = %zu, .kh_key = %zu,",
                offsetof(std::_List_node<Annotated>, _M_storage) + offsetof(Annotated, kernel) +
                    offsetof(c10::KernelFunction, boxed_kernel_func_) + offsetof(c10::BoxedKernel, functor_) +
                    offsetof(c10::intrusive_ptr<c10::OperatorKernel>, target_),
                offsetof(KernelHolderShape, func) + offsetof(c10::SafePyObject, data_),
                offsetof(KernelHolderShape, func) + offsetof(c10::SafePyObject, pyinterpreter_),
                offsetof(KernelHolderShape, key));
    std::printf(" .str_data = %zu, .str_length = %zu,", offsetof(std::string, _M_dataplus._M_p),
                offsetof(std::string, _M_string_length));
}

}  // namespace

int main() {
    using c10::StorageImpl;
    using c10::TensorImpl;
    using MaybeTensor = c10::MaybeOwned<at::Tensor>;
    std::printf("{.major = %d, .minor = %d, .cxx11_abi = %s, .combined_refcount = %s, .refcount = %zu,",
                TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, _GLIBCXX_USE_CXX11_ABI ? "true" : "false",
                kCombined<c10::intrusive_ptr_target> ? "true" : "false", refcount_offset<c10::intrusive_ptr_target>());
    // THPVariable's cdata is a MaybeOwned<Tensor> or a Tensor; the probe
    // tells which from TensorBase's basic size.
    std::printf(" .tensor_size = %zu, .maybe_owned_size = %zu, .maybe_owned_ptr = %zu, .maybe_owned_borrowed = %zu,",
                sizeof(at::Tensor), sizeof(MaybeTensor), offsetof(MaybeTensor, own_),
                offsetof(MaybeTensor, isBorrowed_));
    std::printf(" .slot_pyobj = %zu,", offsetof(c10::impl::PyObjectSlot, pyobj_));
    std::printf(" .ti_storage = %zu, .ti_autograd_meta = %zu, .ti_pyobj_slot = %zu, .ti_sizes = %zu,"
                " .ti_numel = %zu, .ti_dtype = %zu, .ti_device = %zu, .ti_size = %zu,",
                offsetof(TensorImpl, storage_), offsetof(TensorImpl, autograd_meta_), offsetof(TensorImpl, pyobj_slot_),
                offsetof(TensorImpl, sizes_and_strides_), offsetof(TensorImpl, numel_),
                offsetof(TensorImpl, data_type_), offsetof(TensorImpl, device_opt_), sizeof(TensorImpl));
    using SAS = c10::impl::SizesAndStrides;
    std::printf(" .sas_rank = %zu, .sas_storage = %zu, .sas_inline = %d,", offsetof(SAS, size_),
                offsetof(SAS, inlineStorage_), C10_SIZES_AND_STRIDES_MAX_INLINE_SIZE);
    print_bits("symbolic", [](TensorImpl& t) { t.has_symbolic_sizes_strides_ = true; });
    print_bits("policy", [](TensorImpl& t) { t.sizes_strides_policy_ = 3; });
    print_bits("device_policy", [](TensorImpl& t) { t.device_policy_ = true; });
    // StorageImpl: DataPtr { UniqueVoidPtr { void* data_; ... }; Device device_; }.
    const size_t data = offsetof(StorageImpl, data_ptr_) + offsetof(c10::DataPtr, ptr_) +
                        offsetof(c10::detail::UniqueVoidPtr, data_);
    const size_t void_ptr = offsetof(StorageImpl, data_ptr_) + offsetof(c10::DataPtr, ptr_);
    const VoidPtrOffsets offsets = void_ptr_offsets();
    // The context is required; a deleter not found is written as 0 ("not
    // measured"), which keeps the from_numpy edge off.
    if (offsets.context == SIZE_MAX) {
        std::fprintf(stderr, "torch_layout_gen: UniqueVoidPtr's context not found\n");
        std::exit(1);
    }
    std::printf(" .si_data = %zu, .si_context = %zu, .si_deleter = %zu, .si_device = %zu, .si_size_bytes = %zu,"
                " .si_size_heap = %zu, .si_pyobj_slot = %zu, .si_size = %zu,",
                data, void_ptr + offsets.context, offsets.deleter == SIZE_MAX ? 0 : void_ptr + offsets.deleter,
                offsetof(StorageImpl, data_ptr_) + offsetof(c10::DataPtr, device_), offsetof(StorageImpl, size_bytes_), offsetof(StorageImpl, size_bytes_is_heap_allocated_),
                offsetof(StorageImpl, pyobj_slot_), sizeof(StorageImpl));
    using Context = c10::InefficientStdFunctionContext;
    std::printf(" .ctx_ptr = %zu, .ctx_deleter = %zu, .fn_manager = %zu,", offsetof(Context, ptr_),
                offsetof(Context, deleter_), offsetof(std::function<void(void*)>, _M_manager));
    // A view's autograd metadata holds its base in one or two optional
    // ViewInfos (libstdc++'s optional: the value first, then the flag).
    using View = torch::autograd::DifferentiableViewMeta;
    using ViewInfo = std::optional<torch::autograd::ViewInfo>;
    std::printf(" .am_grad = %zu, .am_view_backward = %zu, .am_view_forward = %zu, .view_engaged = %zu,"
                " .view_base = %zu,",
                offsetof(torch::autograd::AutogradMeta, grad_), offsetof(View, backward_info_),
                offsetof(View, forward_info_), offsetof(ViewInfo, _M_payload._M_engaged),
                offsetof(torch::autograd::ViewInfo, base_));
    print_dispatcher();
    // Scalar types: TypeMeta's index is the ScalarType for all of them.
    std::printf(" .scalar_types = {");
#define REFSCOPE_SCALAR(ctype, name) \
    std::printf("{%d, %zu, \"%s\"}, ", static_cast<int>(c10::ScalarType::name), sizeof(ctype), #name);
    AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS(REFSCOPE_SCALAR)
#undef REFSCOPE_SCALAR
    std::printf("},");
    std::printf(" .devices = {");
#define REFSCOPE_DEVICE(name, text) std::printf("{%d, \"%s\"}, ", static_cast<int>(c10::DeviceType::name), text);
    REFSCOPE_DEVICE(CPU, "cpu")
    REFSCOPE_DEVICE(CUDA, "cuda")
    REFSCOPE_DEVICE(HIP, "hip")
    REFSCOPE_DEVICE(XLA, "xla")
    REFSCOPE_DEVICE(MPS, "mps")
    REFSCOPE_DEVICE(Meta, "meta")
    REFSCOPE_DEVICE(XPU, "xpu")
    REFSCOPE_DEVICE(Lazy, "lazy")
    REFSCOPE_DEVICE(PrivateUse1, "privateuseone")
#undef REFSCOPE_DEVICE
    std::printf("}},\n");
    return 0;
}
