#include "refscope/analysis/descriptions.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "refscope/analysis/graph_index.h"
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
        case EdgeKind::Native: {
            // A reference the probe found in an undescribed object's memory
            // (format::kEdgeInferred) says so wherever an edge is named.
            const std::string kind = (s.edge_flags[edge] & format::kEdgeInferred) ? "inferred" : "native";
            return label == 0 ? "<" + kind + ">" : "<" + kind + ": " + string_label(s, label) + ">";
        }
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

namespace refscope::analysis {
namespace {

bool is_identifier(std::string_view text) {
    const auto word = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    return !text.empty() && !(text[0] >= '0' && text[0] <= '9') && std::all_of(text.begin(), text.end(), word);
}

}  // namespace

std::string dotted_name(const GraphIndex& index, const RetentionPath& path) {
    const Snapshot& s = index.snapshot();
    const auto is_module = [&](uint32_t node) { return node < s.node_count() && type_name(s, node) == "module"; };
    // The module a node is, or whose namespace dict it is.
    const auto module_of = [&](uint32_t node) -> uint32_t {
        if (is_module(node)) return node;
        for (const uint32_t e : index.in_edges(node)) {
            if (static_cast<EdgeKind>(s.edge_kind[e]) == EdgeKind::Field && is_module(index.source(e)) &&
                s.strings.view(s.edge_label[e]) == "__dict__")
                return index.source(e);
        }
        return kNoNode;
    };
    // The last module on the path names where the object lives: everything
    // before it is how the interpreter reaches modules (sys.modules, a
    // frame's globals). Without one, a thread's local variable does.
    std::string name;
    size_t start = 0;
    for (size_t i = path.edges.size() + 1; i-- > 0;) {
        const uint32_t node = i == 0 ? path.root_node : s.edge_target[path.edges[i - 1]];
        const uint32_t module = module_of(node);
        if (module != kNoNode) {
            name = std::string(s.strings.view(s.node_preview[module]));
            start = i;
            break;
        }
    }
    if (name.empty() && path.root_record < s.roots.size()) {
        const std::string_view label = s.strings.view(s.roots[path.root_record].label);
        const size_t local = label.rfind(", local ");
        if (local != std::string_view::npos) name = std::string(label.substr(local + 8));
    }
    if (name.empty() && std::none_of(path.edges.begin(), path.edges.end(), [&](uint32_t e) {
            return static_cast<EdgeKind>(s.edge_kind[e]) == EdgeKind::Local;
        }))
        return "";
    for (size_t i = start; i < path.edges.size(); ++i) {
        const uint32_t e = path.edges[i];
        const auto kind = static_cast<EdgeKind>(s.edge_kind[e]);
        std::string step = describe_edge(s, e);
        // A module's, class's or instance's namespace dict is implied by the dot.
        if (kind == EdgeKind::Field && step == ".__dict__") continue;
        // A frame's or generator's local variable starts a name of its own.
        if (kind == EdgeKind::Local) {
            name = std::string(s.strings.view(s.edge_label[e]));
            continue;
        }
        if (kind == EdgeKind::DictValue && step.size() > 4 && step.starts_with("['") && step.ends_with("']") &&
            is_identifier(std::string_view(step).substr(2, step.size() - 4))) {
            step = "." + step.substr(2, step.size() - 4);  // an identifier key reads as an attribute
        }
        // A step without a name ends the name: what follows is shown by
        // the caller's description of the object.
        if (kind != EdgeKind::DictValue && kind != EdgeKind::Attribute && kind != EdgeKind::Slot &&
            kind != EdgeKind::Field && kind != EdgeKind::Index)
            return name + " → …";
        name += step;
    }
    return name;
}

}  // namespace refscope::analysis
