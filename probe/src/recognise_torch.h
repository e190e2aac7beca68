// What the PyTorch recogniser's two files share (recognise_torch.cpp: tensors
// and storages; recognise_torch_dispatcher.cpp: the dispatcher's Python
// kernels): unaligned reads and where libtorch_python is.
#pragma once

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "torch_layout.h"

namespace refscope::probe {

class DescribeSession;

template <typename T>
T read_at(const void* base, size_t offset) {
    T value;
    std::memcpy(&value, static_cast<const char*>(base) + offset, sizeof value);
    return value;
}

// Where a library (libtorch_python, libc10) is loaded: its path (for symbol
// look-ups, which also reach the libraries it loaded) and the address range
// of its segments, so that "is this code or data of that library" is a
// comparison, not a loader call (recognise_torch.cpp finds them once per
// walk).
struct LoadedLibrary {
    std::string path;
    uintptr_t begin = 0, end = 0;
    bool contains(const void* address) const {
        const auto at = reinterpret_cast<uintptr_t>(address);
        return at >= begin && at < end;
    }
};

// A symbol of the library at `path` or of the libraries it loaded; null if
// either is not loaded. A loader call: never while a lock of the target is held.
void* find_symbol(const char* path, const char* symbol);

// Registers the heap callback that reports the Python callables PyTorch's
// dispatcher holds (torch.library kernels), for the release `layout`
// describes, found through `library`. `same_abi`: torch was built with the
// std::string ABI the layout was measured with
// (torch._C._GLIBCXX_USE_CXX11_ABI); if not, nothing is read.
void recognise_torch_dispatcher(DescribeSession& session, const TorchLayout& layout,
                                const LoadedLibrary& library, bool same_abi);

}  // namespace refscope::probe
