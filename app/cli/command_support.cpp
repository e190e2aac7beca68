#include "command_support.h"

#include "commands.h"
#include "refscope/analysis/allocation_sites.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/format/snapshot_io.h"

namespace refscope::cli {

using namespace refscope::analysis;

SharedAnalysis load_analysis(const std::string& path, AnalysisOptions stages) {
    try {
        return SnapshotAnalysis::load(path, stages);
    } catch (const format::ReadError& e) {
        const std::string message = e.what();
        if (message.find(path) != std::string::npos) throw;
        throw format::ReadError(e.code(), path + ": " + message);
    }
}

size_t limit_or_all(std::optional<size_t> top, size_t fallback) {
    const size_t limit = top.value_or(fallback);
    return limit == 0 ? SIZE_MAX : limit;
}

NodeReport node_report(const Snapshot& s, const RootClasses& roots, uint32_t node) {
    NodeReport r = plain_node_report(s, node);
    const SurplusBreakdown b = roots.breakdown(node);
    if (b.counted) r.surplus = b.surplus;
    r.unexplained = b.unexplained;
    return r;
}

NodeReport plain_node_report(const Snapshot& s, uint32_t node) {
    NodeReport r;
    r.id = node;
    r.address = s.node_address[node];
    r.type = std::string(type_name(s, node));
    if (s.node_preview[node] != 0) r.preview = std::string(s.strings.view(s.node_preview[node]));
    r.description = describe_node(s, node);
    r.size = s.node_size[node];
    r.refcount = s.node_refcount[node];
    r.immortal = (s.node_flags[node] & format::kNodeImmortal) != 0;
    r.native = (s.node_flags[node] & format::kNodeNative) != 0;
    r.has_allocations = s.allocations.recorded();
    for (const uint32_t frame : allocation_frames(s, node)) r.allocated.push_back(frame_text(s, frame));
    if (!r.allocated.empty()) r.allocation_site = frame_text(s, allocation_site(s, node));
    return r;
}

RootReport root_report(const Snapshot& s, const RootRef& root) {
    RootReport r;
    r.kind = std::string(root_class_name(root_class_of(root.kind)));
    r.label = describe_root(s, root);
    r.thread = std::string(root_thread_name(s, root));
    r.count = root.count;
    return r;
}

FinalizerReport finalizer_report(const Snapshot& s, const RootClasses& roots, const FinalizerTrap& trap) {
    return {std::string(trap_holder_name(trap.via)), describe_finalizer_trap(s, trap), finalizer_path_note(s, trap),
            node_report(s, roots, trap.referent), node_report(s, roots, trap.weakref),
            node_report(s, roots, trap.callback), node_report(s, roots, trap.holder)};
}

HopReport hop_report(const SnapshotAnalysis& a, uint32_t edge, uint32_t node) {
    const Snapshot& s = a.snapshot();
    HopReport hop;
    hop.edge = describe_edge(s, edge);
    hop.edge_kind = std::string(edge_kind_name(s.edge_kind[edge]));
    hop.owned = (s.edge_flags[edge] & format::kEdgeOwned) != 0;
    hop.gc_visible = (s.edge_flags[edge] & format::kEdgeGcVisible) != 0;
    hop.gc_invisible = a.index().hidden_from_gc(edge);
    hop.inferred = (s.edge_flags[edge] & format::kEdgeInferred) != 0;
    hop.node = node_report(s, a.roots(), node);
    return hop;
}

std::vector<HopReport> hops_along(const SnapshotAnalysis& a, const std::vector<uint32_t>& edges) {
    std::vector<HopReport> hops;
    hops.reserve(edges.size());
    for (uint32_t e : edges) hops.push_back(hop_report(a, e, a.index().target(e)));
    return hops;
}

uint32_t node_at(const Snapshot& s, uint64_t address) {
    const uint32_t node = find_node_by_address(s, address);
    if (node == kNoNode) throw LookupError("no object at address " + format_address(address));
    return node;
}

}  // namespace refscope::cli
