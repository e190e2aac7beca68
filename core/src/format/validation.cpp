#include "format/validation.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

namespace refscope::format {

namespace {

std::string out_of_range(const char* what, size_t index, const char* field, uint64_t value,
                         size_t limit, const char* unit) {
    return std::string(what) + " " + std::to_string(index) + ": " + field + " " +
           std::to_string(value) + " is out of range (" + std::to_string(limit) + " " + unit + ")";
}

// How an edge kind uses its label (constants.h, EdgeKind).
enum class LabelUse { Free, NodeId, StringId, Zero };

LabelUse label_use(uint8_t kind) {
    switch (static_cast<EdgeKind>(kind)) {
        case EdgeKind::Reference:
        case EdgeKind::Index: return LabelUse::Free;
        case EdgeKind::DictValue:
        case EdgeKind::Attribute: return LabelUse::NodeId;
        case EdgeKind::Slot:
        case EdgeKind::Field:
        case EdgeKind::Local:
        case EdgeKind::Native: return LabelUse::StringId;
        case EdgeKind::DictKey:
        case EdgeKind::SetMember:
        case EdgeKind::Weak: return LabelUse::Zero;
    }
    return LabelUse::Free;
}

SnapshotDefect defect_in(SectionId id, std::string message) { return {id, std::move(message)}; }

// The Allocations section's cross-references: string ids, frame ids,
// traceback ids, one traceback entry per node.
std::optional<SnapshotDefect> allocation_defect(const Snapshot& s) {
    const AllocationSites& a = s.allocations;
    if (!a.recorded()) {
        if (!a.frames.empty() || !a.traceback_frames.empty() || a.traceback_count() != 0)
            return defect_in(SectionId::Allocations, "tracebacks without a node column");
        return std::nullopt;
    }
    const size_t n_strings = s.strings.size();
    if (a.node_traceback.size() != s.node_address.size())
        return defect_in(SectionId::Allocations, "node column has " + std::to_string(a.node_traceback.size()) +
                                                     " entries for " + std::to_string(s.node_address.size()) +
                                                     " nodes");
    for (size_t i = 0; i < a.frames.size(); ++i) {
        const AllocationFrame& f = a.frames[i];
        if (f.file >= n_strings)
            return defect_in(SectionId::Allocations, out_of_range("frame", i, "file", f.file, n_strings, "strings"));
        if (f.function >= n_strings)
            return defect_in(SectionId::Allocations,
                             out_of_range("frame", i, "function", f.function, n_strings, "strings"));
    }
    for (size_t i = 0; i + 1 < a.traceback_start.size(); ++i)
        if (a.traceback_start[i + 1] <= a.traceback_start[i])
            return defect_in(SectionId::Allocations, "traceback " + std::to_string(i) + " has no frames");
    if (!a.traceback_start.empty() &&
        (a.traceback_start.front() != 0 || a.traceback_start.back() != a.traceback_frames.size()))
        return defect_in(SectionId::Allocations, "traceback offsets do not cover the frame column");
    for (size_t i = 0; i < a.traceback_frames.size(); ++i)
        if (a.traceback_frames[i] >= a.frames.size())
            return defect_in(SectionId::Allocations, out_of_range("traceback frame", i, "frame",
                                                                  a.traceback_frames[i], a.frames.size(), "frames"));
    const size_t n_tracebacks = a.traceback_count();
    for (size_t i = 0; i < a.node_traceback.size(); ++i)
        if (a.node_traceback[i] > n_tracebacks)
            return defect_in(SectionId::Allocations, out_of_range("node", i, "traceback", a.node_traceback[i] - 1,
                                                                  n_tracebacks, "tracebacks"));
    return std::nullopt;
}

}  // namespace

std::optional<SnapshotDefect> address_defect(const Snapshot& s) {
    const size_t n = s.node_address.size();
    const auto hex = [](uint64_t address) {
        char buf[24];
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
        return std::string(buf);
    };
    std::vector<uint64_t> objects;
    std::vector<std::pair<uint64_t, uint32_t>> natives;  // (address, type)
    objects.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t address = s.node_address[i];
        if (address == 0) return defect_in(SectionId::Nodes, "node " + std::to_string(i) + ": address 0");
        if (i < s.node_flags.size() && (s.node_flags[i] & kNodeNative))
            natives.emplace_back(address, i < s.node_type.size() ? s.node_type[i] : 0);
        else
            objects.push_back(address);
    }
    std::sort(objects.begin(), objects.end());
    std::sort(natives.begin(), natives.end());
    uint64_t repeated = 0;
    bool found = false;
    for (size_t i = 1; i < objects.size() && !found; ++i)
        if (objects[i] == objects[i - 1]) repeated = objects[i], found = true;
    for (size_t i = 1; i < natives.size() && !found; ++i)
        if (natives[i] == natives[i - 1]) repeated = natives[i].first, found = true;
    if (!found) return std::nullopt;
    // Name the two nodes (a linear scan, only on failure).
    std::vector<size_t> at;
    for (size_t i = 0; i < n && at.size() < 2; ++i)
        if (s.node_address[i] == repeated) at.push_back(i);
    return defect_in(SectionId::Nodes, "nodes " + std::to_string(at.front()) + " and " +
                                           std::to_string(at.size() > 1 ? at[1] : at.front()) +
                                           " are both the object at " + hex(repeated));
}

namespace {

// What is wrong with the edges' sources, held as edge_source (in range,
// grouped) or as edge_first (node count + 1 offsets from 0 to the edge
// count, non-decreasing), if anything.
std::optional<std::string> find_source_defect(const Snapshot& s, size_t n_nodes, size_t n_edges) {
    if (!s.edge_first.empty()) {
        if (!s.edge_source.empty()) return "edges have both a source column and first-edge offsets";
        if (s.edge_first.size() != n_nodes + 1)
            return std::to_string(s.edge_first.size()) + " first-edge offsets for " + std::to_string(n_nodes) +
                   " nodes (needs one more than nodes)";
        if (s.edge_first.front() != 0 || s.edge_first.back() != n_edges)
            return "first-edge offsets run from " + std::to_string(s.edge_first.front()) + " to " +
                   std::to_string(s.edge_first.back()) + ", not from 0 to the " + std::to_string(n_edges) +
                   " edges";
        for (size_t n = 0; n < n_nodes; ++n)
            if (s.edge_first[n + 1] < s.edge_first[n])
                return "node " + std::to_string(n + 1) + "'s first edge comes before node " + std::to_string(n) +
                       "'s";
        return std::nullopt;
    }
    if (s.edge_source.size() != n_edges) return std::string("edge columns have different lengths");
    for (size_t i = 0; i < n_edges; ++i) {
        const uint32_t src = s.edge_source[i];
        if (src >= n_nodes) return out_of_range("edge", i, "source", src, n_nodes, "nodes");
        if (i > 0 && src < s.edge_source[i - 1])
            return "edge " + std::to_string(i) + ": source " + std::to_string(src) + " after source " +
                   std::to_string(s.edge_source[i - 1]) + ": edges are not grouped by source";
    }
    return std::nullopt;
}

}  // namespace

std::optional<SnapshotDefect> find_defect(const Snapshot& s, bool check_addresses) {
    const size_t n_strings = s.strings.size();
    const size_t n_types = s.types.size();
    const size_t n_nodes = s.node_address.size();
    const size_t n_edges = s.edge_target.size();
    const size_t n_threads = s.threads.size();
    auto defect = [](SectionId id, std::string m) { return SnapshotDefect{id, std::move(m)}; };

    if (n_strings > kMaxCount || n_types > kMaxCount || n_edges > kMaxCount ||
        s.roots.size() > kMaxCount || n_threads > kMaxCount)
        return defect(SectionId::Header,
                      "a count exceeds the format limit of " + std::to_string(kMaxCount));
    // Node ids must stay below kNoNode, which means "no node".
    if (n_nodes > kMaxCount || n_nodes >= kNoNode)
        return defect(SectionId::Nodes, std::to_string(n_nodes) + " nodes exceed the format limit");
    for (size_t i = 0; i < n_strings; ++i) {
        if (s.strings.view(static_cast<uint32_t>(i)).size() > kMaxStringBytes)
            return defect(SectionId::Strings, "string " + std::to_string(i) + " is longer than " +
                                                  std::to_string(kMaxStringBytes) + " bytes");
    }
    for (size_t i = 0; i < n_types; ++i) {
        const TypeInfo& t = s.types[i];
        if (t.name >= n_strings)
            return defect(SectionId::Types,
                          out_of_range("type", i, "name", t.name, n_strings, "strings"));
        if (t.module >= n_strings)
            return defect(SectionId::Types,
                          out_of_range("type", i, "module", t.module, n_strings, "strings"));
    }

    if (s.node_type.size() != n_nodes || s.node_size.size() != n_nodes ||
        s.node_refcount.size() != n_nodes || s.node_flags.size() != n_nodes ||
        s.node_preview.size() != n_nodes)
        return defect(SectionId::Nodes, "node columns have different lengths");
    for (size_t i = 0; i < n_nodes; ++i) {
        if (s.node_type[i] >= n_types)
            return defect(SectionId::Nodes,
                          out_of_range("node", i, "type", s.node_type[i], n_types, "types"));
        if (s.node_preview[i] >= n_strings)
            return defect(SectionId::Nodes, out_of_range("node", i, "preview", s.node_preview[i],
                                                         n_strings, "strings"));
    }

    if (s.edge_kind.size() != n_edges || s.edge_flags.size() != n_edges || s.edge_label.size() != n_edges)
        return defect(SectionId::Edges, "edge columns have different lengths");
    if (auto wrong = find_source_defect(s, n_nodes, n_edges)) return defect(SectionId::Edges, *wrong);
    constexpr size_t kBlock = PackedColumn::kBlock;
    uint32_t labels[kBlock];  // edge i's label at i % kBlock: unpacked a block at a time
    for (size_t i = 0; i < n_edges; ++i) {
        if (i % kBlock == 0)
            s.edge_label.for_each(i, std::min(n_edges, i + kBlock),
                                  [&](size_t k, uint32_t label) { labels[k % kBlock] = label; });
        if (s.edge_target[i] >= n_nodes)
            return defect(SectionId::Edges,
                          out_of_range("edge", i, "target", s.edge_target[i], n_nodes, "nodes"));
        const uint8_t kind = s.edge_kind[i];
        if (kind >= kEdgeKindCount)
            return defect(SectionId::Edges,
                          "edge " + std::to_string(i) + ": unknown kind " + std::to_string(kind));
        const uint32_t label = labels[i % kBlock];
        switch (label_use(kind)) {
            case LabelUse::Free: break;
            case LabelUse::NodeId:
                if (label >= n_nodes)
                    return defect(SectionId::Edges, out_of_range("edge", i, "label (a node id)",
                                                                 label, n_nodes, "nodes"));
                break;
            case LabelUse::StringId:
                if (label >= n_strings)
                    return defect(SectionId::Edges, out_of_range("edge", i, "label (a string id)",
                                                                 label, n_strings, "strings"));
                break;
            case LabelUse::Zero:
                if (label != 0)
                    return defect(SectionId::Edges, "edge " + std::to_string(i) + ": label " +
                                                        std::to_string(label) +
                                                        " must be 0 for this kind");
                break;
        }
    }

    for (size_t i = 0; i < s.roots.size(); ++i) {
        const RootRef& r = s.roots[i];
        if (r.node >= n_nodes)
            return defect(SectionId::Roots,
                          out_of_range("root", i, "node", r.node, n_nodes, "nodes"));
        if (static_cast<uint8_t>(r.kind) >= kRootKindCount)
            return defect(SectionId::Roots, "root " + std::to_string(i) + ": unknown kind " +
                                                std::to_string(static_cast<unsigned>(r.kind)));
        if (r.thread != kNoNode && r.thread >= n_threads)
            return defect(SectionId::Roots,
                          out_of_range("root", i, "thread", r.thread, n_threads, "threads"));
        if (r.label >= n_strings)
            return defect(SectionId::Roots,
                          out_of_range("root", i, "label", r.label, n_strings, "strings"));
    }
    for (size_t i = 0; i < n_threads; ++i) {
        if (s.threads[i].name >= n_strings)
            return defect(SectionId::Threads, out_of_range("thread", i, "name", s.threads[i].name,
                                                           n_strings, "strings"));
    }
    if (check_addresses)
        if (auto bad_address = address_defect(s)) return bad_address;
    return allocation_defect(s);
}

}  // namespace refscope::format
