// C fields of Cython's function objects (`cython_function_or_method` and
// `fused_cython_function`, Cython/Utility/CythonFunction.c), so that a path
// through a compiled function reads `cyfunction → __globals__ → dict` rather
// than `<ref #6>`. pandas, SciPy, lxml and numpy.random are full of them:
// 7,647 of the 8,037 positional edges left in a pandas snapshot were
// Cython's.
//
// Every extension built with Cython carries its own copy of the runtime, so
// the struct is the one of the Cython version that compiled the module, not
// of a library refscope could link. Each Cython release names its shared
// types after itself: "_cython_3_0_11.cython_function_or_method" (3.0 and
// later; 3.1+ may add "amsendbackport" on Python < 3.10), and plain
// "cython_function_or_method" for 0.29. The series picks the mirror below,
// then the type's tp_basicsize and tp_dictoffset must agree with it, or the
// type gets no labels (its references stay positional, never guessed).
//
// Layouts after the base object (PyCFunctionObject for 0.29, and for 3.x on
// Python < 3.9; PyCMethodObject, whose mm_class is the class cell, for 3.x
// on 3.9+), one word each unless noted:
//   0.29  dict, name, qualname, doc, globals, code, closure, classobj,
//         defaults block (void*, int, size_t, int: 4 words), defaults_tuple,
//         defaults_kwdict, defaults_getter (C), annotations
//   3.0   as 0.29, without classobj on 3.9+, then is_coroutine
//   3.1   the defaults block becomes one object, `defaults`
//   3.2   as 3.1; on Python 3.12+ the dict is managed (no field)
// Cython 3.3 and later are not read (3.3 drops is_coroutine on Python 3.11+,
// and a later series could keep a known size with another field order).
// A fused function adds, after its CyFunction base: 0.29 __signatures__,
// type, self; 3.x __signatures__, self.
//
// Modes: all of these are strong references (CyFunction_clear drops each).
// Fields every version's tp_traverse visits are labelled Traversed, so a
// label only names a reported reference; from 3.1 name, qualname and code
// are not visited (Cython treats them as constants), and annotations only
// from 3.2.5: those are Owned, references the collector cannot see. m_self
// points back at the function itself without a reference: not labelled.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "object_kinds.h"

namespace refscope::probe {

namespace {

constexpr Py_ssize_t kWord = static_cast<Py_ssize_t>(sizeof(PyObject*));

// The Cython series that made a shared type, from its tp_name: 29 for 0.29,
// 30 for 3.0, 31 for 3.1...; 0 when the name is not one of Cython's or names
// a build whose layout differs (the limited API).
int cython_series(const char* tp_name, const char* kind) {
    if (std::strcmp(tp_name, kind) == 0) return 29;
    constexpr const char kPrefix[] = "_cython_";
    if (std::strncmp(tp_name, kPrefix, sizeof kPrefix - 1) != 0) return 0;
    const char* dot = std::strrchr(tp_name, '.');
    if (dot == nullptr || std::strcmp(dot + 1, kind) != 0) return 0;
    char* end = nullptr;
    const long major = std::strtol(tp_name + sizeof kPrefix - 1, &end, 10);
    if (*end != '_') return 0;
    const long minor = std::strtol(end + 1, &end, 10);
    if (*end != '_') return 0;
    std::strtol(end + 1, &end, 10);  // the patch
    // Other ABI suffixes ("limited", "nofinalize"...) are other layouts.
    constexpr std::string_view kBackport = "amsendbackport";
    if (std::string_view(end, static_cast<size_t>(dot - end)) != std::string_view() &&
        std::string_view(end, static_cast<size_t>(dot - end)) != kBackport)
        return 0;
    // 3.3 dropped _is_coroutine on Python 3.11+; later series are unknown.
    if (major != 3 || minor < 0 || minor > 2) return 0;
    return 30 + static_cast<int>(minor);
}

struct Layout {
    Py_ssize_t size = 0;   // tp_basicsize
    Py_ssize_t dict = 0;   // tp_dictoffset (-1: managed)
    std::vector<FieldSpec> fields;
};

// The CyFunction mirror of one series on the Python the probe is built for.
Layout cyfunction_layout(int series) {
    Layout l;
    Py_ssize_t at = static_cast<Py_ssize_t>(sizeof(PyCFunctionObject));
    bool own_classobj = true;
#if PY_VERSION_HEX >= 0x03090000
    if (series >= 30) {
        at = static_cast<Py_ssize_t>(sizeof(PyCMethodObject));
        own_classobj = false;
        l.fields.push_back({static_cast<Py_ssize_t>(offsetof(PyCMethodObject, mm_class)), "func_classobj",
                            SlotUse::Traversed});
    }
#endif
    const bool managed_dict = series >= 32 && PY_VERSION_HEX >= 0x030C0000;
    l.dict = managed_dict ? -1 : at;
    if (!managed_dict) at += kWord;  // the dict: labelled as __dict__ from tp_dictoffset
    const SlotUse constant = series >= 31 ? SlotUse::Owned : SlotUse::Traversed;
    auto next = [&](const char* name, SlotUse use) {
        if (name != nullptr) l.fields.push_back({at, name, use});
        at += kWord;
    };
    next("__name__", constant);
    next("__qualname__", constant);
    next("__doc__", SlotUse::Traversed);
    next("__globals__", SlotUse::Traversed);
    next("__code__", constant);
    next("__closure__", SlotUse::Traversed);
    if (own_classobj) next("func_classobj", SlotUse::Traversed);
    if (series >= 31) {
        next("defaults", SlotUse::Traversed);
        next(nullptr, SlotUse::Member);  // flags (an int, padded)
    } else {
        at += 4 * kWord;  // void* defaults, int count, size_t size, int flags
    }
    next("__defaults__", SlotUse::Traversed);
    next("__kwdefaults__", SlotUse::Traversed);
    next(nullptr, SlotUse::Member);  // defaults_getter, a C function
    next("__annotations__", SlotUse::Owned);
    if (series >= 30) next("_is_coroutine", SlotUse::Traversed);
    l.size = at;
    return l;
}

bool agrees(PyTypeObject* t, const Layout& l) {
    return t != nullptr && t->tp_basicsize == l.size && t->tp_dictoffset == l.dict;
}

}  // namespace

int cython_function_series(const char* tp_name) {
    if (int series = cython_series(tp_name, "cython_function_or_method")) return series;
    return cython_series(tp_name, "fused_cython_function");
}

bool cython_function_fields(PyTypeObject* tp, std::vector<FieldSpec>& out) {
    const int series = cython_function_series(tp->tp_name);
    if (series == 0) return false;
    const bool fused = cython_series(tp->tp_name, "cython_function_or_method") == 0;
    Layout l = cyfunction_layout(series);
    if (!fused) {
        if (agrees(tp, l)) out.insert(out.end(), l.fields.begin(), l.fields.end());
        return true;
    }
    // __signatures__ is an object member of the fused type (labelled as a
    // Slot already); then 0.29's bound type, and the bound instance.
    const Py_ssize_t extra = series == 29 ? 3 : 2;
    if (!agrees(tp->tp_base, l) || tp->tp_basicsize != l.size + extra * kWord) return true;
    out.insert(out.end(), l.fields.begin(), l.fields.end());
    if (series == 29) out.push_back({l.size + kWord, "type", SlotUse::Traversed});
    out.push_back({l.size + (extra - 1) * kWord, "__self__", SlotUse::Traversed});
    return true;
}

}  // namespace refscope::probe
