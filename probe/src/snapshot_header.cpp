// Header fields (see snapshot_header.h).
#include "snapshot_header.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>

#include "python_text.h"

#ifndef REFSCOPE_PROBE_VERSION
#define REFSCOPE_PROBE_VERSION "0.0.0"
#endif

namespace refscope::probe {

void fill_header(SnapshotHeader& header, bool collected_first, uint64_t sequence,
                 const std::string& label) {
    header.probe_version = REFSCOPE_PROBE_VERSION;
    header.python_version = Py_GetVersion();
    header.python_hexversion = PY_VERSION_HEX;

    std::string compiler = Py_GetCompiler();  // "\n[GCC 12.2.0]"
    std::string trimmed;
    for (char ch : compiler)
        if (ch != '\n' && ch != '[' && ch != ']') trimmed.push_back(ch);
#ifdef Py_DEBUG
    header.python_build = "CPython debug " + trimmed;
#else
    header.python_build = "CPython release " + trimmed;
#endif
    struct utsname names {};
    header.platform = Py_GetPlatform();
    if (uname(&names) == 0) {
        header.platform += " ";
        header.platform += names.machine;
    }
    header.pid = static_cast<int64_t>(getpid());
    header.time_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    header.collected_first = collected_first;
    header.sequence = sequence;
    header.label = label;

    PyObject* sysdict = loaded_module_dict("sys");
    if (PyObject* hex = dict_find_str(sysdict, "hexversion"); hex && PyLong_CheckExact(hex)) {
        unsigned long v = PyLong_AsUnsignedLong(hex);
        if (PyErr_Occurred()) PyErr_Clear();
        else header.python_hexversion = v;
    }
    append_utf8(header.executable, dict_find_str(sysdict, "executable"), 4096);
    if (PyObject* argv = dict_find_str(sysdict, "argv"); argv && PyList_Check(argv)) {
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(argv); ++i) {
            std::string arg;
            append_utf8(arg, PyList_GET_ITEM(argv, i), 4096);
            header.argv.push_back(std::move(arg));
        }
    }
}

}  // namespace refscope::probe
