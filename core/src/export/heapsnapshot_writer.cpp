// The V8 `.heapsnapshot` writer. The file it produces is, in this order:
//
//   {"snapshot":{"meta":{...},"node_count":N,"edge_count":E,"trace_function_count":0},
//    "nodes":[type,name,id,self_size,edge_count,trace_node_id,detachedness, ...],
//    "edges":[type,name_or_index,to_node, ...],
//    "trace_function_infos":[],"trace_tree":[],"samples":[],"locations":[],
//    "strings":["", ...]}
//
// `nodes` and `edges` are flat integer arrays (7 and 3 fields per entry, as
// `meta` says); a node's edges are the next `edge_count` entries of `edges`
// after those of the nodes before it, and `to_node` is the target's position
// in `nodes` (node index × 7), not its index. Names are indexes into
// `strings`, except for element edges, whose name_or_index is the index.
//
// The order of the top-level keys is V8's and matters in practice: memlab
// finds "snapshot", "nodes" and "edges" by searching the text, and its number
// parser accepts only digits, commas, spaces and newlines inside them. Every
// number written is therefore a non-negative integer, and every string is
// written as pure ASCII (\uXXXX escapes for the rest), because memlab decodes
// the file in chunks and would garble a UTF-8 sequence cut at a chunk border.
//
// The mapping of Python objects and references onto V8's node and edge types
// is in docs/heapsnapshot.md; the functions below implement it line by line.
//
// This file holds the writer proper (the nodes and edges in V8's layout) and
// the public entry points; the JSON output, its sinks and the name tables it
// uses are declared in heapsnapshot_parts.h.

#include "refscope/export/heapsnapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>
#include <vector>

#include "export/heapsnapshot_parts.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/format/constants.h"

namespace refscope::exporting {
namespace {

using analysis::GraphIndex;
using analysis::RootClasses;
using format::EdgeKind;

// V8's node and edge type numbers: positions in the meta arrays written by
// write_meta(). Only the ones the export uses are named.
enum NodeType : uint32_t {
    kHidden = 0, kArray = 1, kString = 2, kObject = 3, kCode = 4, kClosure = 5,
    kNumber = 7, kNative = 8, kSynthetic = 9,
};
enum EdgeType : uint32_t {
    kElement = 1, kProperty = 2, kInternal = 3, kWeak = 6,
};
constexpr uint32_t kNodeFieldCount = 7;

using format::errno_text;
using detail::JsonOutput;
using detail::OutputStrings;
using detail::plan_synthetic_nodes;
using detail::style_of;
using detail::SyntheticNodes;
using detail::TypeStyle;

class HeapsnapshotWriter {
public:
    HeapsnapshotWriter(const GraphIndex& index, const RootClasses& roots,
                       const HeapsnapshotOptions& options)
        : index_(index), roots_(roots), s_(index.snapshot()), options_(options),
          strings_(s_.strings), plan_(plan_synthetic_nodes(s_)) {
        synthetic_count_ = static_cast<uint32_t>(plan_.names.size());
        const uint64_t total = uint64_t{synthetic_count_} + index_.node_count();
        if ((total - 1) * kNodeFieldCount > 0xFFFFFFFFull) {
            throw HeapsnapshotError("the heap has " + std::to_string(total) +
                                    " nodes; a .heapsnapshot holds at most " +
                                    std::to_string(0xFFFFFFFFull / kNodeFieldCount));
        }
        const uint32_t unknown = strings_.add_text("?");
        type_style_.resize(s_.types.size());
        type_name_.resize(s_.types.size(), unknown);
        str_type_.resize(s_.types.size(), 0);
        for (size_t t = 0; t < s_.types.size(); ++t) {
            const std::string_view name = s_.strings.view(s_.types[t].name);
            type_style_[t] = options_.python_types_only ? TypeStyle::Object : style_of(name);
            if (!name.empty()) type_name_[t] = strings_.snapshot_string(s_.types[t].name);
            str_type_[t] = name == "str";
        }
        unknown_name_ = unknown;
        str_name_by_node_.assign(index_.node_count(), kUnset);
        key_name_ = strings_.add_text("(key)");
        weak_name_ = strings_.add_text("(weak)");
    }

    HeapsnapshotStats write(format::ByteSink& sink) {
        JsonOutput out(sink);
        HeapsnapshotStats stats;
        stats.synthetic_nodes = synthetic_count_;
        stats.nodes = uint64_t{synthetic_count_} + index_.node_count();
        stats.edges = synthetic_edge_count() + index_.edge_count();

        out.raw("{\"snapshot\":{\"meta\":");
        write_meta(out);
        out.raw(",\"node_count\":");
        out.number(stats.nodes);
        out.raw(",\"edge_count\":");
        out.number(stats.edges);
        out.raw(",\"trace_function_count\":0},\n\"nodes\":[");
        write_nodes(out);
        out.raw("],\n\"edges\":[");
        write_edges(out);
        out.raw("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],"
                "\n\"locations\":[],\n\"strings\":[");
        for (uint32_t i = 0; i < strings_.size(); ++i) {
            if (i > 0) out.raw(",\n");
            out.string(strings_.text(i));
        }
        out.raw("]}\n");
        out.flush();
        stats.strings = strings_.size();
        stats.bytes = out.bytes();
        return stats;
    }

private:
    static void write_meta(JsonOutput& out) {
        out.raw(
            "{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
            "\"trace_node_id\",\"detachedness\"],\n"
            "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
            "\"regexp\",\"number\",\"native\",\"synthetic\",\"concatenated string\","
            "\"sliced string\",\"symbol\",\"bigint\",\"object shape\"],"
            "\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],\n"
            "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\n"
            "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\","
            "\"shortcut\",\"weak\"],\"string_or_number\",\"node\"],\n"
            "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\","
            "\"script_id\",\"line\",\"column\"],\n"
            "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\","
            "\"children\"],\n"
            "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\n"
            "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]}");
    }

    uint64_t synthetic_edge_count() const {
        return (synthetic_count_ - 1) + plan_.records.size() + roots_.unexplained_nodes().size();
    }
    uint32_t synthetic_edges_of(uint32_t node) const {
        if (node == 0) return synthetic_count_ - 1;
        if (node == plan_.unexplained_node) {
            return static_cast<uint32_t>(roots_.unexplained_nodes().size());
        }
        return plan_.record_offset[node + 1] - plan_.record_offset[node];
    }

    void node(JsonOutput& out, bool first, uint32_t type, uint32_t name, uint64_t id,
              uint64_t self_size, uint32_t edge_count) {
        if (!first) out.put(',');
        out.number(type);
        out.put(',');
        out.number(name);
        out.put(',');
        out.number(id);
        out.put(',');
        out.number(std::min<uint64_t>(self_size, 0xFFFFFFFFull));
        out.put(',');
        out.number(edge_count);
        out.raw(",0,0\n");  // trace_node_id, detachedness: none
    }

    void write_nodes(JsonOutput& out) {
        for (uint32_t i = 0; i < synthetic_count_; ++i) {
            node(out, i == 0, kSynthetic, strings_.add_text(plan_.names[i]),
                 i == 0 ? kHeapsnapshotRootId : 2ull * i, 0, synthetic_edges_of(i));
        }
        const uint32_t count = index_.node_count();
        for (uint32_t n = 0; n < count; ++n) {
            uint32_t type = kObject;
            uint32_t name = unknown_name_;
            const uint32_t t = s_.node_type[n];
            if (t < type_style_.size()) {
                name = type_name_[t];
                const uint32_t preview = s_.node_preview[n];
                switch (type_style_[t]) {
                    case TypeStyle::Object: break;
                    case TypeStyle::Array: type = kArray; break;
                    case TypeStyle::String:
                        type = kString;
                        name = strings_.snapshot_string(preview);
                        break;
                    case TypeStyle::Number: type = kNumber; break;
                    case TypeStyle::Closure: type = kClosure; break;
                    case TypeStyle::Code: type = kCode; break;
                }
                if (preview != 0 &&
                    (type == kNumber || type == kClosure || type == kCode)) {
                    name = strings_.snapshot_string(preview);
                }
            }
            if (s_.node_flags[n] & format::kNodeNative) type = kNative;
            node(out, false, type, name, heapsnapshot_object_id(n), s_.node_size[n],
                 index_.out_degree(n));
        }
    }

    void edge(JsonOutput& out, uint32_t type, uint64_t name_or_index, uint64_t to_position) {
        if (!first_edge_) out.put(',');
        first_edge_ = false;
        out.number(type);
        out.put(',');
        out.number(name_or_index);
        out.put(',');
        out.number(to_position * kNodeFieldCount);
        out.put('\n');
    }

    void write_edges(JsonOutput& out) {
        for (uint32_t i = 1; i < synthetic_count_; ++i) edge(out, kElement, i - 1, i);
        for (uint32_t i = 1; i < synthetic_count_; ++i) {
            if (i == plan_.unexplained_node) {
                char text[40];
                for (const analysis::NodeCount& held : roots_.unexplained_nodes()) {
                    const auto end = std::to_chars(text, text + 24, held.references).ptr;
                    std::memcpy(end, " unexplained", 12);
                    edge(out, kProperty, strings_.add_text(std::string_view(text, end + 12 - text)),
                         uint64_t{synthetic_count_} + held.node);
                }
                continue;
            }
            for (uint32_t k = plan_.record_offset[i]; k < plan_.record_offset[i + 1]; ++k) {
                const RootRef& r = s_.roots[plan_.records[k]];
                const uint32_t name =
                    r.label != 0 && r.label < s_.strings.size()
                        ? strings_.snapshot_string(r.label)
                        : strings_.add_text(analysis::describe_root(s_, r));
                edge(out, kProperty, name, uint64_t{synthetic_count_} + r.node);
            }
        }
        const uint32_t count = index_.node_count();
        std::string scratch;
        for (uint32_t n = 0; n < count; ++n) {
            uint32_t set_member = 0;
            for (const uint32_t e : index_.out_edges(n)) {
                write_object_edge(out, n, e, set_member, scratch);
            }
        }
    }

    // The output string of a str node's text when `node` is a str with a
    // preview, else kUnset. Dict keys and attribute names are such nodes; the
    // answer is cached per node because on a big heap the lookups behind it
    // (the node's type and preview, then that string's output index) are
    // dependent cache misses, and one cached read replaces them.
    uint32_t str_node_name(uint32_t node) {
        uint32_t& cached = str_name_by_node_[node];
        if (cached == kUnset) {
            const uint32_t type = s_.node_type[node];
            const uint32_t preview = s_.node_preview[node];
            cached = preview != 0 && type < str_type_.size() && str_type_[type]
                         ? strings_.snapshot_string(preview)
                         : kNotStr;
        }
        return cached == kNotStr ? kUnset : cached;
    }

    // The name of a property-like edge as an output string index.
    uint32_t property_name(uint32_t e, EdgeKind kind) {
        const uint32_t label = s_.edge_label[e];
        switch (kind) {
            case EdgeKind::DictValue: {
                if (label < s_.node_count()) {
                    const uint32_t name = str_node_name(label);
                    if (name != kUnset) return name;
                }
                return strings_.add_text(analysis::describe_edge(s_, e));
            }
            case EdgeKind::Attribute:
                if (label < s_.node_count()) {
                    const uint32_t name = str_node_name(label);
                    if (name != kUnset) return name;
                    // Not a str (the probe never does this): any preview will do.
                    if (s_.node_preview[label] != 0) {
                        return strings_.snapshot_string(s_.node_preview[label]);
                    }
                }
                return unknown_name_;
            case EdgeKind::Native:
                if (label == 0) return strings_.add_text("<native>");
                // "<inferred: word at +24>": read from memory, never reported.
                if (s_.edge_flags[e] & format::kEdgeInferred) return strings_.add_text(analysis::describe_edge(s_, e));
                [[fallthrough]];
            default:  // Slot, Field, Local: a string id
                if (label != 0 && label < s_.strings.size()) return strings_.snapshot_string(label);
                return unknown_name_;
        }
    }

    void write_object_edge(JsonOutput& out, uint32_t from, uint32_t e, uint32_t& set_member,
                           std::string& scratch) {
        const uint64_t to = uint64_t{synthetic_count_} + s_.edge_target[e];
        const uint8_t flags = s_.edge_flags[e];
        const auto kind = static_cast<EdgeKind>(s_.edge_kind[e]);
        const uint32_t label = s_.edge_label[e];
        const uint32_t member = kind == EdgeKind::SetMember ? set_member++ : 0;
        if (kind == EdgeKind::Weak) {
            edge(out, kWeak, weak_name_, to);
            return;
        }
        const bool owned = (flags & format::kEdgeOwned) != 0;
        const bool invisible = index_.hidden_from_gc(e, from);
        if (!owned || invisible) {
            scratch.assign(plain_name(e, kind, label, member));
            scratch += owned ? " [GC-invisible]" : " [not owned]";
            edge(out, owned ? kProperty : kWeak, strings_.add_text(scratch), to);
            return;
        }
        switch (kind) {
            case EdgeKind::Index: edge(out, kElement, label, to); return;
            case EdgeKind::SetMember: edge(out, kElement, member, to); return;
            case EdgeKind::DictKey: edge(out, kInternal, key_name_, to); return;
            case EdgeKind::Reference:
                edge(out, kInternal, strings_.add_text(analysis::describe_edge(s_, e)), to);
                return;
            case EdgeKind::DictValue:
            case EdgeKind::Attribute:
            case EdgeKind::Slot:
            case EdgeKind::Field:
            case EdgeKind::Local:
            case EdgeKind::Native:
                edge(out, kProperty, property_name(e, kind), to);
                return;
            default:
                edge(out, kInternal, strings_.add_text(analysis::describe_edge(s_, e)), to);
                return;
        }
    }

    // The edge's name as text, before a " [GC-invisible]" / " [not owned]"
    // marker is added.
    std::string plain_name(uint32_t e, EdgeKind kind, uint32_t label, uint32_t member) {
        switch (kind) {
            case EdgeKind::Index: return "[" + std::to_string(label) + "]";
            case EdgeKind::SetMember: return "{member " + std::to_string(member) + "}";
            case EdgeKind::DictValue:
            case EdgeKind::Attribute:
            case EdgeKind::Slot:
            case EdgeKind::Field:
            case EdgeKind::Local:
            case EdgeKind::Native:
                return std::string(strings_.text(property_name(e, kind)));
            default: return analysis::describe_edge(s_, e);
        }
    }

    const GraphIndex& index_;
    const RootClasses& roots_;
    const Snapshot& s_;
    HeapsnapshotOptions options_;
    OutputStrings strings_;
    SyntheticNodes plan_;
    uint32_t synthetic_count_ = 0;
    std::vector<TypeStyle> type_style_;
    std::vector<uint32_t> type_name_;
    std::vector<uint8_t> str_type_;
    static constexpr uint32_t kUnset = 0xFFFFFFFFu;
    static constexpr uint32_t kNotStr = 0xFFFFFFFEu;
    std::vector<uint32_t> str_name_by_node_;  // see str_node_name()
    uint32_t unknown_name_ = 0;
    uint32_t key_name_ = 0;
    uint32_t weak_name_ = 0;
    bool first_edge_ = true;
};

// A sink's WriteError ("No space left on device") as this exporter's error.
HeapsnapshotStats write_or_explain(HeapsnapshotWriter& writer, format::ByteSink& sink) {
    try {
        return writer.write(sink);
    } catch (const format::WriteError& e) {
        throw HeapsnapshotError(std::string("cannot write the heap snapshot: ") + e.what());
    }
}

}  // namespace

HeapsnapshotStats write_heapsnapshot(const GraphIndex& index, const RootClasses& roots,
                                     std::FILE* out, const HeapsnapshotOptions& options) {
    format::FileSink sink(out);
    HeapsnapshotWriter writer(index, roots, options);
    const HeapsnapshotStats stats = write_or_explain(writer, sink);
    if (std::fflush(out) != 0) {
        throw HeapsnapshotError("cannot write the heap snapshot: " + errno_text(errno));
    }
    return stats;
}

HeapsnapshotStats write_heapsnapshot(const GraphIndex& index, const RootClasses& roots,
                                     std::ostream& out, const HeapsnapshotOptions& options) {
    format::StreamSink sink(out);
    HeapsnapshotWriter writer(index, roots, options);
    const HeapsnapshotStats stats = write_or_explain(writer, sink);
    out.flush();
    if (!out) throw HeapsnapshotError("cannot write the heap snapshot: the stream failed");
    return stats;
}

HeapsnapshotStats write_heapsnapshot_file(const GraphIndex& index, const RootClasses& roots,
                                          const std::string& path,
                                          const HeapsnapshotOptions& options) {
    // The writer is built (and may refuse the snapshot) before any file exists.
    HeapsnapshotWriter writer(index, roots, options);
    try {
        format::AtomicFile file(path);
        format::AtomicFileSink sink(file);
        const HeapsnapshotStats stats = writer.write(sink);
        file.commit();
        return stats;
    } catch (const format::AtomicFileError& e) {
        throw HeapsnapshotError(e.what());
    }
}

HeapsnapshotStats write_heapsnapshot_file(const Snapshot& snapshot, const std::string& path,
                                          const HeapsnapshotOptions& options) {
    const GraphIndex index(snapshot);
    const RootClasses roots(index);
    return write_heapsnapshot_file(index, roots, path, options);
}

}  // namespace refscope::exporting