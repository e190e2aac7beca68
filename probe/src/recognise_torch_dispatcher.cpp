// The Python callables PyTorch's dispatcher holds.
//
// torch.library (and torch's own Python: meta registrations, decompositions,
// custom ops) registers Python functions as kernels of operators. Each one is
// wrapped in a C++ PythonKernelHolder that owns a reference to the function
// (a c10::SafePyObject) and is shared, through intrusive pointers, by the
// operator's dispatch table. No tp_traverse reports those references, so
// without this every registered function shows "unexplained surplus" and
// ranks as a leak suspect in any program that imports torch.
//
// Once per snapshot (a heap callback) it reports
//   c10::Dispatcher (static)
//     --operators_--> c10::impl::OperatorEntry "aten::add.Tensor"
//       --kernel (Meta)--> PythonKernelHolder --func_--> the function
// for the operators that have Python kernels only. The dispatcher is found
// through the static reference its inline singleton() keeps (a data symbol,
// read, not called); the walk reads the operator list only while it holds
// the dispatcher's own registration mutex (try-locked, never waited for), so
// no thread registers or removes an operator meanwhile. The only torch code
// called is c10::toString(DispatchKey), which returns a string literal.
// Offsets come from torch_layout.h (measured from the release's headers);
// docs/pytorch-internals.md, section 7, has the facts behind them.
#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "describe_session.h"
#include "recognise_torch.h"

namespace refscope::probe {
namespace {

// More operators than any PyTorch release has (about 10,000 in 2.14): a list
// longer than this is not read.
constexpr size_t kMaxOperators = 1 << 17;
// An operator's kernel map has a slot or so per dispatch key (about 130);
// each key's list, one entry per registration still alive.
constexpr size_t kMaxSlots = 1 << 12;
constexpr size_t kMaxKernelsPerKey = 1 << 10;
constexpr size_t kMaxNameBytes = 200;

using KeyName = const char* (*)(uint16_t);

struct DispatcherState {
    const TorchLayout* layout = nullptr;
    // The static reference Dispatcher::singleton() keeps, and its guard
    // variable (nonzero once the reference is set).
    const char* const* singleton = nullptr;
    const unsigned char* singleton_guard = nullptr;
    KeyName key_name = nullptr;
    LoadedLibrary library;
    // Per walk: kernel vtable -> PythonKernelHolder's RTTI name or nullptr.
    std::unordered_map<const void*, const char*> kernel_types;
};
DispatcherState g_dispatcher;

std::string read_string(const char* string) {
    const auto* data = read_at<const char*>(string, g_dispatcher.layout->str_data);
    const auto length = read_at<size_t>(string, g_dispatcher.layout->str_length);
    if (data == nullptr) return {};
    return std::string(data, std::min(length, kMaxNameBytes));
}

// "aten::add.Tensor", as torch.ops prints an overload ("aten::add" for the
// default one).
std::string operator_name(const char* entry) {
    const TorchLayout& L = *g_dispatcher.layout;
    std::string name = read_string(entry + L.oe_name);
    const std::string overload = read_string(entry + L.oe_overload);
    if (!overload.empty()) name += '.' + overload;
    return name;
}

// The kernel functor's RTTI name if it is torch::impl::dispatch's
// PythonKernelHolder (not functorch's older one, laid out otherwise, nor
// AOTIPythonKernelHolder, which embeds one, nor a C++ kernel); else nullptr. Kernels cannot be freed while the registration mutex is
// held, so, unlike the tensors' C++ objects (recognise_torch.cpp), the
// vtable is not first checked against the loader's tables: dladdr scans a
// library's symbols, and every C++ kernel has a type (and vtable) of its
// own, tens of thousands of them. One read per vtable, remembered for the
// walk.
const char* python_kernel(const void* functor) {
    auto* const* vtable = read_at<void* const*>(functor, 0);
    auto [known, added] = g_dispatcher.kernel_types.try_emplace(vtable, nullptr);
    if (!added) return known->second;
    const auto* info = static_cast<const std::type_info*>(vtable[-1]);
    const char* name = info != nullptr ? read_at<const char*>(info, sizeof(void*)) : nullptr;  // type_info::__name
    if (name == nullptr) return nullptr;
    if (*name == '*') ++name;  // a local type's name
    // Declared in python_dispatch.h, or in an anonymous namespace of
    // python_dispatch.cpp: both lay out func_ and dispatch_key_ as measured.
    for (const char* holder : {"N5torch4impl8dispatch18PythonKernelHolderE",
                               "N5torch4impl8dispatch12_GLOBAL__N_118PythonKernelHolderE"})
        if (std::strcmp(name, holder) == 0) known->second = name;
    return known->second;
}

// Whether a SafePyObject's interpreter is a c10::impl::PyInterpreter: its
// first member points to a static table of libtorch_python. Compared with
// libtorch_python's address range, measured before the walk: the loader
// (dladdr) must not be asked while the registration mutex is held, because
// a thread loading a library holds the loader's lock while the library
// registers its operators, which waits for that mutex.
bool python_interpreter(const char* interpreter) {
    return interpreter != nullptr && g_dispatcher.library.contains(read_at<const void*>(interpreter, 0));
}

// Calls `visit(functor, newest)` with the OperatorKernel of every kernel
// registered for the operator (`newest`: the first of its key's list):
// kernels_ maps each DispatchKey to a list, newest first, of what
// was registered for it (the dispatch table holds copies of the first of
// each; a later registration for the same key shadows, but keeps, the
// earlier). Both the map and the lists are bounded by what they say they
// hold.
template <typename Visit>
void for_each_kernel(const char* entry, Visit visit) {
    const TorchLayout& L = *g_dispatcher.layout;
    const char* kernels = entry + L.oe_kernels;
    const auto* slots = read_at<const char*>(kernels, L.map_entries);
    const size_t count = read_at<size_t>(kernels, L.map_slots) + static_cast<size_t>(
                             std::max<int8_t>(read_at<int8_t>(kernels, L.map_lookups), 0));
    if (slots == nullptr || count > kMaxSlots) return;
    for (size_t i = 0; i < count; ++i) {
        const char* slot = slots + i * L.slot_size;
        if (read_at<int8_t>(slot, L.slot_distance) < 0) continue;  // empty
        const char* list = slot + L.slot_kernels;
        const size_t length = std::min(read_at<size_t>(list, L.list_size), kMaxKernelsPerKey);
        const auto* node = read_at<const char*>(list, 0);
        for (size_t k = 0; k < length && node != nullptr && node != list; ++k) {
            const auto* functor = read_at<const char*>(node, L.ak_functor);
            if (functor != nullptr) visit(functor, k == 0);
            node = read_at<const char*>(node, 0);
        }
    }
}

// Reports one operator's Python kernels; the operator's node is made on the
// first one.
//
// torch.library's impl() also keeps each function in python_registrations_,
// a static map of libtorch_python from operator and key to the function of
// the newest impl() (a later one for the same pair replaces it). The map has
// no exported symbol to find it by, so its references are inferred from the
// kernels it mirrors: a root per (operator, key) whose newest kernel is a
// Python kernel, with a count of 1 that the analysis never lets exceed what
// is otherwise unexplained.
void describe_operator(const refscope_describe_api* api, refscope_describe_sink* sink, refscope_node dispatcher,
                       const char* entry) {
    const TorchLayout& L = *g_dispatcher.layout;
    refscope_node op = REFSCOPE_NO_NODE;
    std::string name;
    for_each_kernel(entry, [&](const char* functor, bool newest) {
        const char* type = python_kernel(functor);
        if (type == nullptr) return;
        auto* function = read_at<PyObject*>(functor, L.kh_func);
        if (function == nullptr || !python_interpreter(read_at<const char*>(functor, L.kh_interpreter))) return;
        if (op == REFSCOPE_NO_NODE) {
            name = operator_name(entry);
            op = api->native_node(sink, "c10::impl::OperatorEntry", 0, entry, L.oe_size);
            api->native_details(sink, op, -1, name.c_str());
            api->native_edge(sink, dispatcher, op, "operators_", 0);
        }
        refscope_node kernel = api->native_node(sink, type, REFSCOPE_NAME_MANGLED, functor, 0);
        const auto key_value = read_at<uint16_t>(functor, L.kh_key);
        const char* key_name = g_dispatcher.key_name != nullptr ? g_dispatcher.key_name(key_value) : nullptr;
        const std::string key =
            key_name != nullptr ? std::string(key_name, strnlen(key_name, 64)) : std::to_string(key_value);
        api->native_edge(sink, op, kernel, ("kernels_[" + key + "]").c_str(), 0);
        api->object_edge(sink, kernel, function, "func_", 0);
        if (newest) {
            const std::string root = "torch python_registrations_[" + name + "][" + key +
                                     "] (a static map of libtorch_python, inferred from the dispatcher's kernels)";
            api->object_root(sink, function, root.c_str(), 1);
        }
    });
}

// Holds the dispatcher's registration mutex while it lives, if it was free.
class RegistrationLock {
public:
    // Nothing is locked unless everything around the mutex is what the
    // layout says: the shared_ptr<Guard> made by make_shared (the Guard
    // right after its control block's vtable and two counts), Guard::alive
    // (a std::atomic<bool>, first) true, and a default glibc mutex (kind 0,
    // lock word 0 to 2) where Guard::mutex should be.
    explicit RegistrationLock(const char* dispatcher) {
        const size_t at = g_dispatcher.layout->d_guard;
        const auto* guard = read_at<const char*>(dispatcher, at);
        const auto* control = read_at<const char*>(dispatcher, at + sizeof(void*));
        if (guard == nullptr || control == nullptr || guard != control + 2 * sizeof(void*)) return;
        if (read_at<uint8_t>(guard, 0) != 1) return;
        auto* mutex = reinterpret_cast<pthread_mutex_t*>(const_cast<char*>(guard + g_dispatcher.layout->d_guard_mutex));
        if (mutex->__data.__kind != 0 || mutex->__data.__lock < 0 || mutex->__data.__lock > 2) return;
        if (pthread_mutex_trylock(mutex) == 0) mutex_ = mutex;
    }
    ~RegistrationLock() {
        if (mutex_ != nullptr) pthread_mutex_unlock(mutex_);
    }
    RegistrationLock(const RegistrationLock&) = delete;
    RegistrationLock& operator=(const RegistrationLock&) = delete;
    bool held() const { return mutex_ != nullptr; }

private:
    pthread_mutex_t* mutex_ = nullptr;
};

int describe_dispatcher(const refscope_describe_api* api, refscope_describe_sink* sink, void*) {
    if (g_dispatcher.layout == nullptr || *g_dispatcher.singleton_guard == 0) return 0;
    const char* dispatcher = *g_dispatcher.singleton;
    if (dispatcher == nullptr) return 0;
    const TorchLayout& L = *g_dispatcher.layout;
    try {
        RegistrationLock lock(dispatcher);
        // Busy: another thread is registering an operator right now. This
        // snapshot goes without the dispatcher rather than wait for it.
        if (!lock.held()) return 0;
        g_dispatcher.kernel_types.clear();
        refscope_node node = api->native_node(sink, "c10::Dispatcher", 0, dispatcher, 0);
        api->native_root(sink, node, "static c10::Dispatcher (PyTorch's operator registry)");
        const char* head = dispatcher + L.d_operators;
        const size_t count = read_at<size_t>(head, L.list_size);
        if (count > kMaxOperators) return 0;
        const auto* list_node = read_at<const char*>(head, 0);
        const auto* last_node = read_at<const char*>(head, sizeof(void*));
        // A sentinel whose first and last nodes do not link back is no list.
        if (list_node == nullptr || last_node == nullptr || read_at<const char*>(list_node, sizeof(void*)) != head ||
            read_at<const char*>(last_node, 0) != head)
            return 0;
        for (size_t i = 0; i < count && list_node != nullptr && list_node != head; ++i) {
            describe_operator(api, sink, node, list_node + L.d_node_value);
            list_node = read_at<const char*>(list_node, 0);
        }
        return 0;
    } catch (...) {  // std::bad_alloc: the walker discards this call's reports
        return -1;
    }
}

}  // namespace

void recognise_torch_dispatcher(DescribeSession& session, const TorchLayout& layout,
                                const LoadedLibrary& library, bool same_abi) {
    g_dispatcher = DispatcherState{};
    // A layout measured without the dispatcher, or torch built with the other
    // std::string ABI (PyPI's wheels before 2.7): OperatorName's strings,
    // and with them every offset after them, and std::list's size field
    // differ, so nothing of the dispatcher is read.
    if (layout.slot_size == 0 || !same_abi) return;
    // libtorch_python's symbol look-up reaches libtorch_cpu and libc10,
    // which it loaded.
    const char* path = library.path.c_str();
    auto* singleton = static_cast<const char* const*>(find_symbol(path, "_ZZN3c1010Dispatcher9singletonEvE1s"));
    auto* guard = static_cast<const unsigned char*>(find_symbol(path, "_ZGVZN3c1010Dispatcher9singletonEvE1s"));
    if (singleton == nullptr || guard == nullptr) return;
    g_dispatcher.layout = &layout;
    g_dispatcher.singleton = singleton;
    g_dispatcher.singleton_guard = guard;
    g_dispatcher.library = library;
    g_dispatcher.key_name = reinterpret_cast<KeyName>(find_symbol(path, "_ZN3c108toStringENS_11DispatchKeyE"));
    Describer d;
    d.library = "torch";
    d.describe_heap = &describe_dispatcher;
    session.add(nullptr, d);
}

}  // namespace refscope::probe
