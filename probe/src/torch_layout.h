// TorchLayout: where one PyTorch release keeps the fields the probe's PyTorch
// recogniser reads (recognise_torch.cpp). The values are never written by
// hand: probe/tools/torch_layout_gen.cpp measures them against the release's
// own headers at build time and probe/torch_layouts.cmake collects one
// initializer per release into generated/torch_layouts.inc. All offsets are
// bytes from the start of the C++ object named by the prefix:
//   ti_  c10::TensorImpl       si_  c10::StorageImpl
//   sas_ c10::impl::SizesAndStrides (inside TensorImpl at ti_sizes)
//   am_  torch::autograd::AutogradMeta (and DifferentiableViewMeta)
// docs/pytorch-internals.md says what each field means and how PyTorch uses it.
#pragma once

#include <cstddef>

namespace refscope::probe {

struct TorchScalarType {
    int index;          // c10::ScalarType, equal to caffe2::TypeMeta's index
    size_t itemsize;
    const char* name;   // the C++ enumerator ("Float")
};

struct TorchDevice {
    int type;           // c10::DeviceType
    const char* name;   // as torch.device prints it
};

struct TorchLayout {
    int major = 0, minor = 0;
    // The std::string ABI the layout was measured with (AutogradMeta's
    // offsets depend on it): compared with torch._C._GLIBCXX_USE_CXX11_ABI.
    bool cxx11_abi = true;
    // true: intrusive_ptr_target has one 64-bit count whose top bit says
    // "a PyObject exists" (strong count in the low 32 bits); false: two
    // 32-bit counts (strong first) and a tagged PyObjectSlot pointer.
    bool combined_refcount = false;
    size_t refcount = 0;
    // THPVariable.cdata is an at::Tensor (tensor_size: one TensorImpl*) or a
    // c10::MaybeOwned<at::Tensor> (the pointer at maybe_owned_ptr, the
    // isBorrowed_ flag at maybe_owned_borrowed).
    size_t tensor_size = 0, maybe_owned_size = 0, maybe_owned_ptr = 0, maybe_owned_borrowed = 0;
    size_t slot_pyobj = 0;  // PyObject* inside c10::impl::PyObjectSlot
    size_t ti_storage = 0, ti_autograd_meta = 0, ti_pyobj_slot = 0, ti_sizes = 0, ti_numel = 0, ti_dtype = 0,
           ti_device = 0, ti_size = 0;
    size_t sas_rank = 0, sas_storage = 0;
    int sas_inline = 0;  // ranks up to this keep sizes and strides inline
    // TensorImpl bit fields: has_symbolic_sizes_strides_, sizes_strides_policy_,
    // device_policy_ (byte offset and mask).
    size_t symbolic_byte = 0;
    unsigned symbolic_mask = 0;
    size_t policy_byte = 0;
    unsigned policy_mask = 0;
    size_t device_policy_byte = 0;
    unsigned device_policy_mask = 0;
    // si_data: DataPtr's data pointer; si_context: its context pointer, equal
    // to the data pointer for memory PyTorch's allocators made; si_deleter:
    // the function that frees the context (0: not measured).
    size_t si_data = 0, si_context = 0, si_deleter = 0, si_device = 0, si_size_bytes = 0, si_size_heap = 0, si_pyobj_slot = 0, si_size = 0;
    // c10::InefficientStdFunctionContext (the context of memory given with
    // a deleter, as torch.from_numpy does): its data pointer and its
    // std::function deleter; fn_manager: the std::function's manager.
    size_t ctx_ptr = 0, ctx_deleter = 0, fn_manager = 0;
    size_t am_grad = 0;
    // DifferentiableViewMeta: std::optional<ViewInfo> backward_info_ and
    // forward_info_ (engaged flag at view_engaged), ViewInfo::base_.
    size_t am_view_backward = 0, am_view_forward = 0, view_engaged = 0, view_base = 0;
    // The dispatcher (c10::Dispatcher, its std::list of operators, each
    // OperatorEntry's flat_hash_map from DispatchKey to the std::list of
    // kernels registered for it), read for the Python callables Python
    // kernels hold. Offsets from: d_ the Dispatcher (d_node_value: an
    // OperatorEntry in a list node; d_guard_mutex in Dispatcher::Guard);
    // list_size a std::list; oe_ an OperatorEntry; map_ the hash map; slot_
    // one of its entries (slot_kernels: the list in it); ak_functor a list
    // node of AnnotatedKernel (the kernel's OperatorKernel*); kh_ a
    // PythonKernelHolder; str_ a std::string (C++11 ABI).
    size_t d_operators = 0, list_size = 0, d_node_value = 0, d_guard = 0, d_guard_mutex = 0;
    size_t oe_name = 0, oe_overload = 0, oe_kernels = 0, oe_size = 0;
    size_t map_entries = 0, map_slots = 0, map_lookups = 0, slot_size = 0, slot_distance = 0, slot_kernels = 0;
    size_t ak_functor = 0, kh_func = 0, kh_interpreter = 0, kh_key = 0;
    size_t str_data = 0, str_length = 0;
    TorchScalarType scalar_types[64] = {};
    TorchDevice devices[16] = {};
};

}  // namespace refscope::probe
