// Leak suspects, second stage: the evidence per node folded into rows per
// (type name, confidence), each row's reasons and score (docs/leak-suspects.md),
// and the rows' order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "leak_suspects_stages.h"
#include "refscope/analysis/allocation_sites.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/inferred_holders.h"
#include "refscope/analysis/subgraph.h"

namespace refscope::analysis::detail {
namespace {

std::string objects_text(uint64_t count) {
    return with_thousands(count) + (count == 1 ? " object" : " objects");
}

// Added to the magnitude of the kinds that prove a defect by themselves
// (unexplained surplus, an uncollectable cycle), unlike growth, which a
// warming cache shows too.
constexpr double kProofBonus = 2.0;

double magnitude(uint64_t objects, uint64_t bytes) {
    return std::log2(1.0 + static_cast<double>(objects)) +
           std::log2(1.0 + static_cast<double>(bytes) / 1024.0);
}

// Per-row totals that only the score needs.
struct RowBytes {
    uint64_t surplus_retained = 0;
    uint64_t unreachable_shallow = 0;
    uint64_t cycle_shallow = 0;
    uint64_t finalizer_retained = 0;
    uint64_t lead_retained = 0;
    uint64_t parts = 0;           // new objects of other rows that are parts of this row's leads' growth
    uint64_t part_objects = 0;    // this row's objects that are parts of another row's growth
    uint64_t cached_objects = 0;  // this row's new objects in a bounded lru_cache
};

// Counts the most frequent value per row in (row << 32 | value) pairs:
// sorted, then one scan. Returns per row {value, occurrences, distinct}.
struct Mode {
    uint32_t value = kNoNode;
    uint64_t occurrences = 0;
    uint32_t distinct = 0;
};
std::vector<Mode> modes_by_row(std::vector<uint64_t>& pairs, size_t rows) {
    std::sort(pairs.begin(), pairs.end());
    std::vector<Mode> modes(rows);
    size_t i = 0;
    while (i < pairs.size()) {
        size_t j = i;
        while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
        Mode& m = modes[pairs[i] >> 32];
        ++m.distinct;
        // Ties keep the lowest value: pairs are sorted, so the first seen.
        if (j - i > m.occurrences) {
            m.occurrences = j - i;
            m.value = static_cast<uint32_t>(pairs[i]);
        }
        i = j;
    }
    return modes;
}

// "new shop.models.Order objects accumulate in shop.views.RECENT_ORDERS
// (dict (len=480) @ 0x…): it holds 360 of the 360 that lead the growth, with
// 2,880 new objects they hold". Returns the kind's points: the issue's
// strongest evidence with a baseline, proportional to how much of the
// type's growth one holder has.
double growing_holder_reason(const SuspectInputs& in, SuspectGroup& row, const Mode& m, const RowBytes& bytes,
                             bool interpreter) {
    const Snapshot& s = in.index->snapshot();
    row.lead_holder = m.value;
    row.lead_holder_objects = m.occurrences;
    if (const auto path = in.paths->path_to(m.value)) row.lead_holder_name = dotted_name(*in.index, *path);
    const std::string holder = row.lead_holder_name.empty()
                                   ? describe_node(s, m.value)
                                   : row.lead_holder_name + " (" + describe_node(s, m.value) + ")";
    std::string text = "new " + row.type + " objects accumulate in " + holder + ": it holds " +
                       with_thousands(m.occurrences) + " of the " + with_thousands(row.lead_objects) +
                       (in.diff ? " new" : " surviving") + " ones";
    if (bytes.parts > 0) text += ", with " + objects_text(bytes.parts) + " of other types they hold";
    if (m.distinct > 1) text += " (" + with_thousands(m.distinct) + " holders in all)";
    row.reasons.push_back(std::move(text));
    const double share = static_cast<double>(m.occurrences) / static_cast<double>(row.lead_objects);
    return (interpreter ? 2.5 : 10.0) * share * (kProofBonus + magnitude(m.occurrences, bytes.lead_retained));
}

// Why a row's growth is not evidence of its own: its new objects are parts
// of another type's growth, or the contents of a bounded cache.
std::string growth_noise_reason(const Snapshot& s, const SuspectGroup& row, const Mode& m, const RowBytes& bytes) {
    std::string text;
    if (bytes.part_objects > 0) {
        text = objects_text(bytes.part_objects) + " of type " + row.type + " are part of the growth of " +
               std::string(type_name(s, m.value)) + " (held by the new " + std::string(type_name(s, m.value)) +
               " objects, or around them)";
    }
    if (bytes.cached_objects > 0) {
        if (!text.empty()) text += "; ";
        text += objects_text(bytes.cached_objects) + " of type " + row.type +
                " are in a bounded functools.lru_cache, which stops growing at its maxsize";
    }
    return text;
}

// The likely C++ holder (inferred_holders.h) of the object with unexplained
// surplus a row's reason names: the holder keeping its unreachable objects,
// else the first sampled object with surplus of its own. The sentence goes
// to the end of the reason it explains; a row gets at most one. Returns
// that reason's index, or SIZE_MAX.
size_t add_inferred_holder(const SuspectInputs& in, SuspectGroup& row) {
    const RootClasses& roots = *in.roots;
    const bool surplus = (row.kinds & kSuspectUnexplainedSurplus) != 0;
    std::optional<InferredHolder> inferred;
    size_t reason = 0;
    if ((row.kinds & kSuspectUnreachable) && row.holder != kNoNode) {
        inferred = infer_holder(*in.index, roots, row.holder);
        reason = surplus ? 1 : 0;  // the unreachable reason follows the surplus one
    }
    if (!inferred && surplus) {
        for (uint32_t n : row.sample) {
            if (roots.unexplained(n) > 0 && (inferred = infer_holder(*in.index, roots, n))) break;
        }
        reason = 0;
    }
    if (!inferred || reason >= row.reasons.size()) return SIZE_MAX;
    row.likely_holder = inferred->holder;
    row.likely_held = inferred->held;
    row.reasons[reason] += " — " + inferred->text;
    return reason;
}

// Everything the reasons of a row read besides the row: the inputs, the
// evidence, and per row the most frequent holders (modes_by_row).
struct RowContext {
    const SuspectInputs& in;
    const SuspectOptions& options;
    const SuspectEvidence& ev;
    const std::vector<RowBytes>& row_bytes;
    std::vector<Mode> holders;       // of the row's unreachable objects
    std::vector<Mode> lead_holders;  // of the row's growth leads
    std::vector<Mode> part_leads;    // the leads the row's parts belong to
    uint32_t rows_of_accumulation;   // the accumulation point's row, or 0xFFFFFFFF
    uint64_t heap_retained;
    uint32_t group_first_type_or_bad(uint32_t g) const {
        return g == ev.bad_group ? ev.type_count : ev.group_first_type[g];
    }
};

// "50 objects of type dict have no path from any root; they are kept alive
// by …". Returns the kind's points.
double unreachable_reason(const RowContext& x, size_t r, SuspectGroup& row, const std::string& of_type) {
    const Snapshot& s = x.in.index->snapshot();
    const Cycles& cycles = *x.in.cycles;
    const SuspectInputs& in = x.in;
    const std::vector<Mode>& holders = x.holders;
    const std::vector<RowBytes>& row_bytes = x.row_bytes;
    double score = 0;
    const Mode& m = holders[r];
    row.holder = m.value;
    row.holder_objects = m.occurrences;
    row.holder_count = m.distinct;
    const uint64_t k = row.unreachable_objects;
    std::string text = objects_text(k) + of_type + (k == 1 ? " has" : " have") +
                       " no path from any root; " + (k == 1 ? "it is" : "they are") +
                       " kept alive by ";
    if (m.distinct > 1) {
        text += with_thousands(m.distinct) + " holders, most (" + with_thousands(m.occurrences) +
                ") by ";
    }
    const uint32_t hc = cycles.cycle_of(m.value);
    if (hc != kNoCycle && uncollectable(cycles.info(hc).fate)) {
        text += "an uncollectable cycle (" + std::string(cycle_fate_name(cycles.info(hc).fate)) +
                ") of " + objects_text(cycles.info(hc).members) + " containing " +
                describe_node(s, m.value);
    } else {
        const int64_t refs = in.roots->unexplained(m.value);
        text += describe_node(s, m.value) + " (unexplained refcount surplus, " +
                with_thousands(static_cast<uint64_t>(refs)) + (refs == 1 ? " reference)" : " references)");
    }
    row.reasons.push_back(std::move(text));
    score += 4 * magnitude(k, row_bytes[r].unreachable_shallow);
    return score;
}

// The largest retainers, or where the growth accumulates. Returns the
// kind's points.
double large_retained_reason(const RowContext& x, size_t r, SuspectGroup& row, const std::string& of_type) {
    const Snapshot& s = x.in.index->snapshot();
    const DominatorTree& dom = *x.in.dominators;
    const SuspectInputs& in = x.in;
    const SuspectEvidence& ev = x.ev;
    const SuspectOptions& options = x.options;
    const uint32_t accumulation = ev.accumulation;
    const uint64_t accumulated = ev.accumulated;
    const uint64_t accumulated_total = ev.accumulated_total;
    const uint32_t rows_of_accumulation = x.rows_of_accumulation;
    const uint64_t heap_retained = x.heap_retained;
    double score = 0;
    const uint64_t k = row.large_objects;
    const bool accumulates = accumulation != kNoNode && rows_of_accumulation == r;
    const uint64_t retained = accumulates ? dom.retained_size(accumulation) : row.largest_retained;
    const double share = heap_retained == 0 ? 0.0
                                            : 100.0 * static_cast<double>(retained) /
                                                  static_cast<double>(heap_retained);
    char percent[32];
    if (share > 0 && share < 1) {
        std::snprintf(percent, sizeof percent, "<1%%");
    } else {
        std::snprintf(percent, sizeof percent, "%.0f%%", share);
    }
    if (accumulates) {
        row.accumulation_node = accumulation;
        row.accumulated_objects = accumulated;
        row.reasons.push_back(describe_node(s, accumulation) + " holds " + with_thousands(accumulated) +
                              " of the " + with_thousands(accumulated_total) +
                              (in.diff ? " new" : " surviving") +
                              " objects: the growth accumulates there; it retains " +
                              human_bytes(retained) + " (" + percent + " of the heap)");
        // Below the grown type's own row (weight 5): the type names
        // the leak, the container says where to look.
        score += 4 * magnitude(accumulated, retained);
    } else {
        row.reasons.push_back(objects_text(k) + of_type + (k == 1 ? " is" : " are") +
                              " among the " + with_thousands(options.top_retained) +
                              " largest retainers; " + (k == 1 ? "it retains " : "the largest retains ") +
                              human_bytes(retained) + " (" + percent + " of the heap)");
        score += magnitude(k, retained);
    }
    return score;
}

// "app.Session grew by 1,000 objects …". Returns the kind's points.
double growth_reason(const RowContext& x, size_t r, SuspectGroup& row) {
    const uint32_t g = static_cast<uint32_t>(r / 2);
    double score = 0;
    const TypeDelta& d = *x.ev.delta_of_group[g];
    row.growth_objects = d.object_delta();
    row.growth_bytes = d.byte_delta();
    row.objects_before = d.objects_a;
    const std::string bytes = d.byte_delta() >= 0
                                  ? "+" + human_bytes(static_cast<uint64_t>(d.byte_delta()))
                                  : "-" + human_bytes(static_cast<uint64_t>(-d.byte_delta()));
    row.reasons.push_back(row.type + " grew by " + objects_text(static_cast<uint64_t>(d.object_delta())) +
                          " (" + bytes + ") since the baseline (" + with_thousands(d.objects_a) +
                          " → " + with_thousands(d.objects_b) + "); " + with_thousands(row.new_objects) +
                          (row.new_objects == 1 ? " is new" : " are new"));
    // A builtin container growing is usually a symptom, a library's
    // objects often its cache warming up; the type that names the leak is
    // a class of the program.
    const uint8_t tier = x.ev.type_tier[x.group_first_type_or_bad(g)];
    const double weight = tier == kProgramTier ? 5.0 : tier == kLibraryTier ? 3.5 : 2.5;
    score += weight * magnitude(static_cast<uint64_t>(d.object_delta()),
                           static_cast<uint64_t>(std::max<int64_t>(d.byte_delta(), 0)));
    return score;
}

// Where each row's objects were allocated, when the snapshot has
// tracebacks: the three busiest sites (allocation_sites.h).
// `row_at(n)`: node n's row, or kNoNode (fold_suspect_rows).
template <typename RowAt>
void count_row_sites(const Snapshot& s, RowAt&& row_at, std::vector<SuspectGroup>& rows) {
    if (!s.allocations.recorded()) return;
    const std::vector<uint32_t> site_of = sites_by_traceback(s);
    std::vector<uint64_t> pairs;  // (row, site)
    const uint32_t n_nodes = static_cast<uint32_t>(s.node_count());
    for (uint32_t n = 0; n < n_nodes; ++n) {
        const uint32_t r = row_at(n);
        if (r == kNoNode) continue;
        const uint32_t t = s.allocations.traceback_of(n);
        if (t == AllocationSites::kNone) continue;
        const uint32_t site = site_of[t];
        ++rows[r].traced_objects;
        pairs.push_back((static_cast<uint64_t>(r) << 32) | site);
    }
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < pairs.size();) {
        size_t j = i;
        while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
        rows[pairs[i] >> 32].allocation_sites.push_back({static_cast<uint32_t>(pairs[i]), j - i});
        i = j;
    }
    for (SuspectGroup& row : rows) {
        std::vector<SiteCount>& sites = row.allocation_sites;
        std::stable_sort(sites.begin(), sites.end(),
                         [](const SiteCount& a, const SiteCount& b) { return a.objects > b.objects; });
        if (sites.size() > 3) sites.resize(3);
    }
}

// The row's type, confidence, reasons and score.
void explain_row(const RowContext& x, size_t r, SuspectGroup& row) {
    const Snapshot& s = x.in.index->snapshot();
    const Cycles& cycles = *x.in.cycles;
    const SuspectInputs& in = x.in;
    const SuspectEvidence& ev = x.ev;
    const std::vector<RowBytes>& row_bytes = x.row_bytes;
    const uint32_t bad_group = ev.bad_group;
    const std::vector<uint32_t>& group_first_type = ev.group_first_type;
    const std::vector<uint8_t>& interpreter_type = ev.interpreter_type;
    const std::vector<Mode>& lead_holders = x.lead_holders;
    const std::vector<Mode>& part_leads = x.part_leads;
    const auto group_first_type_or_bad = [&](uint32_t g) { return x.group_first_type_or_bad(g); };
    const bool low = (r & 1) != 0;
    const uint32_t g = static_cast<uint32_t>(r / 2);
    if (g == bad_group) {
        row.type = "?";
    } else {
        row.type = std::string(ev.name_of(group_first_type[g]));
        row.module = std::string(s.strings.view(s.types[group_first_type[g]].module));
    }
    row.confidence = low ? SuspectConfidence::Low : SuspectConfidence::High;
    const std::string of_type = " of type " + row.type;
    const bool noise_row = low && (row.kinds & (kSuspectUnexplainedSurplus | kSuspectUnreachable));
    double score = 0;

    if (row.kinds & kSuspectUnexplainedSurplus) {
        const uint64_t k = row.surplus_objects;
        row.reasons.push_back(
            objects_text(k) + of_type + (k == 1 ? " has " : " have ") +
            with_thousands(static_cast<uint64_t>(row.unexplained_references)) +
            (row.unexplained_references == 1 ? " reference" : " references") +
            " nobody in the graph accounts for (a C/C++ holder or a refcount leak); " +
            (k == 1 ? "it retains " : "they retain ") + human_bytes(row_bytes[r].surplus_retained));
        // +2: a proven defect (a reference nobody accounts for) of one
        // object outranks the statistical growth of a handful.
        score += 8 * (kProofBonus + magnitude(k, row_bytes[r].surplus_retained));
    }
    if (row.kinds & kSuspectUnreachable) score += unreachable_reason(x, r, row, of_type);
    if (row.kinds & kSuspectUncollectableCycle) {
        const uint64_t k = row.cycle_objects;
        std::string explanation = cycles.explain(row.cycle);
        constexpr std::string_view prefix = "uncollectable: ";
        if (explanation.starts_with(prefix)) explanation.erase(0, prefix.size());
        row.reasons.push_back(objects_text(k) + of_type + (k == 1 ? " is" : " are") + " in " +
                              with_thousands(row.cycle_count) +
                              (row.cycle_count == 1 ? " uncollectable cycle" : " uncollectable cycles") +
                              " (" + human_bytes(row_bytes[r].cycle_shallow) + " of them)" +
                              (row.cycle_count == 1 ? ": " : "; the largest: ") + explanation);
        score += 10 * (kProofBonus + magnitude(k, row_bytes[r].cycle_shallow));
    }
    if (row.kinds & kSuspectGrowth) score += growth_reason(x, r, row);
    if (row.kinds & kSuspectSurvivor) {
        const uint64_t k = row.survivor_objects;
        row.reasons.push_back(objects_text(k) + of_type + " (" + human_bytes(row.survivor_bytes) +
                              ") allocated between snapshots 1 and 2 " +
                              (k == 1 ? "is" : "are") + " still alive in snapshot 3");
        score += 8 * magnitude(k, row.survivor_bytes);
    }
    if (row.kinds & kSuspectLargeRetained) score += large_retained_reason(x, r, row, of_type);
    if (row.kinds & kSuspectGrowingHolder) {
        score += growing_holder_reason(in, row, lead_holders[r], row_bytes[r],
                                       interpreter_type[group_first_type_or_bad(g)] != 0);
    }
    if (row_bytes[r].part_objects > 0 || row_bytes[r].cached_objects > 0) {
        const Mode& m = part_leads[r];
        row.reasons.push_back(growth_noise_reason(s, row, m, row_bytes[r]));
    }
    if (row.kinds & kSuspectOwnFinalizer) {
        const uint64_t k = row.finalizer_objects;
        row.reasons.push_back(objects_text(k) + of_type + (k == 1 ? " is" : " are") +
                              " kept alive only by the state of a callback waiting for " +
                              (k == 1 ? "it" : "them") + " to be freed, which cannot run while its state holds " +
                              (k == 1 ? "it" : "them") + " (" +
                              human_bytes(row_bytes[r].finalizer_retained) + " retained): " +
                              describe_finalizer_trap(s, row.finalizer_trap));
        // Proof of a leak, like an uncollectable cycle, and ranked above
        // one: the cycle may be the interpreter's, the trap never is.
        score += 12 * (kProofBonus + magnitude(k, row_bytes[r].finalizer_retained));
    }
    // A likely C++ holder is a better guess than static state.
    if (add_inferred_holder(in, row) != 0 && noise_row) {
        row.reasons.front() += " — probably static state held from C, the interpreter's or an "
                              "extension's (interned strings, static types, module globals)";
    }
    if (low) score *= 0.1;
    row.score = std::round(score * 100.0) / 100.0;  // stable when printed
    if (!row.allocation_sites.empty()) {
        SiteBreakdown b;
        b.objects = row.objects;
        b.traced = row.traced_objects;
        b.sites = row.allocation_sites;
        row.allocation_text = describe_sites(s, b);
    }
    for (size_t i = 0; i < row.reasons.size(); ++i) {
        if (i) row.reason += "; ";
        row.reason += row.reasons[i];
    }
    if (!row.allocation_text.empty()) row.reason += "; allocated: " + row.allocation_text;
}

// Per node: is one of its dominators (not only the immediate one) in the
// same row? Such a node's retained bytes are already inside that
// dominator's, so a row adds them once: a tuple under a list under a tuple
// of one row is not counted twice (a row never retains more than the heap).
// One walk of the dominator tree, counting each row's members on the way down.
// `row_at(n)`: node n's row, or kNoNode.
template <typename RowAt>
std::vector<uint8_t> nested_in_own_row(const DominatorTree& dom, uint32_t n_nodes, RowAt&& row_at,
                                       size_t row_count) {
    std::vector<uint8_t> nested(n_nodes, 0);
    std::vector<uint32_t> open_in_row(row_count, 0);
    struct Frame {
        uint32_t node;
        size_t next_child;
    };
    std::vector<Frame> stack{{kSuperRoot, 0}};
    while (!stack.empty()) {
        Frame& top = stack.back();
        const auto children = dom.children(top.node);
        if (top.next_child == children.size()) {
            const uint32_t r = top.node < n_nodes ? row_at(top.node) : kNoNode;
            if (r != kNoNode) --open_in_row[r];
            stack.pop_back();
            continue;
        }
        const uint32_t child = children[top.next_child++];
        const uint32_t r = child < n_nodes ? row_at(child) : kNoNode;
        if (r != kNoNode) {
            nested[child] = open_in_row[r] > 0;
            ++open_in_row[r];
        }
        stack.push_back({child, 0});
    }
    return nested;
}

}  // namespace

std::vector<SuspectGroup> fold_suspect_rows(const SuspectInputs& in, const SuspectOptions& options,
                                            const SuspectEvidence& ev, std::vector<uint8_t>& kinds,
                                            std::vector<bool>& low_confidence) {
    const Snapshot& s = in.index->snapshot();
    const uint32_t n_nodes = in.index->node_count();
    const DominatorTree& dom = *in.dominators;
    const Cycles& cycles = *in.cycles;
    const uint32_t group_count = ev.group_count;
    const std::vector<uint8_t>& noise = ev.noise;
    const std::vector<uint32_t>& holder = ev.holder;
    const uint32_t accumulation = ev.accumulation;
    std::vector<SuspectGroup> groups;

    // --- Which row each node goes to. Row = group * 2 + (low confidence). ---
    // A node is low confidence when all its evidence is noise, or when it is
    // only "large" and not where the growth accumulates: big is not leaking.
    const auto signal_bits = [&](uint32_t n) -> uint8_t {
        return static_cast<uint8_t>(kinds[n] & ~kSuspectLargeRetained & ~noise[n]);
    };
    const auto row_of = [&](uint32_t n) -> uint32_t {
        const bool low = signal_bits(n) == 0 && n != accumulation;
        return ev.group_of_node(n) * 2 + (low ? 1u : 0u);
    };

    const size_t row_count = static_cast<size_t>(group_count) * 2;
    std::vector<SuspectGroup> rows(row_count);
    std::vector<RowBytes> row_bytes(row_count);
    std::vector<uint64_t> representative_retained(row_count, 0);
    // Computed where needed, not kept per node: kinds and noise do not
    // change until the end, and a per-node column was this stage's largest
    // scratch (4 bytes a node, at its peak).
    const auto row_at = [&](uint32_t n) { return kinds[n] ? row_of(n) : kNoNode; };
    const std::vector<uint8_t> nested_in_row = nested_in_own_row(dom, n_nodes, row_at, row_count);
    std::vector<uint64_t> holder_pairs;
    std::vector<uint64_t> cycle_pairs;
    std::vector<uint64_t> lead_pairs;  // (row, lead holder)
    std::vector<uint64_t> part_pairs;  // (row, the lead whose growth it is part of)
    const bool leads = !ev.lead_of.empty();
    const auto& unexplained = in.roots->unexplained_nodes();
    size_t unexplained_at = 0;
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (!kinds[n]) continue;
        const uint32_t r = row_of(n);
        SuspectGroup& row = rows[r];
        // A high-confidence row counts only evidence that is not noise.
        const uint8_t k = (r & 1) ? kinds[n] : static_cast<uint8_t>(kinds[n] & ~noise[n]);
        row.kinds |= k;
        ++row.objects;
        row.shallow_bytes += s.node_size[n];
        const bool nested = nested_in_row[n] != 0;
        // Objects the dominator tree does not reach (a cycle only an
        // invisible edge keeps) retain at least themselves.
        const uint64_t retained = dom.reachable(n) ? dom.retained_size(n) : s.node_size[n];
        if (!nested) row.retained_bytes += retained;
        if (row.representative == kNoNode || retained > representative_retained[r]) {
            row.representative = n;
            representative_retained[r] = retained;
        }
        if (row.sample.size() < options.sample_size) row.sample.push_back(n);
        if (k & kSuspectUnexplainedSurplus) {
            while (unexplained_at < unexplained.size() && unexplained[unexplained_at].node < n) {
                ++unexplained_at;
            }
            ++row.surplus_objects;
            if (unexplained_at < unexplained.size() && unexplained[unexplained_at].node == n) {
                row.unexplained_references += unexplained[unexplained_at].references;
            }
            if (!nested) row_bytes[r].surplus_retained += retained;
        }
        if (k & kSuspectUnreachable) {
            ++row.unreachable_objects;
            row_bytes[r].unreachable_shallow += s.node_size[n];
            holder_pairs.push_back((static_cast<uint64_t>(r) << 32) | holder[n]);
        }
        if (k & kSuspectUncollectableCycle) {
            ++row.cycle_objects;
            row_bytes[r].cycle_shallow += s.node_size[n];
            cycle_pairs.push_back((static_cast<uint64_t>(r) << 32) | cycles.cycle_of(n));
        }
        if (k & kSuspectGrowth) ++row.new_objects;
        if (k & kSuspectSurvivor) {
            ++row.survivor_objects;
            row.survivor_bytes += s.node_size[n];
        }
        if (k & kSuspectOwnFinalizer) {
            if (row.finalizer_objects++ == 0) row.finalizer_trap = *ev.trap_of(n);
            if (!nested) row_bytes[r].finalizer_retained += retained;
        }
        if (k & kSuspectGrowingHolder) {
            ++row.lead_objects;
            if (!nested) row_bytes[r].lead_retained += retained;
            lead_pairs.push_back((static_cast<uint64_t>(r) << 32) | ev.lead_holder[n]);
        }
        if (leads && ev.lead_of[n] == kInBoundedCache) ++row_bytes[r].cached_objects;
        if (leads && ev.lead_of[n] < n_nodes && ev.lead_of[n] != n) {
            ++row_bytes[r].part_objects;
            part_pairs.push_back((static_cast<uint64_t>(r) << 32) | ev.lead_of[n]);
        }
        if (k & kSuspectLargeRetained) {
            ++row.large_objects;
            row.largest_retained = std::max(row.largest_retained, retained);
        }
    }
    count_row_sites(s, row_at, rows);

    const std::vector<Mode> part_leads = modes_by_row(part_pairs, row_count);
    for (const uint64_t pair : part_pairs) ++row_bytes[row_of(static_cast<uint32_t>(pair))].parts;
    // Cycles per row: distinct count, and the one with the most bytes.
    std::sort(cycle_pairs.begin(), cycle_pairs.end());
    cycle_pairs.erase(std::unique(cycle_pairs.begin(), cycle_pairs.end()), cycle_pairs.end());
    for (const uint64_t pair : cycle_pairs) {
        SuspectGroup& row = rows[pair >> 32];
        const uint32_t c = static_cast<uint32_t>(pair);
        ++row.cycle_count;
        if (row.cycle == kNoCycle || cycles.info(c).bytes > cycles.info(row.cycle).bytes) row.cycle = c;
    }

    // --- Reasons and scores. ---
    const RowContext context{in,
                             options,
                             ev,
                             row_bytes,
                             modes_by_row(holder_pairs, row_count),
                             modes_by_row(lead_pairs, row_count),
                             part_leads,
                             accumulation == kNoNode ? 0xFFFFFFFFu : row_of(accumulation),
                             dom.retained_size(kSuperRoot)};
    for (size_t r = 0; r < row_count; ++r) {
        if (rows[r].objects > 0) explain_row(context, r, rows[r]);
    }

    // --- Order, and the per-node column (high-confidence rows only). ---
    for (size_t r = 0; r < row_count; ++r) {
        if (rows[r].objects == 0) continue;
        if ((r & 1) && !options.include_low_confidence) continue;
        groups.push_back(std::move(rows[r]));
    }
    std::sort(groups.begin(), groups.end(), [](const SuspectGroup& a, const SuspectGroup& b) {
        if (a.confidence != b.confidence) return a.confidence < b.confidence;
        if (a.score != b.score) return a.score > b.score;
        if (a.objects != b.objects) return a.objects > b.objects;
        if (a.type != b.type) return a.type < b.type;
        return a.representative < b.representative;
    });
    low_confidence.assign(n_nodes, false);
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (kinds[n] && (row_of(n) & 1)) {
            kinds[n] = 0;
            low_confidence[n] = true;
        }
    }
    return groups;
}

}  // namespace refscope::analysis::detail
