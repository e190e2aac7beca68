// The C function table of the describe API (refscope/describe.h). Every
// function first checks that its sink is the report of the callback running
// now, then copies and bounds what it is given into that report; nothing is
// applied to the snapshot until the callback returns 0
// (DescribeSession::commit).
#include <cstdint>
#include <cstring>

#include "describe_session.h"
#include "heap_walker.h"

namespace refscope::probe {
namespace {

uint32_t label_id(DescribeSession& session, const char* label) {
    if (label == nullptr) return 0;
    return session.walker().text(std::string_view(label, bounded_length(label, kMaxLabelBytes)));
}

// A PyObject pointer that is at least shaped like one: non-null and aligned.
bool plausible_object(const PyObject* op) {
    return op != nullptr && (reinterpret_cast<uintptr_t>(op) % alignof(void*)) == 0;
}

refscope_node add_native(refscope_describe_sink* sink, const char* type_name, uint32_t name_flags,
                         const void* address, uint64_t size, bool cpp_object) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || type_name == nullptr || address == nullptr) return REFSCOPE_NO_NODE;
    if (cpp_object && !r->for_instance) return REFSCOPE_NO_NODE;
    if (!r->admit()) return REFSCOPE_NO_NODE;
    DescribeSession& session = *r->session;
    CallReport::Native n;
    n.type_name = session.type_name_id(type_name, name_flags);
    n.address = reinterpret_cast<uint64_t>(address);
    n.size = size;
    n.cpp_object = cpp_object;
    r->natives.push_back(n);
    return r->handle(r->natives.size() - 1);
}

refscope_node api_cpp_object(refscope_describe_sink* sink, const char* type_name, uint32_t name_flags,
                             const void* address, uint64_t size) {
    return add_native(sink, type_name, name_flags, address, size, true);
}

refscope_node api_native_node(refscope_describe_sink* sink, const char* type_name, uint32_t name_flags,
                              const void* address, uint64_t size) {
    return add_native(sink, type_name, name_flags, address, size, false);
}

void api_native_details(refscope_describe_sink* sink, refscope_node node, int64_t refcount,
                        const char* preview) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr) return;
    const size_t k = r->index_of(node);
    if (k == SIZE_MAX) return;
    CallReport::Native& n = r->natives[k];
    n.refcount = refcount < 0 ? 0 : refcount;
    if (preview != nullptr)
        n.preview = r->session->walker().text(std::string_view(preview, bounded_length(preview, kMaxPreviewBytes)));
}

void api_object_edge(refscope_describe_sink* sink, refscope_node from, PyObject* target, const char* label,
                     uint32_t edge_flags) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || !plausible_object(target) || !r->admit()) return;
    CallReport::Edge e;
    e.from = from;
    e.object = target;
    e.label = label_id(*r->session, label);
    e.owned = (edge_flags & REFSCOPE_EDGE_NOT_OWNED) == 0;
    e.attribute = (edge_flags & REFSCOPE_EDGE_ATTRIBUTE) != 0;
    r->edges.push_back(e);
}

void api_native_edge(refscope_describe_sink* sink, refscope_node from, refscope_node to, const char* label,
                     uint32_t edge_flags) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || to == REFSCOPE_SELF || to == REFSCOPE_NO_NODE || !r->admit()) return;
    CallReport::Edge e;
    e.from = from;
    e.native = to;
    e.label = label_id(*r->session, label);
    e.owned = (edge_flags & REFSCOPE_EDGE_NOT_OWNED) == 0;
    r->edges.push_back(e);
}

void api_native_root(refscope_describe_sink* sink, refscope_node node, const char* label) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || node == REFSCOPE_SELF || node == REFSCOPE_NO_NODE || !r->admit()) return;
    CallReport::Root root;
    root.native = node;
    root.label = label_id(*r->session, label);
    r->roots.push_back(root);
}

void api_object_root(refscope_describe_sink* sink, PyObject* object, const char* label, uint32_t count) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || !plausible_object(object) || !r->admit()) return;
    CallReport::Root root;
    root.object = object;
    root.label = label_id(*r->session, label);
    root.count = count;
    r->roots.push_back(root);
}

void api_include_object(refscope_describe_sink* sink, PyObject* object) {
    CallReport* r = DescribeSession::active(sink);
    if (r == nullptr || !plausible_object(object) || !r->admit()) return;
    r->includes.push_back(object);
}

const refscope_describe_api kApi = {
    REFSCOPE_DESCRIBE_ABI_MAJOR,
    REFSCOPE_DESCRIBE_ABI_MINOR,
    static_cast<uint32_t>(sizeof(refscope_describe_api)),
    0,
    &api_cpp_object,
    &api_native_node,
    &api_native_details,
    &api_object_edge,
    &api_native_edge,
    &api_native_root,
    &api_object_root,
    &api_include_object,
};

}  // namespace

const refscope_describe_api* describe_api() { return &kApi; }

}  // namespace refscope::probe
