// How numbers, sizes, previews and the phrases several models share read in
// the app's cells. The text follows the CLI (human_bytes, with_thousands,
// describe_node…) so the app and `refscope-cli` say the same things; the raw
// values go to SortKeyRole.
#pragma once

#include <cstdint>
#include <string_view>

#include <Qt>
#include <QString>
#include <QStringList>
#include <QVariant>

#include "refscope/snapshot.h"

namespace refscope::analysis {
class Cycles;
class DominatorTree;
class GraphIndex;
class RetentionPaths;
}  // namespace refscope::analysis

namespace refscope::app {

// Qt::TextAlignmentRole of number columns.
inline constexpr auto kNumberAlignment = Qt::AlignRight | Qt::AlignVCenter;

QString to_qstring(std::string_view utf8);

// "1,234,567".
QString count_text(uint64_t count);
// "+12", "-3", "0" (deltas).
QString signed_count_text(int64_t count);
// "56.0 KiB".
QString bytes_text(uint64_t bytes);
// "+1.2 MiB", "-48 B", "0 B".
QString signed_bytes_text(int64_t bytes);
// "1,234 bytes" (tooltips: the exact figure behind a rounded cell).
QString exact_bytes_text(uint64_t bytes);

// A preview as the object table shows it: a str as a quoted literal
// ('it\'s …'), anything else (numbers, names, "len 3") as plain text with
// control characters escaped; empty when the object has none.
QString preview_text(const Snapshot& snapshot, uint32_t node, size_t max_bytes = 60);

// Hops from the nearest GC root, "∞" when there is no path.
QString distance_text(uint32_t distance);
// Its tooltip: "3 references from the nearest GC root", "No path from GC roots".
QString distance_tooltip(const analysis::RetentionPaths& paths, uint32_t node);

// A retained-size cell: "1.2 KiB", "–" for an object the dominator tree does
// not reach.
QString retained_text(const analysis::DominatorTree& tree, uint32_t node);

// "interpreter", "thread stack (thread MainThread)": a root record's class.
QString root_class_text(const Snapshot& snapshot, const RootRef& root);

// "It is in cycle #3 (2 objects, 176 B): <why>" for the node's cycle, empty
// when it is in none (or `cycles` is null). No final full stop.
QString cycle_text(const analysis::Cycles* cycles, uint32_t node);

// A filter-language term selecting `value` in `field` ("type:app.Leaky"),
// the value quoted when it holds what would end or split it (white space, a
// parenthesis, a quote or backslash: the parser's word ends and escapes).
QString filter_term(const QString& field, const QString& value);
// What an edge's label does not say about it: "weak", "not owned",
// "inferred", "GC-invisible" (the retainers tree and the inspector both
// show these, so the two views agree on which reference is which).
QStringList edge_notes(const analysis::GraphIndex& index, uint32_t edge);
// The edge's tooltip: its kind, label and ownership ("attribute .user
// (owned)").
QString edge_tooltip(const analysis::GraphIndex& index, uint32_t edge);
// The colour of an edge's label: red for a GC-invisible reference, gray for
// one that does not keep its target alive, none (the default) otherwise.
QVariant edge_foreground(const analysis::GraphIndex& index, uint32_t edge);

// Order-preserving maps of signed values onto uint64 sort keys.
inline uint64_t signed_sort_key(int64_t value) {
    return static_cast<uint64_t>(value) ^ 0x8000000000000000ull;
}

}  // namespace refscope::app
