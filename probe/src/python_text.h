// Reading Python str objects as UTF-8 without asking CPython to do it:
// PyUnicode_AsUTF8 caches an encoded copy inside the str (allocating and
// changing its size), which a snapshot must not do to the heap it observes.
#pragma once

#include <Python.h>

#include <cstddef>
#include <string>

namespace refscope::probe {

// Appends up to `max_chars` code points of `str` (exact or subclass) as UTF-8.
// Returns false if the object is not a readable str. Sets *truncated.
bool append_utf8(std::string& out, PyObject* str, size_t max_chars, bool* truncated = nullptr);

// True if `op` is an exact str equal to the ASCII text `ascii` (no code runs).
bool str_equals(PyObject* op, const char* ascii);

// Looks `name` up among the str keys of `dict` by iteration (PyDict_Next):
// never hashes or compares through Python. Borrowed result or nullptr.
PyObject* dict_find_str(PyObject* dict, const char* name);

// The dict of the module `name` if it is imported (found in sys.modules the
// same way, never imported by us), else nullptr. Borrowed.
PyObject* loaded_module_dict(const char* name);

// The major and minor numbers of a module dict's `__version__` ("2.6.0+debian",
// a str or str subclass), read without running code; false if it has none.
bool module_version(PyObject* module_dict, int& major, int& minor);

// An instance attribute read without running code or materializing a
// managed dict: inline values, managed dict or tp_dictoffset dict.
PyObject* instance_attribute(PyObject* obj, const char* name);

}  // namespace refscope::probe
