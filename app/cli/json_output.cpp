#include "json_output.h"

#include "json_writer.h"
#include "refscope/analysis/descriptions.h"

namespace refscope::cli {
namespace {


using analysis::format_address;
using analysis::format_utc;

void write_root(JsonWriter& json, const RootReport& root, const NodeReport* node) {
    json.begin_object();
    json.field("kind", root.kind);
    json.field("label", root.label);
    json.key("thread");
    if (root.thread.empty()) {
        json.null();
    } else {
        json.value(root.thread);
    }
    json.field("count", root.count);
    if (node) {
        json.key("node");
        write_node(json, *node);
    }
    json.end_object();
}

void write_nodes(JsonWriter& json, const std::vector<NodeReport>& nodes) {
    json.begin_array();
    for (const NodeReport& node : nodes) write_node(json, node);
    json.end_array();
}

void begin_report(JsonWriter& json, std::string_view verb, const std::string& file) {
    json.begin_object();
    json.field("verb", verb);
    json.field("file", file);
}

}  // namespace

void write_hops(JsonWriter& json, const std::vector<HopReport>& hops) {
    json.begin_array();
    for (const HopReport& hop : hops) {
        json.begin_object();
        json.field("edge", hop.edge);
        json.field("edge_kind", hop.edge_kind);
        json.field("owned", hop.owned);
        json.field("gc_visible", hop.gc_visible);
        json.field("gc_invisible", hop.gc_invisible);
        json.field("inferred", hop.inferred);
        json.key("node");
        write_node(json, hop.node);
        json.end_object();
    }
    json.end_array();
}

void write_node(JsonWriter& json, const NodeReport& node) {
    json.begin_object();
    json.field("id", node.id);
    json.field("address", format_address(node.address));
    json.field("type", node.type);
    json.field("preview", node.preview);
    json.field("description", node.description);
    json.field("size", node.size);
    json.field("refcount", node.refcount);
    json.field("surplus", node.surplus);
    json.field("unexplained", node.unexplained);
    json.field("immortal", node.immortal);
    json.field("native", node.native);
    // Present only in snapshots with allocation tracebacks: null when this
    // object was not traced.
    if (node.has_allocations) {
        json.key("allocated");
        if (node.allocated.empty()) {
            json.null();
        } else {
            json.begin_object();
            json.field("site", node.allocation_site);
            json.field("traceback", node.allocated);
            json.end_object();
        }
    }
    json.end_object();
}

void write_json(const InfoReport& r, std::ostream& out) {
    const Snapshot& s = *r.snapshot;
    const SnapshotHeader& h = s.header;
    JsonWriter json(out);
    begin_report(json, "info", r.file);
    json.field("format_version",
               std::to_string(h.format_major) + "." + std::to_string(h.format_minor));
    json.key("header");
    json.begin_object();
    json.field("probe_version", h.probe_version);
    json.field("python_version", h.python_version);
    json.field("python_hexversion", h.python_hexversion);
    json.field("python_build", h.python_build);
    json.field("platform", h.platform);
    json.field("pid", h.pid);
    json.field("executable", h.executable);
    json.field("argv", h.argv);
    json.field("time_unix_ns", h.time_unix_ns);
    json.field("time", format_utc(h.time_unix_ns));
    json.field("collected_first", h.collected_first);
    json.field("sequence", h.sequence);
    json.field("label", h.label);
    json.field("walk_ns", h.walk_ns);
    json.end_object();
    json.key("counts");
    json.begin_object();
    json.field("objects", s.node_count());
    json.field("references", r.references);
    json.field("types", s.types.size());
    json.field("strings", s.strings.size());
    json.field("roots", s.roots.size());
    json.field("threads", s.threads.size());
    json.field("gc_tracked", r.gc_tracked);
    json.field("immortal", r.immortal);
    json.field("native", r.native);
    json.field("type_objects", r.type_objects);
    json.field("bytes", r.bytes);
    json.end_object();
    json.key("threads");
    json.begin_array();
    for (const ThreadInfo& t : s.threads) {
        json.begin_object();
        json.field("ident", t.ident);
        json.field("name", s.strings.view(t.name));
        json.field("is_main", t.is_main);
        json.end_object();
    }
    json.end_array();
    // null when the target did not trace allocations (docs/cli.md, "Allocation sites").
    json.key("allocations");
    const AllocationSites& a = s.allocations;
    if (a.recorded()) {
        json.begin_object();
        json.field("traced_objects", a.traced_count());
        json.field("tracebacks", a.traceback_count());
        json.field("frames", a.frames.size());
        json.field("traceback_limit", a.traceback_limit);
        json.end_object();
    } else {
        json.null();
    }
    json.end_object();
}

void write_json(const SummaryReport& r, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "summary", r.file);
    json.field("by", analysis::group_by_name(r.by));
    json.field("filter", r.filter);
    json.field("objects", r.objects);
    json.field("bytes", r.bytes);
    json.field("group_count", r.group_count);
    json.key("groups");
    json.begin_array();
    for (const analysis::GroupTotal& g : r.groups) {
        json.begin_object();
        json.field("name", g.name);
        json.field("objects", g.objects);
        json.field("bytes", g.bytes);
        json.end_object();
    }
    json.end_array();
    json.end_object();
}

void write_json(const RootsReport& r, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "roots", r.file);
    json.field("objects", r.objects);
    json.field("reachable", r.reachable);
    json.key("classes");
    json.begin_array();
    for (const RootClassRow& c : r.classes) {
        json.begin_object();
        json.field("kind", c.kind);
        json.field("records", c.records);
        json.field("objects", c.objects);
        json.field("references", c.references);
        json.end_object();
    }
    json.end_array();
    json.field("unexplained_objects", r.unexplained_objects);
    json.key("unexplained");
    write_nodes(json, r.unexplained);
    json.field("negative_surplus_objects", r.negative_objects);
    json.key("negative_surplus");
    write_nodes(json, r.negative);
    json.field("overexplained_references", r.overexplained_references);
    json.field("invalid_root_records", r.invalid_root_records);
    json.end_object();
}

void write_finalizer(JsonWriter& json, const std::optional<FinalizerReport>& finalizer) {
    if (!finalizer) {
        json.null();
        return;
    }
    json.begin_object();
    json.field("via", finalizer->via);
    json.field("text", finalizer->text);
    json.field("note", finalizer->note);
    for (const auto& [key, node] : {std::pair<const char*, const NodeReport*>{"referent", &finalizer->referent},
                                    {"weakref", &finalizer->weakref},
                                    {"callback", &finalizer->callback},
                                    {"holder", &finalizer->holder}}) {
        json.key(key);
        write_node(json, *node);
    }
    json.end_object();
}

void write_json(const PathReport& r, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "path", r.file);
    json.field("found", r.found);
    json.key("target");
    write_node(json, r.target);
    json.key("root");
    if (r.root) {
        write_root(json, *r.root, &r.root_node);
    } else {
        json.null();
    }
    json.key("hops");
    write_hops(json, r.hops);
    json.key("finalizer");
    write_finalizer(json, r.finalizer);
    // Not found: why, as a sentence (explanation) and as data (the rest).
    json.key("explanation");
    if (r.found) {
        json.null();
    } else {
        json.value(r.explanation);
    }
    json.key("reason");
    if (r.found) {
        json.null();
    } else {
        json.value(r.reason);
    }
    json.field("unexplained", r.unexplained);
    json.key("holder");
    if (r.holder) {
        write_node(json, *r.holder);
    } else {
        json.null();
    }
    json.key("holder_hops");
    write_hops(json, r.holder_hops);
    json.field("search_truncated", r.search_truncated);
    // The inference, marked as one: a wrapper whose C++ member probably
    // holds the object with surplus (docs/cli.md, "Inferred holders").
    json.field("inferred", r.likely_holder.has_value());
    json.key("likely_holder");
    if (r.likely_holder) {
        write_node(json, *r.likely_holder);
    } else {
        json.null();
    }
    json.key("likely_holder_hops");
    write_hops(json, r.likely_holder_hops);
    json.key("instances");
    if (r.type_name.empty()) {
        json.null();
    } else {
        json.begin_object();
        json.field("type", r.type_name);
        json.field("count", r.instances);
        json.field("reachable", r.reachable_instances);
        json.end_object();
    }
    json.end_object();
}

void write_json(const ReferrersReport& r, std::ostream& out) {
    JsonWriter json(out);
    begin_report(json, "referrers", r.file);
    json.key("target");
    write_node(json, r.target);
    json.field("refcount", r.breakdown.refcount);
    json.field("owned_in", r.owned_in);
    json.key("surplus");
    if (r.breakdown.counted) {
        json.value(r.breakdown.surplus);
    } else {
        json.null();
    }
    json.key("explained");
    json.begin_object();
    json.field("interpreter", r.breakdown.explained[0]);
    json.field("thread stack", r.breakdown.explained[1]);
    json.field("extension", r.breakdown.explained[2]);
    json.end_object();
    json.field("unexplained", r.breakdown.unexplained);
    json.field("distance", r.distance);
    json.field("referrer_count", r.referrer_count);
    json.key("referrers");
    write_hops(json, r.referrers);
    json.key("roots");
    json.begin_array();
    for (const RootReport& root : r.roots) write_root(json, root, nullptr);
    json.end_array();
    json.end_object();
}

}  // namespace refscope::cli
