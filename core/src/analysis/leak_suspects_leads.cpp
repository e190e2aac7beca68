// Leak suspects, with a baseline: which new objects lead the growth and which
// old object holds them (docs/leak-suspects.md, "Growth leads").
//
// A leak is new objects hanging off an old container: the dict a view
// stores every Order in, the list a notebook appends every result to, the
// future whose callbacks keep every Session. In the dominator tree the new
// objects form subtrees below old objects. In each such subtree the *lead*
// is the topmost object of a program type (not the interpreter's: the
// tuple, partial and bound method around a Session are its packaging), or,
// when the subtree has none, its top object. The lead's old dominator is its
// *holder*. Every other new object of the subtree is a *part* of the lead's
// growth (the Order's __dict__, its ModelState, the Customer it caches):
// its growth is a consequence, not a second leak.
//
// Library caches that warm up look the same, except one kind that cannot
// leak: a bounded functools.lru_cache (maxsize=N) keeps its entries in
// `functools._lru_list_elem` links and stops growing at N. New objects
// under such a link, or held by the wrapper of such a cache (which reports
// its links' keys and results itself), are the cache warming up, whatever
// their type.
#include <algorithm>
#include <string_view>
#include <vector>

#include "leak_suspects_stages.h"

namespace refscope::analysis::detail {

namespace {

constexpr std::string_view kBoundedCacheLink = "functools._lru_list_elem";
constexpr std::string_view kBoundedCacheWrapper = "functools._lru_cache_wrapper";

// Per type id (and one for bad ids): 1 = a bounded cache's link type,
// 2 = the lru_cache wrapper type, 3 = dict. Decided once per type, not per
// node.
enum : uint8_t { kOtherType = 0, kLinkType = 1, kWrapperType = 2, kDictType = 3 };
std::vector<uint8_t> cache_type_roles(const SuspectEvidence& ev) {
    std::vector<uint8_t> role(ev.type_count + 1, kOtherType);
    for (uint32_t t = 0; t < ev.type_count; ++t) {
        const std::string_view name = ev.name_of(t);
        role[t] = name == kBoundedCacheLink ? kLinkType : name == kBoundedCacheWrapper ? kWrapperType
                                                        : name == "dict"             ? kDictType
                                                                                     : kOtherType;
    }
    return role;
}

// The lru_cache wrappers that are bounded: their cache dict's values are
// links. The wrapper's tp_traverse reports each link's key and result
// itself, so a cached result's dominator may be the wrapper, not a link.
template <typename RoleOf>
std::vector<uint8_t> bounded_cache_wrappers(const GraphIndex& index, RoleOf role_of) {
    const uint32_t n_nodes = index.node_count();
    std::vector<uint8_t> bounded(n_nodes, 0);
    for (uint32_t n = 0; n < n_nodes; ++n) {
        if (role_of(n) != kWrapperType) continue;
        for (const uint32_t e : index.out_edges(n)) {
            const uint32_t d = index.target(e);
            if (d >= n_nodes || role_of(d) != kDictType) continue;
            for (const uint32_t v : index.out_edges(d)) {
                if (index.target(v) < n_nodes && role_of(index.target(v)) == kLinkType) {
                    bounded[n] = 1;
                    break;
                }
            }
        }
    }
    return bounded;
}

}  // namespace

std::vector<uint32_t> dominator_order(const DominatorTree& dom) {
    std::vector<uint32_t> order;
    order.reserve(static_cast<size_t>(dom.reachable_count()) + 2);
    order.push_back(kSuperRoot);
    for (size_t i = 0; i < order.size(); ++i) {
        for (const uint32_t child : dom.children(order[i])) order.push_back(child);
    }
    return order;
}

void find_growth_leads(const SuspectInputs& in, const SuspectOptions& options, const std::vector<uint32_t>& order,
                       SuspectEvidence& ev, std::vector<uint8_t>& kinds) {
    if (!in.diff && !in.survivors) return;
    const Snapshot& s = ev.s;
    const DominatorTree& dom = *in.dominators;
    const uint32_t n_nodes = in.index->node_count();
    const auto fresh = [&](uint32_t n) {
        return n < n_nodes && (in.diff ? in.diff->is_new[n] != 0 : in.survivors->is_survivor[n] != 0);
    };
    const auto program_type = [&](uint32_t n) {
        const uint32_t t = s.node_type[n];
        return !ev.interpreter_type[t < ev.type_count ? t : ev.type_count];
    };
    const std::vector<uint8_t> roles = cache_type_roles(ev);
    const auto role_of = [&](uint32_t n) { return roles[std::min<uint32_t>(s.node_type[n], ev.type_count)]; };
    const auto is_link = [&](uint32_t n) { return role_of(n) == kLinkType; };
    const std::vector<uint8_t> bounded_wrapper = bounded_cache_wrappers(*in.index, role_of);

    // Parents before children: each new object learns its subtree's head
    // (the topmost new object), the holder, the program-type lead above it
    // (or itself), and whether a bounded cache's link is on the way.
    std::vector<uint32_t> head(n_nodes, kNoNode);
    std::vector<uint32_t> lead_at(n_nodes, kNoNode);  // the program-type lead at or above
    std::vector<uint8_t> bounded(n_nodes, 0);
    ev.lead_holder.assign(n_nodes, kNoNode);
    ev.lead_of.assign(n_nodes, kNoNode);
    for (const uint32_t v : order) {
        if (!fresh(v)) continue;
        const uint32_t p = dom.idom(v);
        if (fresh(p)) {
            head[v] = head[p];
            lead_at[v] = lead_at[p];
            bounded[v] = bounded[p];
        } else {
            head[v] = v;
            bounded[v] = p < n_nodes && (is_link(p) || bounded_wrapper[p]);
        }
        bounded[v] |= is_link(v) ? 1 : 0;
        if (lead_at[v] == kNoNode && program_type(v)) lead_at[v] = v;
    }
    // A subtree with no program-type lead is led by its head. Leads are
    // counted per type group; a group with fewer than min_growth_objects
    // leads is not evidence (one new object under an old one is no leak).
    // New objects above or beside the program-type leads of their subtree
    // (the tuple and partial around a Session) are the packaging of the
    // subtree's first lead.
    std::vector<uint32_t> head_lead(n_nodes, kNoNode);
    for (uint32_t v = 0; v < n_nodes; ++v)
        if (lead_at[v] == v && head_lead[head[v]] == kNoNode) head_lead[head[v]] = v;
    std::vector<uint64_t> leads_per_group(ev.group_count, 0);
    for (uint32_t v = 0; v < n_nodes; ++v) {
        if (head[v] == kNoNode) continue;
        if (bounded[v]) {
            ev.lead_of[v] = kInBoundedCache;
            continue;
        }
        const uint32_t first = head_lead[head[v]];
        const uint32_t lead = first == kNoNode ? head[v] : lead_at[v] != kNoNode ? lead_at[v] : first;
        ev.lead_of[v] = lead;
        if (lead == v) ++leads_per_group[ev.group_of_node(v)];
    }
    for (uint32_t v = 0; v < n_nodes; ++v) {
        if (head[v] == kNoNode) continue;
        // A bounded cache warming up, or a part of another object's growth:
        // its growth and survival are not evidence of their own.
        if (bounded[v] || (ev.lead_of[v] != v && ev.lead_of[v] != kNoNode)) {
            ev.noise[v] |= static_cast<uint8_t>(kinds[v] & (kSuspectGrowth | kSuspectSurvivor));
            continue;
        }
        if (ev.lead_of[v] != v || leads_per_group[ev.group_of_node(v)] < options.min_growth_objects) continue;
        const uint32_t holder = dom.idom(head[v]);
        if (holder >= n_nodes) continue;  // a new root: nothing old holds it
        ev.lead_holder[v] = holder;
        kinds[v] |= kSuspectGrowingHolder;
    }
}

}  // namespace refscope::analysis::detail
