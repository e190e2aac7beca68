// The two stages of the LeakSuspects constructor (leak_suspects.cpp runs
// them): gathering the evidence per node (leak_suspects_evidence.cpp), then
// folding it into rows with reasons, scores and order (leak_suspects_rows.cpp),
// and the evidence handed from the first to the second.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "refscope/analysis/leak_suspects.h"

namespace refscope::analysis::detail {

// SuspectEvidence::lead_of of a new object under a bounded cache's link.
inline constexpr uint32_t kInBoundedCache = 0xFFFFFFF0u;

struct SuspectEvidence {
    explicit SuspectEvidence(const Snapshot& snapshot) : s(snapshot) {}

    const Snapshot& s;
    // Type names: one group per distinct name; bad type ids share "?".
    uint32_t type_count = 0;
    std::vector<uint32_t> group_of_type;     // per type id, and type_count for bad ids
    std::vector<uint32_t> group_first_type;  // a representative type id per group
    uint32_t bad_group = 0;
    uint32_t group_count = 0;
    // Per type id (and type_count): defined by a stdlib/builtin module.
    std::vector<uint8_t> interpreter_type;
    // Per type id (and type_count): whose code the type is (TypeTier).
    std::vector<uint8_t> type_tier;
    // The kind bits whose evidence is the interpreter's own, per node.
    std::vector<uint8_t> noise;
    // Per unreachable node kept alive by a holder: that nearest holder.
    std::vector<uint32_t> holder;
    // Per group: its row of the diff, or null.
    std::vector<const TypeDelta*> delta_of_group;
    // Where the growth accumulates, and how many new/surviving objects.
    uint32_t accumulation = kNoNode;
    uint64_t accumulated = 0;
    uint64_t accumulated_total = 0;
    // Growth leads (leak_suspects_leads.cpp), with a baseline: per node, the
    // old object holding it if it leads a growth, and the lead whose growth
    // it is part of (itself for a lead), kNoNode otherwise.
    std::vector<uint32_t> lead_holder;
    std::vector<uint32_t> lead_of;  // or kInBoundedCache
    // Objects kept alive by their own finalizer, by increasing referent.
    std::vector<FinalizerTrap> traps;
    const FinalizerTrap* trap_of(uint32_t node) const;

    std::string_view name_of(uint32_t t) const { return s.strings.view(s.types[t].name); }
    uint32_t group_of_node(uint32_t node) const {
        const uint32_t t = s.node_type[node];
        return group_of_type[t < type_count ? t : type_count];
    }
};

// Sets the SuspectKind bits of every node in kinds (one per node, all 0 on
// entry) and returns what the rows need besides; the constructor has checked
// the inputs.
SuspectEvidence gather_suspect_evidence(const SuspectInputs& in, const SuspectOptions& options,
                                        std::vector<uint8_t>& kinds);

// How much a type says about whose code leaks: the program's own type (its
// module's file lies outside the standard library and site-/dist-packages)
// ranks above a library's, which ranks above the interpreter's and the
// standard library's.
enum TypeTier : uint8_t { kInterpreterTier = 0, kLibraryTier = 1, kProgramTier = 2 };
// Per type id (and one for bad ids), from interpreter_type and each module
// object's __file__ (leak_suspects_leads.cpp). `is_module_type` marks the
// type ids (and the bad id) of module objects.
std::vector<uint8_t> type_tiers(const GraphIndex& index, const SuspectEvidence& ev,
                                const std::vector<uint8_t>& is_module_type);

// A module object's namespace dict (module --__dict__--> dict), or kNoNode.
uint32_t module_namespace(const GraphIndex& index, uint32_t module);

// The dominator tree in breadth-first order from kSuperRoot: parents first.
std::vector<uint32_t> dominator_order(const DominatorTree& dom);

// Marks the new objects that lead a growth (kSuspectGrowingHolder) with
// their holders, and makes the growth and survival of the parts of a growth
// and of a bounded cache's contents noise (leak_suspects_leads.cpp).
void find_growth_leads(const SuspectInputs& in, const SuspectOptions& options, const std::vector<uint32_t>& order,
                       SuspectEvidence& ev, std::vector<uint8_t>& kinds);

// Folds the evidence into rows per (type name, confidence), writes their
// reasons and scores, and returns them in order; then clears the kinds of
// nodes in low-confidence rows and marks them in `low_confidence` instead.
std::vector<SuspectGroup> fold_suspect_rows(const SuspectInputs& in, const SuspectOptions& options,
                                            const SuspectEvidence& ev, std::vector<uint8_t>& kinds,
                                            std::vector<bool>& low_confidence);

}  // namespace refscope::analysis::detail
