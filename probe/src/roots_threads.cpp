// Thread-stack roots: references held by running frames.
//
// 3.9/3.10: frames are objects. Each frame on a thread's chain is held once
// by the C stack of the eval loop running it (generator frames excepted:
// their generator owns them), so each gets a RootRef of count 1; the frame
// objects then own their locals (Local edges from edge_labels_runtime.cpp).
//
// 3.11+: frames are _PyInterpreterFrame structs in the thread's data stack.
// Every strong reference such a frame holds becomes one RootRef: its code,
// function, f_locals, materialized frame object, each local, and the value
// stack when its depth is known (frames suspended in a call). f_globals and
// f_builtins are borrowed and not counted. Generator-owned frames are
// reported by their generator, except the locals of a running one (stack
// depth unknown): those become roots here. 3.12+ C-stack shim frames hold
// nothing of interest and are skipped.
//
// 3.14+: the slots are tagged stack references, and stackpointer is spilled
// before every call that can run other code, so every frame's value stack
// is visible, the top frame's included (running generators' too: their
// generator reports them). A reference the tag marks as not counted
// (borrowed, immortal) is no root. Frames are read only while the runtime's
// published layout (_Py_DebugOffsets) agrees with the compiled one; else
// threads are listed without roots and named "[frames not read: why]".
//
// Every version: the strong references in the public PyThreadState struct
// (of the headers the probe is built against) are roots of the thread too,
// one reference each, unless the runtime's published layout contradicts
// those headers: its dict (where
// threading.local kept each thread's key before 3.13), the current
// contextvars Context, the exception being raised and the one being handled
// at the base of the thread, the profile and trace objects, the async
// generator hooks, a pending async exception, and (3.13+) threading.local's
// key and sentinel for the thread. Without them each of those objects shows
// a reference nothing explains. Not read: the private _PyThreadStateImpl's
// running asyncio loop (3.13+) and task (3.14+), and the sentinel weakref
// _thread keeps behind the void pointer on_delete_data (3.9-3.12): each
// keeps one unexplained reference.
#include <string>

#include "compat.h"
#include "cpython_internals.h"
#include "heap_walker.h"
#include "python_text.h"

namespace refscope::probe {

using format::RootKind;

namespace {

std::string frame_label(PyCodeObject* co, int line) {
    std::string label = "frame ";
    if (!append_utf8(label, co->co_filename, 200)) label += "?";
    label += ":";
    label += std::to_string(line);
    label += " in ";
#if PY_VERSION_HEX >= 0x030B0000
    append_utf8(label, co->co_qualname, 200);
#else
    append_utf8(label, co->co_name, 200);
#endif
    return label;
}

struct ThreadNames {
    PyObject* active = nullptr;       // threading._active: {ident: Thread}
    unsigned long main_ident = 0;
    bool have_main = false;
};

unsigned long as_ident(PyObject* op, bool& ok) {
    ok = false;
    if (op == nullptr || !PyLong_Check(op)) return 0;
    unsigned long v = PyLong_AsUnsignedLong(op);
    if (v == static_cast<unsigned long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    ok = true;
    return v;
}

ThreadNames read_threading_module() {
    ThreadNames names;
    PyObject* globals = loaded_module_dict("threading");
    if (globals == nullptr) return names;
    names.active = dict_find_str(globals, "_active");
    if (names.active != nullptr && !PyDict_Check(names.active)) names.active = nullptr;
    if (PyObject* main = dict_find_str(globals, "_main_thread"))
        names.main_ident = as_ident(instance_attribute(main, "_ident"), names.have_main);
    return names;
}

std::string thread_name(const ThreadNames& names, unsigned long ident) {
    std::string name;
    if (names.active != nullptr) {
        Py_ssize_t pos = 0;
        PyObject* key;
        PyObject* thread;
        while (PyDict_Next(names.active, &pos, &key, &thread)) {
            bool ok = false;
            if (as_ident(key, ok) == ident && ok) {
                append_utf8(name, instance_attribute(thread, "_name"), 100);
                break;
            }
        }
    }
    if (name.empty()) name = "thread " + std::to_string(ident);
    return name;
}

#if PY_VERSION_HEX < 0x030B0000
void add_frame_objects(HeapWalker& w, PyThreadState* ts, uint32_t thread) {
    for (PyFrameObject* f = compat::thread_top_frame_object(ts); f != nullptr; f = f->f_back) {
        PyCodeObject* co = f->f_code;
        if (co->co_flags & (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR)) continue;
        w.add_root(reinterpret_cast<PyObject*>(f), RootKind::ThreadStack, thread,
                   w.text(frame_label(co, PyFrame_GetLineNumber(f))), 1);
    }
}
#else
void add_interpreter_frames(HeapWalker& w, PyThreadState* ts, uint32_t thread) {
    for (const void* fr = rs_thread_top_frame(ts); fr != nullptr; fr = rs_frame_previous(fr)) {
        rs_frame_view v;
        if (!rs_frame_view_of(fr, &v) || v.code == nullptr) continue;
        if (v.owner == RS_FRAME_OWNED_BY_FRAME_OBJECT || v.owner == RS_FRAME_OWNED_BY_CSTACK) continue;
        bool generator = v.owner == RS_FRAME_OWNED_BY_GENERATOR;
        if (generator && v.stacktop >= 0) continue;  // its generator reports everything
        auto* co = reinterpret_cast<PyCodeObject*>(v.code);
        int line = v.lasti_bytes >= 0 ? PyCode_Addr2Line(co, v.lasti_bytes) : co->co_firstlineno;
        std::string base = frame_label(co, line);
        // Only counted references become roots: a 3.14+ borrowed stack
        // reference is explained by whatever it was borrowed from.
        auto root = [&](PyObject* op, int owned, const std::string& what) {
            if (op != nullptr && owned) w.add_root(op, RootKind::ThreadStack, thread, w.text(base + what), 1);
        };
        for (int i = 0; i < v.nlocalsplus; ++i) {
            int owned = 0;
            PyObject* value = rs_frame_slot(&v, i, &owned);
            if (value == nullptr || !owned) continue;
            std::string what = ", local ";
            if (!append_utf8(what, compat::code_local_name(co, i), 100)) what += std::to_string(i);
            root(value, owned, what);
        }
        if (generator) continue;
        root(v.code, v.code_owned, ", code");
        root(v.function, v.function_owned, ", function");
        root(v.locals, 1, ", f_locals");
        root(v.frame_obj, 1, ", frame object");
        for (int i = v.nlocalsplus; i < v.stacktop; ++i) {
            int owned = 0;
            PyObject* value = rs_frame_slot(&v, i, &owned);
            root(value, owned, ", stack");
        }
    }
}
#endif

void add_thread_state_roots(HeapWalker& w, PyThreadState* ts, uint32_t thread) {
    auto root = [&](PyObject* op, const char* what) {
        if (op != nullptr) w.add_root(op, RootKind::ThreadStack, thread, w.literal(what), 1);
    };
    root(ts->dict, "thread state dict");
    root(ts->context, "thread state context");
    root(ts->async_exc, "thread state async_exc");
    root(ts->c_profileobj, "thread state profile object");
    root(ts->c_traceobj, "thread state trace object");
    root(ts->async_gen_firstiter, "thread state async_gen_firstiter");
    root(ts->async_gen_finalizer, "thread state async_gen_finalizer");
#if PY_VERSION_HEX >= 0x030C0000
    root(ts->current_exception, "thread state current exception");
#else
    root(ts->curexc_type, "thread state current exception type");
    root(ts->curexc_value, "thread state current exception");
    root(ts->curexc_traceback, "thread state current exception traceback");
#endif
    // The base of the handled-exception stack; a running generator's items
    // are its generator's (gen_traverse reports them).
#if PY_VERSION_HEX >= 0x030B0000
    root(ts->exc_state.exc_value, "thread state handled exception");
#else
    root(ts->exc_state.exc_type, "thread state handled exception type");
    root(ts->exc_state.exc_value, "thread state handled exception");
    root(ts->exc_state.exc_traceback, "thread state handled exception traceback");
#endif
#if PY_VERSION_HEX >= 0x030D0000
    root(ts->threading_local_key, "thread state threading_local_key");
    root(ts->threading_local_sentinel, "thread state threading_local_sentinel");
#endif
}

}  // namespace

void add_thread_roots(HeapWalker& w) {
    ThreadNames names = read_threading_module();
    PyInterpreterState* interp = PyInterpreterState_Get();
    // Threads' frames and thread states are read only while the runtime's
    // published layout (3.13+) agrees with the headers the probe was built
    // with; otherwise the threads are listed, named with the reason.
    const char* problem = rs_frame_layout_problem();
    for (PyThreadState* ts = PyInterpreterState_ThreadHead(interp); ts != nullptr;
         ts = PyThreadState_Next(ts)) {
        unsigned long ident = ts->thread_id;
        bool is_main = names.have_main && ident == names.main_ident;
        std::string name = thread_name(names, ident);
        if (problem != nullptr) name += std::string(" [frames not read: ") + problem + "]";
        uint32_t thread = w.add_thread(ident, name, is_main);
        if (problem == nullptr) add_thread_state_roots(w, ts, thread);
#if PY_VERSION_HEX < 0x030B0000
        add_frame_objects(w, ts, thread);
#else
        add_interpreter_frames(w, ts, thread);
#endif
    }
}

}  // namespace refscope::probe
