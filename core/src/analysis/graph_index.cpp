#include "refscope/analysis/graph_index.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "background_job.h"

namespace refscope::analysis {
namespace {

void check_columns(const Snapshot& s) {
    const size_t nodes = s.node_address.size();
    if (s.node_type.size() != nodes || s.node_size.size() != nodes ||
        s.node_refcount.size() != nodes || s.node_flags.size() != nodes ||
        s.node_preview.size() != nodes) {
        throw std::invalid_argument("snapshot node columns have different lengths");
    }
    const size_t edges = s.edge_target.size();
    const bool sources_fit = s.edge_first.empty()
                                 ? s.edge_source.size() == edges
                                 : s.edge_first.size() == nodes + 1 && s.edge_first.front() == 0 &&
                                       s.edge_first.back() == edges &&
                                       std::is_sorted(s.edge_first.begin(), s.edge_first.end());
    if (!sources_fit || s.edge_kind.size() != edges || s.edge_flags.size() != edges ||
        s.edge_label.size() != edges) {
        throw std::invalid_argument("snapshot edge columns have different lengths");
    }
    // Ids are 32-bit and kNoNode / kNoEdge are reserved.
    if (nodes >= kNoNode || edges >= kNoEdge) {
        throw std::invalid_argument("snapshot too large for 32-bit node and edge ids");
    }
}

// Edges are grouped by target in two cache-friendly passes instead of one
// counting sort: a plain counting sort makes two random accesses per edge
// into node-sized arrays (tens of MB: a cache miss each). Here the edges are
// first distributed into buckets of kBucketNodes consecutive targets (a few
// hundred sequential output streams), each with its target's low bits beside
// it, so that the second pass, one bucket at a time, needs neither targets
// nor flags and keeps its counters in cache. Both passes are stable, so a
// node's edges stay in increasing edge id order.
constexpr uint32_t kBucketShift = 15;
constexpr uint32_t kBucketNodes = 1u << kBucketShift;

struct TargetBuckets {
    std::vector<uint32_t> start;  // per bucket, then the total
    std::vector<uint16_t> low;    // per distributed edge: its target's low bits
    std::vector<uint32_t> edge;   // per distributed edge: its id (when asked for)
    uint32_t middle = 0;          // the bucket where half of the edges are on either side
    bool parallel = false;        // big enough for the work to be split over two threads
};

// The edges `keep` accepts, distributed by target. On big graphs the
// distribution runs on two threads, each with half of the edges (the first
// half's go first in every bucket, so the order stays stable).
template <typename Keep>
TargetBuckets bucket_by_target(const Snapshot& s, uint32_t node_count, Keep keep, bool with_ids) {
    const uint32_t* targets = s.edge_target.data();
    const auto edge_count = static_cast<uint32_t>(s.edge_count());
    const uint32_t bucket_count = (node_count >> kBucketShift) + 1;
    const uint32_t half = edge_count / 2;
    TargetBuckets b;
    b.parallel = edge_count >= (1u << 20);
    b.start.assign(size_t{bucket_count} + 1, 0);
    std::vector<uint32_t> first_half(bucket_count, 0);  // per bucket: its edges before `half`
    for (uint32_t e = 0; e < edge_count; ++e) {
        if (e == half) first_half.assign(b.start.begin() + 1, b.start.end());
        if (keep(e)) ++b.start[(targets[e] >> kBucketShift) + 1];
    }
    for (uint32_t k = 0; k < bucket_count; ++k) b.start[k + 1] += b.start[k];
    const uint32_t total = b.start[bucket_count];
    b.low.resize(total);
    if (with_ids) b.edge.resize(total);
    const auto distribute = [&](uint32_t first_edge, uint32_t last_edge, std::vector<uint32_t> cursor) {
        for (uint32_t e = first_edge; e < last_edge; ++e) {
            if (!keep(e)) continue;
            const uint32_t position = cursor[targets[e] >> kBucketShift]++;
            if (with_ids) b.edge[position] = e;
            b.low[position] = static_cast<uint16_t>(targets[e] & (kBucketNodes - 1));
        }
    };
    std::vector<uint32_t> first_cursor(b.start.begin(), b.start.end() - 1);
    std::vector<uint32_t> second_cursor(first_cursor);
    for (uint32_t k = 0; k < bucket_count; ++k) second_cursor[k] += first_half[k];
    run_both(
        b.parallel, [&] { distribute(0, half, std::move(first_cursor)); },
        [&] { distribute(half, edge_count, std::move(second_cursor)); });
    const auto middle = std::lower_bound(b.start.begin(), b.start.end() - 1, total / 2);
    b.middle = static_cast<uint32_t>(middle - b.start.begin());
    return b;
}

// Runs each(bucket) over every bucket, the two halves on two threads when
// the graph is big; each thread has its own copy of `each` (and so of any
// scratch it carries).
template <typename Each>
void for_each_bucket(const TargetBuckets& b, const Each& each) {
    const auto bucket_count = static_cast<uint32_t>(b.start.size() - 1);
    const auto run = [&each](uint32_t first, uint32_t last) {
        Each own = each;
        for (uint32_t k = first; k < last; ++k) own(k);
    };
    run_both(
        b.parallel, [&] { run(0, b.middle); }, [&] { run(b.middle, bucket_count); });
}

}  // namespace

GraphIndex::GraphIndex(const Snapshot& snapshot) : snapshot_(&snapshot) {
    check_columns(snapshot);
    node_count_ = static_cast<uint32_t>(snapshot.node_count());
    edge_count_ = static_cast<uint32_t>(snapshot.edge_count());
    type_tracked_.assign(snapshot.types.size(), 0);
    for (uint32_t n = 0; n < node_count_; ++n) {
        const uint32_t type = snapshot.node_type[n];
        if (type < type_tracked_.size() && (snapshot.node_flags[n] & format::kNodeGcTracked)) type_tracked_[type] = 1;
    }
    // With edge_first (edge_source dropped) the out-offsets and their checks
    // are done already: edges are grouped and every source is a node.
    const bool own_offsets = snapshot.edge_first.empty();
    const uint32_t* sources = snapshot.edge_source.data();
    const uint32_t* targets = snapshot.edge_target.data();

    // Bounds, grouping and out-degrees.
    if (own_offsets) out_offset_.assign(size_t{node_count_} + 1, 0);
    bool grouped = true;
    uint32_t previous_source = 0;
    for (uint32_t e = 0; e < edge_count_; ++e) {
        const uint32_t source = own_offsets ? sources[e] : 0;
        const uint32_t target = targets[e];
        if (source >= node_count_ || target >= node_count_) {
            throw std::invalid_argument("edge " + std::to_string(e) + " names node " +
                                        std::to_string(source >= node_count_ ? source : target) +
                                        " but the snapshot has " + std::to_string(node_count_) +
                                        " nodes");
        }
        if (own_offsets) {
            grouped = grouped && source >= previous_source;
            previous_source = source;
            ++out_offset_[source + 1];
        }
    }
    if (own_offsets) {
        for (uint32_t n = 0; n < node_count_; ++n) out_offset_[n + 1] += out_offset_[n];
    }
    out_offsets_ = own_offsets ? out_offset_.data() : snapshot.edge_first.data();
    count_owned_in();

    if (!grouped) {
        out_order_.resize(edge_count_);
        // Only with own_offsets: a column that could be dropped was grouped.
        std::vector<uint32_t> cursor(out_offset_.begin(), out_offset_.end() - 1);
        for (uint32_t e = 0; e < edge_count_; ++e) out_order_[cursor[sources[e]]++] = e;
    }
}

// The owned in-degrees (what RootClasses subtracts from refcounts): the
// owned edges bucketed by target, then counted a bucket at a time, its
// counters (128 KB of owned_in_) in cache.
void GraphIndex::count_owned_in() {
    const uint8_t* flags = snapshot_->edge_flags.data();
    const TargetBuckets b = bucket_by_target(
        *snapshot_, node_count_, [flags](uint32_t e) { return (flags[e] & format::kEdgeOwned) != 0; }, false);
    owned_in_.assign(node_count_, 0);
    for_each_bucket(b, [&](uint32_t k) {
        uint32_t* counts = owned_in_.data() + (size_t{k} << kBucketShift);
        for (uint32_t p = b.start[k]; p < b.start[k + 1]; ++p) ++counts[b.low[p]];
    });
}

// Every edge bucketed by target, then a counting sort inside each bucket.
// Built in locals and moved in last, so that a throw leaves no partial index.
void GraphIndex::sort_in_edges() const {
    const std::lock_guard<std::mutex> lock(in_edges_mutex_);
    if (in_edges_built_.load(std::memory_order_relaxed)) return;  // another thread was first
    TargetBuckets b = bucket_by_target(*snapshot_, node_count_, [](uint32_t) { return true; }, true);
    std::vector<uint32_t> in_offset(size_t{node_count_} + 1, 0);
    for_each_bucket(b, [&, count = std::vector<uint32_t>(), scratch = std::vector<uint32_t>()](uint32_t k) mutable {
        const uint32_t begin = b.start[k];
        const uint32_t end = b.start[k + 1];
        const uint32_t first_node = k << kBucketShift;
        const uint32_t nodes = std::min(kBucketNodes, node_count_ - first_node);
        count.assign(nodes, 0);
        for (uint32_t p = begin; p < end; ++p) ++count[b.low[p]];
        uint32_t offset = begin;
        for (uint32_t i = 0; i < nodes; ++i) {
            in_offset[first_node + i] = offset;
            const uint32_t c = count[i];
            count[i] = offset;  // from here on: the next free position
            offset += c;
        }
        scratch.assign(b.edge.begin() + begin, b.edge.begin() + end);
        for (uint32_t p = begin; p < end; ++p) b.edge[count[b.low[p]]++] = scratch[p - begin];
    });
    in_offset[node_count_] = edge_count_;
    in_offset_ = std::move(in_offset);
    in_edge_ = std::move(b.edge);
    in_edges_built_.store(true, std::memory_order_release);
}

uint32_t find_node_by_address(const Snapshot& snapshot, uint64_t address) {
    const auto& addresses = snapshot.node_address;
    for (size_t n = 0; n < addresses.size(); ++n) {
        if (addresses[n] == address) return static_cast<uint32_t>(n);
    }
    return kNoNode;
}

}  // namespace refscope::analysis
