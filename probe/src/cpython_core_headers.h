/* The CPython headers, private ones included, that cpython_internals.c and
 * cpython_frames.c compile against: Py_BUILD_CORE before Python.h, then the
 * internal headers of the exact minor version the extension is built for.
 * RS_STACKREFS says whether frames hold tagged stack references (3.14+). */
#pragma once

#define Py_BUILD_CORE 1
#include <Python.h>

#if PY_VERSION_HEX >= 0x030E0000
/* 3.14+: frames hold tagged stack references (pycore_stackref.h) and the
 * frame structs moved to pycore_interpframe*.h. */
#define RS_STACKREFS 1
#include "internal/pycore_interpframe.h"
#include "internal/pycore_stackref.h"
#else
#define RS_STACKREFS 0
#endif
#if PY_VERSION_HEX >= 0x030D0000
#include "internal/pycore_runtime.h" /* _PyRuntime.debug_offsets */
#endif
#if PY_VERSION_HEX >= 0x030B0000
#include "internal/pycore_code.h"
#include "internal/pycore_dict.h"
#include "internal/pycore_frame.h"
#include "internal/pycore_moduleobject.h"
#include "internal/pycore_object.h"
#else
#include <frameobject.h>
#endif
#if PY_VERSION_HEX >= 0x030A0000
#include "internal/pycore_interp.h"
#endif
