// What the PyTorch recogniser's two files share (recognise_torch.cpp: tensors
// and storages; recognise_torch_dispatcher.cpp: the dispatcher's Python
// kernels): unaligned reads and where libraries are.
#pragma once

#include <Python.h>
#include <dlfcn.h>

#include <cstddef>
#include <cstring>

#include "torch_layout.h"

namespace refscope::probe {

class DescribeSession;

template <typename T>
T read_at(const void* base, size_t offset) {
    T value;
    std::memcpy(&value, static_cast<const char*>(base) + offset, sizeof value);
    return value;
}

// Whether `address` lies in a loaded shared object (dladdr only looks the
// address up in the loader's tables; it reads nothing there).
bool in_loaded_library(const void* address);

// Where libtorch_python is loaded (its path and base address), found through
// a function of torch._C it defines; false if it cannot be told.
bool torch_python_library(PyObject* c_module, Dl_info& info);

// Registers the heap callback that reports the Python callables PyTorch's
// dispatcher holds (torch.library kernels), for the release `layout`
// describes; `c_module` is torch._C, through which the dispatcher is found.
// `same_abi`: torch was built with the std::string ABI the layout was
// measured with (torch._C._GLIBCXX_USE_CXX11_ABI); if not, nothing is read.
void recognise_torch_dispatcher(DescribeSession& session, const TorchLayout& layout, PyObject* c_module,
                                bool same_abi);

}  // namespace refscope::probe
