// libFuzzer target for the filter language (docs/filter-language.md): a
// query typed into the app's filter bar or given to `refscope-cli query`.
// The input is a query, then the bytes of a small heap (fuzzed_heap.h); the
// query is parsed, compiled against every analysis column of that heap, and
// evaluated, and the completions for it are asked for. A query may only fail
// with FilterSyntaxError or FilterContextError; the three ways of evaluating
// it must agree.
//   fuzz_filter_query -max_total_time=60 corpus/filter_query
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzzed_heap.h"
#include "refscope/analysis/filter_columns.h"
#include "refscope/analysis/filter_query.h"

namespace {

using namespace refscope;
using namespace refscope::analysis;

void evaluate(const FilterQuery& query, const FilterContext& context) {
    try {
        const CompiledFilter filter(query, context);
        const std::vector<uint32_t> picked = filter.select();
        if (filter.count() != picked.size()) std::abort();
        std::vector<uint8_t> bitmap;
        filter.select_bitmap(bitmap);
        size_t at = 0;
        for (uint32_t node = 0; node < bitmap.size(); ++node) {
            const bool listed = at < picked.size() && picked[at] == node;
            if (listed != (bitmap[node] != 0) || listed != filter.matches(node)) std::abort();
            at += listed;
        }
    } catch (const FilterContextError&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    const std::string text = in.ConsumeRandomLengthString(512);
    std::optional<Snapshot> heap = fuzzing::fuzzed_heap(in);
    if (!heap) return 0;
    (void)filter_completions(text, *heap, 20);

    FilterQuery query;
    try {
        query = parse_filter(text);
    } catch (const FilterSyntaxError& e) {
        if (e.offset() > text.size()) std::abort();  // the error points past the query
        return 0;
    }
    (void)query.to_string();

    AnalysisOptions options;
    options.parallel = false;
    const auto analysis = SnapshotAnalysis::analyse(std::move(*heap), options);
    std::vector<uint8_t> is_new(analysis->snapshot().node_count());
    for (size_t i = 0; i < is_new.size(); i += 3) is_new[i] = 1;
    FilterNeeds everything;
    everything.index = everything.roots = everything.paths = everything.retained = true;
    everything.cycles = everything.diff = everything.suspects = true;
    const FilterColumns all(*analysis, everything, is_new);
    evaluate(query, all.context());
    // The snapshot alone: a query reading any analysis column is refused.
    FilterContext bare;
    bare.snapshot = &analysis->snapshot();
    evaluate(query, bare);
    return 0;
}
