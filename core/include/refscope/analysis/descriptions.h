// How edges, objects and roots read to a person: `['key']`, `.name`, `[3]`,
// `module app`, `dict (len=3)`, `app.Leaky @ 0x7f…`. The views and the CLI
// render through these so that a path reads the same everywhere. The
// smaller pieces (addresses, quoting, numbers, sizes) are display_text.h,
// included here because every description uses them.
//
// An edge's 32-bit label means different things per kind (constants.h): a node
// id (dict keys, attribute names), a string id (slots, fields, locals, native
// edges) or a number (list index, reference position). Every lookup is bounds
// checked: an out-of-range label renders as `?`, never reads past a column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "refscope/analysis/display_text.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/snapshot.h"

namespace refscope::analysis {

// The type's qualified name ("app.Leaky", "dict"), "?" for a bad type id.
std::string_view type_name(const Snapshot& snapshot, uint32_t node);
// The module an object belongs to for grouping: its type's module, except a
// module object, which belongs to itself (its preview is its name).
std::string_view module_name(const Snapshot& snapshot, uint32_t node);

// "dict value", "attribute", ... (also the JSON names).
std::string_view edge_kind_name(format::EdgeKind kind);
std::string_view edge_kind_name(uint8_t kind);

// `['key']`, `[42]`, `.name`, `[3]`, `.__globals__`, `local x`, `{member}`,
// `(key)`, `<ref #2>`, `(weak)`, `<native: name>`.
std::string describe_edge(const Snapshot& snapshot, uint32_t edge);

// `module app`, `dict (len=3)`, `str 'hello'`, `function app.f`, `int 42`,
// `app.Leaky @ 0x7f…`.
std::string describe_node(const Snapshot& snapshot, uint32_t node);
// describe_node with the address appended when the description does not
// carry it ("type ast.AST @ 0x…", "dict (len=1) @ 0x…"), for places where two
// objects that read alike must stay apart.
std::string describe_node_at(const Snapshot& snapshot, uint32_t node);

// The root record's own label ("sys.modules['app']", "frame app.py:12 in
// main, local x"), or the kind's name when the probe gave none.
std::string describe_root(const Snapshot& snapshot, const RootRef& root);

// The name a program would use for the object at the end of `path`: from
// the last module (or module namespace) on the path — without one, from the
// root's local variable —, its attributes, dict keys and indexes
// ("shop.views.RECENT_ORDERS", "weakref.finalize._registry",
// "app.CACHE['k'][3]"), ending in " → …" at the first step without a name
// (a positional reference: "__main__.build → …"), or "" when no module is
// on the path.
std::string dotted_name(const GraphIndex& index, const RetentionPath& path);
// The thread's name for a thread-stack root, "" otherwise.
std::string_view root_thread_name(const Snapshot& snapshot, const RootRef& root);

}  // namespace refscope::analysis
