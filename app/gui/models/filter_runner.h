// The search field's filter (docs/filter-language.md) over one analysis:
// parse, compile against the analysis's columns, select; the error and the
// column it points at when the text is wrong; completions for a QCompleter.
//
// The columns the filter reads come straight from the analysis (graph index,
// root classes, retention paths, leak suspects' per-node column); the two it
// derives, retained bytes per node and "in a cycle", are built per query
// only when the query uses them (a few milliseconds per million objects,
// docs/performance-app.md "Desktop app: models"), so nothing is cached.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <QString>
#include <QStringList>

#include "refscope/analysis/snapshot_analysis.h"

namespace refscope::app {

struct FilterResult {
    bool ok = false;
    // Matching node ids, increasing; null when the text is blank (every
    // object) or on error.
    std::shared_ptr<const std::vector<uint32_t>> nodes;
    QString error;        // one sentence, empty when ok
    int errorColumn = 0;  // 1-based position in the text the error points at; 0 if none
};

// `is_new`: one byte per node (the baseline diff's is_new or the survivor
// column) for the `new` flag; empty refuses `new` with a clear error.
FilterResult run_filter(const analysis::SnapshotAnalysis& analysis, const QString& text,
                        std::span<const uint8_t> is_new = {});

// Completions of the word being typed at the end of `prefix` (field names
// with their separator, flags, type and module names of the snapshot), each
// the whole text with that word completed, as QCompleter wants them.
QStringList filter_completions(const QString& prefix, const analysis::SnapshotAnalysis& analysis,
                               int limit = 50);

}  // namespace refscope::app
