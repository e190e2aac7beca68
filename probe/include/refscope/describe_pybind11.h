// refscope describe API for pybind11 classes (include after pybind11).
//
//   struct Wrapper { py::object value; };
//   auto cls = py::class_<Wrapper>(m, "Wrapper")...;
//   refscope::describe::pybind11_class<Wrapper>(cls, "my_ext",
//       [](const Wrapper &w, refscope::describe::Node cpp, refscope::describe::Sink &sink) {
//           sink.edge(cpp, w.value.ptr(), "Wrapper::value");
//       });
//
// The callback receives the C++ object of each fully constructed instance
// (instances whose holder is not constructed yet, between __new__ and
// __init__, are skipped) and the native node refscope shows for it. It runs
// while refscope walks the heap: report, never call Python (no py::object
// copies, no attribute access; .ptr() is fine).
//
// Only pybind11's own data is read here (its instance layout, through its
// headers), so this works with whatever pybind11 version the module is built
// with. refscope's probe also recognises pybind11 instances by itself (the
// C++ type name and keep_alive patients) when the module's pybind11 internals
// match the version the probe was built with; the describe callback adds what
// only the module knows: what its C++ objects hold.
#ifndef REFSCOPE_DESCRIBE_PYBIND11_H
#define REFSCOPE_DESCRIBE_PYBIND11_H

#include <pybind11/pybind11.h>

#include "refscope/describe.h"

namespace refscope {
namespace describe {

namespace detail {

// The C++ object of `self`, or nullptr if there is none (yet). Reads the
// instance layout only; allocates nothing.
template <typename T>
const T *pybind11_value(PyObject *self) {
    auto *inst = reinterpret_cast<pybind11::detail::instance *>(self);
    if (inst->simple_layout) {
        // One bound C++ base: [value*][holder] inline in the instance.
        return inst->simple_holder_constructed ? static_cast<const T *>(inst->simple_value_holder[0])
                                               : nullptr;
    }
    // Several bound bases (Python-side multiple inheritance) or a large
    // holder: only the exact type is looked up, which needs no cache entry
    // (pybind11 would otherwise create one, a Python object).
    const pybind11::detail::type_info *tinfo = pybind11::detail::get_type_info(typeid(T));
    if (tinfo == nullptr || Py_TYPE(self) != tinfo->type) return nullptr;
    pybind11::detail::value_and_holder v = inst->get_value_and_holder(tinfo, false);
    if (!v || !v.holder_constructed()) return nullptr;
    return static_cast<const T *>(v.value_ptr());
}

}  // namespace detail

// callback(const T &object, Node cpp_object, Sink &sink) for every constructed
// instance of the class (and of Python subclasses). Never throws; returns
// false if refscope could not be told.
template <typename T, typename F>
bool pybind11_class(pybind11::handle cls, const char *library, F callback) noexcept {
    if (!cls || !PyType_Check(cls.ptr())) return false;
    return register_type(reinterpret_cast<PyTypeObject *>(cls.ptr()), library,
                         [callback](PyObject *self, Sink &sink) {
                             const T *value = detail::pybind11_value<T>(self);
                             if (value == nullptr) return;
                             Node node = sink.cpp_object(value);
                             callback(*value, node, sink);
                         });
}

}  // namespace describe
}  // namespace refscope

#endif  // REFSCOPE_DESCRIBE_PYBIND11_H
