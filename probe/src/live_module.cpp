// refscope._probe's live-connection entry points (wrapped by refscope/_live.py):
//
//   _live_connect(address, token_hex, label, attached, connect_timeout, send_timeout)
//       connect and complete the handshake (GIL released meanwhile), then
//       start the connection's thread; raises ValueError for a bad address
//       or token, ConnectionError when the receiver cannot be reached or
//       refuses, RuntimeError when already connected.
//   _live_disconnect(goodbye) -> bool     stop the thread (after telling the
//       receiver why), wait for it without the GIL; False if not connected
//   _live_status() -> dict | None         the connection's counters and state
//   _live_shutdown()                      atexit: no GIL for the thread any
//       more, goodbye "process exiting", join
//
// One connection per process. The thread takes the GIL only in
// snapshot_for_connection(). A fork child never inherits the connection:
// the pthread_atfork child handler closes the inherited descriptors and
// forgets the client (the thread does not exist in the child). Every entry
// point catches all C++ exceptions (entry_point.h).
#include "live_module.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>

#include "compat.h"
#include "entry_point.h"
#include "live_client.h"
#include "refscope/protocol/address.h"
#include "refscope/protocol/process_facts.h"
#include "snapshot_header.h"

namespace refscope::probe {
namespace {

// The client; replaced only by Python threads holding the GIL, read by the
// fork child handler (atomic for that reason).
std::atomic<LiveClient*> g_client{nullptr};
// A client asked to stop from its own thread (a finalizer run by its
// gc.collect() called disconnect()): it cannot join itself, so it is
// deleted by the next connect, disconnect or shutdown.
LiveClient* g_retired = nullptr;
// Set at interpreter exit: the thread must not take the GIL any more.
std::atomic<bool> g_no_more_gil{false};
std::once_flag g_atfork_once;
// The status of the last connection after it was stopped and freed, for
// connection_status() (GIL held whenever these are touched).
LiveStatus g_last_status;
bool g_has_last_status = false;

void after_fork_in_child() {
    if (LiveClient* c = g_client.exchange(nullptr)) c->abandon_after_fork();  // leaked on purpose
    if (g_retired != nullptr) g_retired->abandon_after_fork();
    g_retired = nullptr;
    g_has_last_status = false;  // the child never connected (no allocation here)
}

bool snapshot_for_connection(Snapshot& out, bool collect, uint64_t sequence, const std::string& label,
                             std::string& error) {
    if (g_no_more_gil.load() || !Py_IsInitialized()) {
        error = "the interpreter is shutting down";
        return false;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    bool ok = false;
    if (g_no_more_gil.load() || compat::interpreter_finalizing()) {
        error = "the interpreter is shutting down";
    } else {
        try {
            walk_for_live_connection(out, collect, sequence, label);
            ok = true;
        } catch (const std::bad_alloc&) {
            error = "out of memory while walking the heap";
        } catch (const std::exception& e) {
            error = e.what();
        } catch (...) {
            error = "unknown error during the walk";
        }
    }
    if (PyErr_Occurred()) PyErr_Clear();  // nothing may stay pending on this thread state
    PyGILState_Release(gil);
    return ok;
}

protocol::ProcessDescription describe_process(const std::string& label, bool attached) {
    SnapshotHeader h;
    fill_header(h, false, 0, label);
    protocol::ProcessDescription d;
    d.probe_version = h.probe_version;
    d.python_version = h.python_version;
    d.python_hexversion = h.python_hexversion;
    d.python_build = h.python_build;
    d.platform = h.platform;
    d.pid = h.pid;
    d.executable = h.executable;
    d.argv = h.argv;
    d.label = label;
    d.start_time_unix_ns = protocol::process_start_time_unix_ns(h.pid);
    d.connect_time_unix_ns = h.time_unix_ns;
    d.attached = attached;
    return d;
}

// Deletes clients whose threads may still run; GIL held on entry and exit,
// released while joining (the thread may be waiting for it).
void delete_without_gil(LiveClient* client) {
    if (client == nullptr) return;
    Py_BEGIN_ALLOW_THREADS
    delete client;
    Py_END_ALLOW_THREADS
}

// Stops the current client. Returns false if there was none running.
bool stop_client(const std::string& goodbye) {
    LiveClient* old_retired = nullptr;
    LiveClient* c = g_client.exchange(nullptr);
    if (c != nullptr && c->on_client_thread()) {
        c->request_stop(goodbye);
        old_retired = g_retired;
        g_retired = c;
        delete_without_gil(old_retired);
        return true;
    }
    if (g_retired != nullptr && !g_retired->on_client_thread()) {
        old_retired = g_retired;
        g_retired = nullptr;
        delete_without_gil(old_retired);
    }
    if (c == nullptr) return false;
    const bool was_running = c->running();
    c->request_stop(goodbye);
    Py_BEGIN_ALLOW_THREADS
    c->join();
    Py_END_ALLOW_THREADS
    g_last_status = c->status();
    g_has_last_status = true;
    delete_without_gil(c);
    return was_running;
}

bool text_argument(PyObject* op, std::string& out, const char* what) {
    if (!PyUnicode_Check(op)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str", what);
        return false;
    }
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(op, &size);
    if (utf8 == nullptr) return false;
    out.assign(utf8, static_cast<size_t>(size));
    return true;
}

bool seconds_argument(PyObject* op, std::chrono::milliseconds& out, const char* what) {
    const double v = PyFloat_AsDouble(op);
    if (v == -1.0 && PyErr_Occurred()) return false;
    if (!(v > 0) || v > 3600) {
        PyErr_Format(PyExc_ValueError, "%s must be a number of seconds in (0, 3600]", what);
        return false;
    }
    out = std::chrono::milliseconds(static_cast<int64_t>(v * 1000));
    return true;
}

PyObject* live_connect(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    return translate_exceptions([&]() -> PyObject* {
        if (nargs != 6) {
            PyErr_SetString(PyExc_TypeError,
                            "_live_connect(address, token, label, attached, connect_timeout, send_timeout)");
            return nullptr;
        }
        std::string address_text, token_text, label;
        if (!text_argument(args[0], address_text, "address") || !text_argument(args[1], token_text, "token") ||
            !text_argument(args[2], label, "label"))
            return nullptr;
        const int attached = PyObject_IsTrue(args[3]);
        if (attached < 0) return nullptr;
        LiveSettings settings;
        if (!seconds_argument(args[4], settings.connect_timeout, "connect_timeout") ||
            !seconds_argument(args[5], settings.send_stall_timeout, "send_timeout"))
            return nullptr;
        std::string error;
        const auto address = protocol::parse_address(address_text, error);
        if (!address) {
            PyErr_SetString(PyExc_ValueError, ("refscope: " + error).c_str());
            return nullptr;
        }
        settings.address = *address;
        if (!protocol::parse_token(token_text, settings.token)) {
            PyErr_SetString(PyExc_ValueError, "refscope: the token must be 32 hexadecimal digits");
            return nullptr;
        }
        if (g_no_more_gil.load()) {
            PyErr_SetString(PyExc_RuntimeError, "refscope: the interpreter is shutting down");
            return nullptr;
        }
        if (LiveClient* current = g_client.load(); current != nullptr && current->running()) {
            const std::string where = current->status().address;
            PyErr_SetString(PyExc_RuntimeError,
                            ("refscope: already connected to " + where + "; call refscope.disconnect() first").c_str());
            return nullptr;
        }
        stop_client("");  // a connection that already ended: join and free it
        settings.description = describe_process(label, attached != 0);

        Handshake handshake;
        std::string failure;
        Py_BEGIN_ALLOW_THREADS
        try {
            handshake = connect_and_handshake(settings);
        } catch (const std::exception& e) {
            failure = e.what();
        } catch (...) {
            failure = "unknown error while connecting";
        }
        Py_END_ALLOW_THREADS
        if (!failure.empty()) {
            PyErr_SetString(PyExc_ConnectionError, ("refscope: " + failure).c_str());
            return nullptr;
        }
        std::call_once(g_atfork_once, [] { ::pthread_atfork(nullptr, nullptr, after_fork_in_child); });
        auto* client = new LiveClient(std::move(settings), std::move(handshake), snapshot_for_connection);
        client->start();
        g_client.store(client);
        Py_RETURN_NONE;
    });
}

PyObject* live_disconnect(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
    try {
        std::string goodbye = "disconnect() called";
        if (nargs > 1) {
            PyErr_SetString(PyExc_TypeError, "_live_disconnect(goodbye='disconnect() called')");
            return nullptr;
        }
        if (nargs == 1 && !text_argument(args[0], goodbye, "goodbye")) return nullptr;
        return PyBool_FromLong(stop_client(goodbye) ? 1 : 0);
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "refscope probe: error while disconnecting");
        return nullptr;
    }
}

PyObject* live_status(PyObject*, PyObject* const*, Py_ssize_t) {
    try {
        LiveClient* c = g_client.load();
        if (c == nullptr && !g_has_last_status) Py_RETURN_NONE;
        const LiveStatus s = c != nullptr ? c->status() : g_last_status;
        // Texts may come from the receiver (the label): any bytes, decoded leniently.
        auto text = [](const std::string& t) {
            return PyUnicode_DecodeUTF8(t.data(), static_cast<Py_ssize_t>(t.size()), "replace");
        };
        return Py_BuildValue("{s:O,s:N,s:N,s:K,s:K,s:K,s:N,s:N}", "connected", s.connected ? Py_True : Py_False,
                             "address", text(s.address), "label", text(s.label), "requests",
                             static_cast<unsigned long long>(s.requests), "snapshots_sent",
                             static_cast<unsigned long long>(s.snapshots_sent), "bytes_sent",
                             static_cast<unsigned long long>(s.bytes_sent), "last_error", text(s.last_error),
                             "closed_reason", text(s.closed_reason));
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "refscope probe: error while reading the connection status");
        return nullptr;
    }
}

PyObject* live_shutdown(PyObject*, PyObject* const*, Py_ssize_t) {
    try {
        g_no_more_gil.store(true);
        stop_client("process exiting");
        Py_RETURN_NONE;
    } catch (...) {
        PyErr_SetString(PyExc_RuntimeError, "refscope probe: error while shutting the connection down");
        return nullptr;
    }
}

PyMethodDef g_live_methods[] = {
    {"_live_connect", fastcall(&live_connect), METH_FASTCALL,
     "_live_connect(address, token, label, attached, connect_timeout, send_timeout)\n\n"
     "Connect to a receiver and start the connection's thread. Use refscope.connect()."},
    {"_live_disconnect", fastcall(&live_disconnect), METH_FASTCALL,
     "_live_disconnect(goodbye='disconnect() called') -> bool"},
    {"_live_status", fastcall(&live_status), METH_FASTCALL, "_live_status() -> dict or None"},
    {"_live_shutdown", fastcall(&live_shutdown), METH_FASTCALL,
     "_live_shutdown(): at interpreter exit, end the connection for good"},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

int add_live_functions(PyObject* module) { return PyModule_AddFunctions(module, g_live_methods); }

}  // namespace refscope::probe
