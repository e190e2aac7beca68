// Snapshot::drop_edge_sources: the analysis keeps each node's first edge
// (CSR out-offsets) instead of every edge's source. Sources read back the
// same, the index and every stage of the pipeline give the same results with
// and without the column, and what cannot be compacted (edges not grouped by
// source, a source that is no node) keeps its column for the index to report.
// The writer takes either form; the probe and the reader build the offsets
// directly.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "random_heap.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "refscope/format/byte_sink.h"
#include "refscope/format/snapshot_io.h"
#include "snapshot_builder.h"

namespace {

using namespace refscope;
using namespace refscope::analysis;
using refscope::testing::SnapshotBuilder;

constexpr uint8_t kOwned = SnapshotBuilder::kOwned;

// Nodes without edges at the start, in the middle and at the end, and a
// repeated edge: the cases a binary search over the offsets can get wrong.
Snapshot gappy_graph() {
    SnapshotBuilder b;
    for (int n = 0; n < 6; ++n) b.node("object");
    b.edge(1, 2);
    b.edge(1, 2);
    b.edge(1, 0);
    b.edge(3, 1);
    b.edge(4, 4);
    return b.build();
}

TEST(EdgeSources, DroppedColumnBecomesFirstEdgesAndSourcesReadBackTheSame) {
    Snapshot s = gappy_graph();
    const std::vector<uint32_t> sources = s.edge_source;
    ASSERT_TRUE(s.drop_edge_sources());
    EXPECT_TRUE(s.edge_source.empty());
    EXPECT_EQ(s.edge_source.capacity(), 0u);  // freed, not just cleared
    EXPECT_EQ(s.edge_first, (std::vector<uint32_t>{0, 0, 3, 3, 4, 5, 5}));
    EXPECT_EQ(s.edge_count(), 5u);
    for (uint32_t e = 0; e < s.edge_count(); ++e) EXPECT_EQ(s.source_of(e), sources[e]) << e;
    EXPECT_FALSE(s.drop_edge_sources());  // once only
    EXPECT_EQ(s.edge_first.size(), 7u);
}

TEST(EdgeSources, UngroupedOrOutOfRangeSourcesKeepTheirColumn) {
    SnapshotBuilder b;
    const uint32_t a = b.node("object");
    const uint32_t c = b.node("object");
    Snapshot ungrouped = b.build();
    ungrouped.add_edge(c, a, format::EdgeKind::Reference, kOwned, 0);
    ungrouped.add_edge(a, c, format::EdgeKind::Reference, kOwned, 0);
    EXPECT_FALSE(ungrouped.drop_edge_sources());
    EXPECT_EQ(ungrouped.edge_source, (std::vector<uint32_t>{c, a}));
    EXPECT_TRUE(ungrouped.edge_first.empty());
    // The index still sorts them and answers sources from the column.
    const GraphIndex index(ungrouped);
    EXPECT_TRUE(index.had_to_sort_out_edges());
    EXPECT_EQ(index.source(0), c);

    Snapshot stray = b.build();
    stray.add_edge(a, c, format::EdgeKind::Reference, kOwned, 0);
    stray.add_edge(9, c, format::EdgeKind::Reference, kOwned, 0);
    EXPECT_FALSE(stray.drop_edge_sources());
    EXPECT_EQ(stray.edge_source.size(), 2u);
    EXPECT_THROW(GraphIndex{stray}, std::invalid_argument);
}

TEST(EdgeSources, InconsistentFirstEdgesAreRefusedByTheIndex) {
    Snapshot s = gappy_graph();
    ASSERT_TRUE(s.drop_edge_sources());
    s.edge_first[2] = 4;  // after node 3's first edge: not sorted any more
    EXPECT_THROW(GraphIndex{s}, std::invalid_argument);
    s.edge_first[2] = 3;
    s.edge_first.back() = 4;  // says fewer edges than there are
    EXPECT_THROW(GraphIndex{s}, std::invalid_argument);
}

// The writer takes either form of the sources (the probe hands it first
// edges, hand-built snapshots the column) and writes the same bytes; the
// file reads back as first edges. The random heaps have list items and
// tuple slots, whose labels are coded against the edge's position.
TEST(EdgeSources, WriterWritesEitherFormTheSameBytes) {
    std::vector<Snapshot> heaps;
    heaps.push_back(gappy_graph());
    for (uint64_t seed = 1; seed <= 20; ++seed) heaps.push_back(refscope::testing::random_heap(seed));
    for (const Snapshot& kept : heaps) {
        Snapshot dropped = kept;
        ASSERT_TRUE(dropped.drop_edge_sources());
        const std::vector<uint8_t> bytes = format::encode_snapshot(kept);
        EXPECT_EQ(format::encode_snapshot(dropped), bytes);
        const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
        EXPECT_TRUE(back.edge_source.empty());
        EXPECT_EQ(back.edge_first, dropped.edge_first);
        EXPECT_EQ(back.edge_label, kept.edge_label);
        EXPECT_EQ(back.edge_target, kept.edge_target);
    }
}

// What the probe does: each node's edges after begin_edges_of(node), in id
// order, nodes without edges skipped, the column closed at the end.
TEST(EdgeSources, FirstEdgesBuiltNodeByNodeAreTheDroppedColumn) {
    Snapshot dropped = gappy_graph();
    ASSERT_TRUE(dropped.drop_edge_sources());
    Snapshot built = gappy_graph();
    built.edge_source.clear();
    built.edge_target.clear();
    built.edge_kind.clear();
    built.edge_flags.clear();
    built.edge_label.clear();
    const Snapshot kept = gappy_graph();
    for (uint32_t e = 0; e < kept.edge_count(); ++e) {
        built.begin_edges_of(kept.edge_source[e]);
        built.append_edge(kept.edge_target[e], static_cast<format::EdgeKind>(kept.edge_kind[e]),
                          kept.edge_flags[e], kept.edge_label[e]);
    }
    built.end_edge_runs();  // nodes 4 (after its edge) and 5 (none)
    EXPECT_EQ(built.edge_first, dropped.edge_first);
    EXPECT_EQ(format::encode_snapshot(built), format::encode_snapshot(kept));
}

// First edges that do not describe the edges are refused with the defect
// named, never read past their end.
TEST(EdgeSources, WriterRefusesInconsistentFirstEdges) {
    const auto refused = [](const Snapshot& s) {
        std::vector<uint8_t> bytes;
        format::VectorSink sink(bytes);
        try {
            format::write_snapshot(s, sink);
        } catch (const format::WriteError& e) {
            return std::string(e.what());
        }
        return std::string("written");
    };
    Snapshot s = gappy_graph();
    ASSERT_TRUE(s.drop_edge_sources());
    EXPECT_EQ(refused(s), "written");
    Snapshot shorter = s;
    shorter.edge_first.pop_back();
    EXPECT_NE(refused(shorter).find("6 first-edge offsets for 6 nodes"), std::string::npos) << refused(shorter);
    Snapshot fewer = s;
    fewer.edge_first.back() = 4;
    EXPECT_NE(refused(fewer).find("not from 0 to the 5 edges"), std::string::npos) << refused(fewer);
    Snapshot unsorted = s;
    unsorted.edge_first[2] = 4;
    EXPECT_NE(refused(unsorted).find("node 3's first edge comes before node 2's"), std::string::npos)
        << refused(unsorted);
    Snapshot both = s;
    both.edge_source = gappy_graph().edge_source;
    EXPECT_NE(refused(both).find("both a source column and first-edge offsets"), std::string::npos)
        << refused(both);
}

void expect_same_index(const GraphIndex& kept, const GraphIndex& dropped) {
    ASSERT_EQ(kept.node_count(), dropped.node_count());
    ASSERT_EQ(kept.edge_count(), dropped.edge_count());
    for (uint32_t n = 0; n < kept.node_count(); ++n) {
        const EdgeIds a = kept.out_edges(n);
        const EdgeIds b = dropped.out_edges(n);
        EXPECT_EQ(std::vector<uint32_t>(a.begin(), a.end()), std::vector<uint32_t>(b.begin(), b.end()));
        const auto in_a = kept.in_edges(n);
        const auto in_b = dropped.in_edges(n);
        EXPECT_EQ(std::vector<uint32_t>(in_a.begin(), in_a.end()), std::vector<uint32_t>(in_b.begin(), in_b.end()));
        EXPECT_EQ(kept.owned_in_degree(n), dropped.owned_in_degree(n));
    }
    for (uint32_t e = 0; e < kept.edge_count(); ++e) {
        EXPECT_EQ(kept.source(e), dropped.source(e));
        EXPECT_EQ(kept.hidden_from_gc(e), dropped.hidden_from_gc(e));
    }
}

// Every stage built by hand over the snapshot with its column, against the
// pipeline (which drops it first) over a copy: the same results, node by
// node and cycle by cycle, on the random heaps the dominator and cycle tests
// check against brute force.
TEST(EdgeSources, PipelineResultsAreTheSameWithoutTheColumn) {
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE(seed);
        const Snapshot kept = refscope::testing::random_heap(seed);
        const GraphIndex index(kept);
        const RootClasses roots(index);
        const RetentionPaths paths(index, roots);
        const DominatorTree dominators(index, roots, DominatorRoots::ExplainedAndUnexplained);
        const Cycles cycles(index, roots, paths);

        const auto a = SnapshotAnalysis::analyse(refscope::testing::random_heap(seed));
        ASSERT_TRUE(a->snapshot().edge_source.empty() || a->snapshot().edge_count() == 0);
        expect_same_index(index, a->index());
        for (uint32_t n = 0; n < index.node_count(); ++n) {
            EXPECT_EQ(paths.parent_edge(n), a->paths().parent_edge(n));
            EXPECT_EQ(paths.distance(n), a->paths().distance(n));
            EXPECT_EQ(dominators.idom(n), a->dominators()->idom(n));
            EXPECT_EQ(dominators.retained_size(n), a->dominators()->retained_size(n));
            EXPECT_EQ(dominators.retained_count(n), a->dominators()->retained_count(n));
            EXPECT_EQ(cycles.cycle_of(n), a->cycles()->cycle_of(n));
        }
        ASSERT_EQ(cycles.count(), a->cycles()->count());
        for (uint32_t c = 0; c < cycles.count(); ++c) {
            EXPECT_EQ(cycles.info(c).fate, a->cycles()->info(c).fate);
            EXPECT_EQ(cycles.info(c).culprit_node, a->cycles()->info(c).culprit_node);
            EXPECT_EQ(cycles.info(c).culprit_edge, a->cycles()->info(c).culprit_edge);
            EXPECT_EQ(cycles.info(c).culprit_type_traverses, a->cycles()->info(c).culprit_type_traverses);
        }
    }
}

}  // namespace
