// The one rule every function Python calls in refscope._probe follows: no
// C++ exception may unwind into the interpreter (docs/architecture.md, "The
// probe's rules inside the target process": nothing escapes into the
// program; docs/probe.md, "Rules the walk keeps"). An entry point's body runs
// inside translate_exceptions(), which turns whatever it throws into a
// Python exception.
#pragma once

#include <Python.h>

#include <exception>
#include <new>

namespace refscope::probe {

// Returns body()'s result; if it throws, sets MemoryError (std::bad_alloc)
// or RuntimeError (with the exception's message) and returns nullptr.
template <typename Body>
PyObject* translate_exceptions(Body&& body) noexcept {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return PyErr_NoMemory();
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "refscope probe: unknown C++ exception");
        return nullptr;
    }
}

// A METH_FASTCALL function as the PyCFunction a PyMethodDef holds (through
// a generic function pointer, which keeps -Wcast-function-type quiet).
template <typename F>
PyCFunction fastcall(F f) {
    return reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)(void)>(f));
}

}  // namespace refscope::probe
