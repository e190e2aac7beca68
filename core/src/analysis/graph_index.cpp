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
    const uint8_t* flags = snapshot.edge_flags.data();

    // In-edges are sorted by target in two cache-friendly passes instead of
    // one counting sort: a plain counting sort makes two random accesses per
    // edge into node-sized arrays (tens of MB: a cache miss each). Here edges
    // are first distributed into buckets of kBucketNodes consecutive targets
    // (a few hundred sequential output streams), then each bucket is counting-
    // sorted with its counters in cache. Both passes are stable, so a node's
    // in-edges stay in increasing edge id order. The owned in-degrees (what
    // RootClasses subtracts from refcounts) are counted in the same in-cache
    // pass, which saves a pass of random increments over a node-sized array.
    constexpr uint32_t kBucketShift = 15;
    constexpr uint16_t kOwnedBit = 1u << kBucketShift;
    constexpr uint32_t kBucketNodes = 1u << kBucketShift;
    const uint32_t bucket_count = (node_count_ >> kBucketShift) + 1;

    // Passes 2 and 3 run on two threads on big graphs: pass 2 splits the
    // edges in two halves (the first half's edges go first in every bucket,
    // so the order stays stable), pass 3 splits the buckets.
    const bool parallel = edge_count_ >= (1u << 20);
    const uint32_t half = edge_count_ / 2;

    // Pass 1: bounds, grouping, out-degrees, bucket sizes (and how many of
    // each bucket's edges are in the first half).
    if (own_offsets) out_offset_.assign(size_t{node_count_} + 1, 0);
    std::vector<uint32_t> bucket_start(size_t{bucket_count} + 1, 0);
    std::vector<uint32_t> first_half(bucket_count, 0);
    bool grouped = true;
    uint32_t previous_source = 0;
    for (uint32_t e = 0; e < edge_count_; ++e) {
        if (e == half) first_half.assign(bucket_start.begin() + 1, bucket_start.end());
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
        ++bucket_start[(target >> kBucketShift) + 1];
    }
    if (own_offsets) {
        for (uint32_t n = 0; n < node_count_; ++n) out_offset_[n + 1] += out_offset_[n];
    }
    out_offsets_ = own_offsets ? out_offset_.data() : snapshot.edge_first.data();
    for (uint32_t b = 0; b < bucket_count; ++b) bucket_start[b + 1] += bucket_start[b];

    // Pass 2: edge ids into their bucket's slice of in_edge_, with the low
    // bits of the target and the owned flag beside them so pass 3 need not
    // look targets or flags up.
    in_edge_.resize(edge_count_);
    std::vector<uint16_t> low_bits(edge_count_);
    const auto distribute = [&](uint32_t first_edge, uint32_t last_edge,
                                std::vector<uint32_t> cursor) {
        for (uint32_t e = first_edge; e < last_edge; ++e) {
            const uint32_t position = cursor[targets[e] >> kBucketShift]++;
            in_edge_[position] = e;
            const uint16_t owned = (flags[e] & format::kEdgeOwned) ? kOwnedBit : 0;
            low_bits[position] = static_cast<uint16_t>((targets[e] & (kBucketNodes - 1)) | owned);
        }
    };
    {
        std::vector<uint32_t> first_cursor(bucket_start.begin(), bucket_start.end() - 1);
        std::vector<uint32_t> second_cursor(first_cursor);
        for (uint32_t b = 0; b < bucket_count; ++b) second_cursor[b] += first_half[b];
        run_both(
            parallel, [&] { distribute(0, half, std::move(first_cursor)); },
            [&] { distribute(half, edge_count_, std::move(second_cursor)); });
    }

    // Pass 3: counting sort inside each bucket.
    in_offset_.assign(size_t{node_count_} + 1, 0);
    owned_in_.resize(node_count_);
    const auto sort_buckets = [&](uint32_t first_bucket, uint32_t last_bucket) {
        std::vector<uint32_t> count(kBucketNodes);
        std::vector<uint32_t> owned(kBucketNodes);
        std::vector<uint32_t> scratch;
        for (uint32_t b = first_bucket; b < last_bucket; ++b) {
            const uint32_t begin = bucket_start[b];
            const uint32_t end = bucket_start[b + 1];
            const uint32_t first_node = b << kBucketShift;
            const uint32_t nodes = std::min(kBucketNodes, node_count_ - first_node);
            if (nodes == 0) break;
            std::fill(count.begin(), count.begin() + nodes, 0);
            std::fill(owned.begin(), owned.begin() + nodes, 0);
            for (uint32_t p = begin; p < end; ++p) {
                const uint16_t low = low_bits[p];
                ++count[low & (kBucketNodes - 1)];
                owned[low & (kBucketNodes - 1)] += low >> kBucketShift;
            }
            uint32_t offset = begin;
            for (uint32_t i = 0; i < nodes; ++i) {
                in_offset_[first_node + i] = offset;
                owned_in_[first_node + i] = owned[i];
                const uint32_t c = count[i];
                count[i] = offset;  // from here on: the next free position
                offset += c;
            }
            scratch.assign(in_edge_.begin() + begin, in_edge_.begin() + end);
            for (uint32_t p = begin; p < end; ++p) {
                in_edge_[count[low_bits[p] & (kBucketNodes - 1)]++] = scratch[p - begin];
            }
        }
    };
    // The buckets split where half of the edges are on either side.
    const auto middle = std::lower_bound(bucket_start.begin(), bucket_start.end() - 1, half);
    const auto middle_bucket = static_cast<uint32_t>(middle - bucket_start.begin());
    run_both(
        parallel, [&] { sort_buckets(0, middle_bucket); },
        [&] { sort_buckets(middle_bucket, bucket_count); });
    in_offset_[node_count_] = edge_count_;

    if (!grouped) {
        out_order_.resize(edge_count_);
        // Only with own_offsets: a column that could be dropped was grouped.
        std::vector<uint32_t> cursor(out_offset_.begin(), out_offset_.end() - 1);
        for (uint32_t e = 0; e < edge_count_; ++e) out_order_[cursor[sources[e]]++] = e;
    }
}

uint32_t find_node_by_address(const Snapshot& snapshot, uint64_t address) {
    const auto& addresses = snapshot.node_address;
    for (size_t n = 0; n < addresses.size(); ++n) {
        if (addresses[n] == address) return static_cast<uint32_t>(n);
    }
    return kNoNode;
}

}  // namespace refscope::analysis
