#include "refscope/analysis/descriptions.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "refscope/analysis/root_classes.h"

namespace refscope::analysis {
namespace {

using format::EdgeKind;

std::string_view preview_of(const Snapshot& s, uint32_t node) {
    return s.strings.view(s.node_preview[node]);
}

bool all_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return c >= '0' && c <= '9';
    });
}

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

std::string string_label(const Snapshot& s, uint32_t id) {
    if (id == 0 || id >= s.strings.size()) return "?";
    return escape_text(s.strings.view(id));
}

std::string dict_key(const Snapshot& s, uint32_t key) {
    if (key >= s.node_count()) return "[?]";
    const std::string_view type = type_name(s, key);
    const std::string_view preview = preview_of(s, key);
    if (type == "str" && s.node_preview[key] != 0) return "[" + quote_text(preview, 40) + "]";
    if (one_of(type, {"int", "float", "bool", "NoneType", "bytes"}) && !preview.empty()) {
        return "[" + escape_text(preview, 40) + "]";
    }
    return "[" + describe_node(s, key) + "]";
}

}  // namespace

std::string_view type_name(const Snapshot& s, uint32_t node) {
    if (node >= s.node_count()) return "?";
    const uint32_t type = s.node_type[node];
    if (type >= s.types.size()) return "?";
    const std::string_view name = s.strings.view(s.types[type].name);
    return name.empty() ? std::string_view("?") : name;
}

std::string_view module_name(const Snapshot& s, uint32_t node) {
    if (node >= s.node_count()) return {};
    if (type_name(s, node) == "module" && s.node_preview[node] != 0) return preview_of(s, node);
    const uint32_t type = s.node_type[node];
    return type < s.types.size() ? s.strings.view(s.types[type].module) : std::string_view();
}

std::string_view edge_kind_name(uint8_t kind) {
    static constexpr std::array<std::string_view, format::kEdgeKindCount> names = {
        "reference", "dict value", "dict key", "attribute", "slot", "index",
        "set member", "field", "local", "native", "weak"};
    return kind < names.size() ? names[kind] : std::string_view("unknown");
}

std::string_view edge_kind_name(EdgeKind kind) {
    return edge_kind_name(static_cast<uint8_t>(kind));
}

std::string describe_edge(const Snapshot& s, uint32_t edge) {
    if (edge >= s.edge_count()) return "?";
    const uint32_t label = s.edge_label[edge];
    switch (static_cast<EdgeKind>(s.edge_kind[edge])) {
        case EdgeKind::Reference: return "<ref #" + std::to_string(label) + ">";
        case EdgeKind::DictValue: return dict_key(s, label);
        case EdgeKind::DictKey: return "(key)";
        case EdgeKind::Attribute:
            if (label >= s.node_count() || s.node_preview[label] == 0) return ".?";
            return "." + escape_text(preview_of(s, label));
        case EdgeKind::Slot: return "." + string_label(s, label);
        case EdgeKind::Index: return "[" + std::to_string(label) + "]";
        case EdgeKind::SetMember: return "{member}";
        case EdgeKind::Field: return "." + string_label(s, label);
        case EdgeKind::Local: return "local " + string_label(s, label);
        case EdgeKind::Native:
            return label == 0 ? std::string("<native>") : "<native: " + string_label(s, label) + ">";
        case EdgeKind::Weak: return "(weak)";
    }
    return "<edge kind " + std::to_string(s.edge_kind[edge]) + ">";
}

std::string describe_node(const Snapshot& s, uint32_t node) {
    if (node >= s.node_count()) return "?";
    const std::string type(type_name(s, node));
    const std::string address = format_address(s.node_address[node]);
    const bool has_preview = s.node_preview[node] != 0;
    const std::string_view preview = preview_of(s, node);
    if (s.node_flags[node] & format::kNodeNative) return "native " + type + " @ " + address;

    // Preview conventions are the probe's (probe/src/value_previews.cpp):
    // str text, bytes already as b'…', numbers, names, containers "len N".
    if (type == "str" && has_preview) return "str " + quote_text(preview);
    if (type == "NoneType") return "None";
    if (!preview.empty()) {
        if (preview.starts_with("len ") && all_digits(preview.substr(4))) {
            return type + " (len=" + std::string(preview.substr(4)) + ")";
        }
        // Previews that are a value or a name read best as "kind what".
        if (one_of(type, {"int", "float", "bool", "complex", "bytes", "module", "function", "code",
                          "builtin_function_or_method", "method", "classmethod", "staticmethod",
                          "property", "method_descriptor", "wrapper_descriptor",
                          "getset_descriptor", "member_descriptor", "frame"}) ||
            (s.node_flags[node] & format::kNodeTypeObject)) {
            return type + " " + escape_text(preview);
        }
        return type + " @ " + address + " (" + escape_text(preview, 40) + ")";
    }
    return type + " @ " + address;
}

std::string describe_node_at(const Snapshot& s, uint32_t node) {
    std::string text = describe_node(s, node);
    if (node >= s.node_count()) return text;
    const std::string address = format_address(s.node_address[node]);
    if (text.find(address) == std::string::npos) text += " @ " + address;
    return text;
}

std::string describe_root(const Snapshot& s, const RootRef& root) {
    // Root labels name a file path, a function and a variable; the variable
    // comes last and is the part that matters, so they get more room than
    // previews do.
    constexpr size_t kRootLabelBytes = 512;
    if (root.label != 0 && root.label < s.strings.size())
        return escape_text(s.strings.view(root.label), kRootLabelBytes);
    return std::string(root_class_name(root_class_of(root.kind)));
}

std::string_view root_thread_name(const Snapshot& s, const RootRef& root) {
    if (root.kind != format::RootKind::ThreadStack || root.thread >= s.threads.size()) return {};
    return s.strings.view(s.threads[root.thread].name);
}

}  // namespace refscope::analysis
