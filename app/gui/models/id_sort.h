// Sorting millions of ids by a key, fast: the object table's sort() and the
// retainers tree's ordering of a node's referrers.
#pragma once

#include <cstdint>
#include <vector>

#include <Qt>

namespace refscope::app {

// One row of a sort: its key and its id.
struct KeyedId {
    uint64_t key;
    uint32_t id;
};

// Sorts by key ascending, ties by id ascending. Large inputs use a stable
// least-significant-digit radix sort over only the key bits that differ
// (11-bit digits), after putting the ids in increasing order: a million rows
// take a few passes over flat memory instead of 20 million comparisons.
void sort_keyed_ids(std::vector<KeyedId>& items);

// Sorts `ids` by `keys` (one per id, same order; overwritten), ascending,
// ties by id ascending: radix passes over 64-bit words that pack the key's
// varying bits with the id when they fit in 32 bits, else sort_keyed_ids.
void sort_ids_by_keys(std::vector<uint32_t>& ids, std::vector<uint64_t>& keys);

// Sorts `ids` by `key_of(id)` (a uint64_t; ascending or descending), ties by
// id ascending either way, so every sort is deterministic. Keys are computed
// once per id, not per comparison.
template <typename KeyOf>
void sort_ids_by_key(std::vector<uint32_t>& ids, Qt::SortOrder order, KeyOf&& key_of) {
    std::vector<uint64_t> keys(ids.size());
    const bool descending = order == Qt::DescendingOrder;
    for (size_t i = 0; i < ids.size(); ++i) {
        const uint64_t key = static_cast<uint64_t>(key_of(ids[i]));
        keys[i] = descending ? ~key : key;
    }
    sort_ids_by_keys(ids, keys);
}

}  // namespace refscope::app
