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
#include <unordered_map>
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

// The tier of a module file, from what the probe keeps of `__file__` (200
// characters of an absolute path, "…" appended when cut; 48 in snapshots
// of format 1.2 and older): "/usr/lib/python3.13/asyncio/events.py" is the
// standard library's, "/usr/lib/python3/dist-packages/django/…" and
// "/root/.pyenv/versions/3.11.7/lib/python3.11/site…" (cut inside
// site-packages) a library's, anything else the program's. A prefix longer
// than the kept text before those folders hides them: such a library's
// types count as the program's, as they did before tiers
// (docs/leak-suspects.md).
uint8_t file_tier(std::string_view file) {
    if (file.empty() || file.front() == '<') return kInterpreterTier;  // frozen, built in
    constexpr std::string_view kCut = "\u2026";
    if (file.ends_with(kCut)) file.remove_suffix(kCut.size());
    if (file.find("-packages/") != std::string_view::npos) return kLibraryTier;
    // "/usr/lib/python3.13/…", and "/usr/lib64/python3.12/…" (Fedora, SUSE).
    size_t lib = file.find("/lib/python3");
    size_t skip = std::string_view("/lib/python3").size();
    if (lib == std::string_view::npos) {
        lib = file.find("/lib64/python3");
        skip = std::string_view("/lib64/python3").size();
    }
    if (lib == std::string_view::npos) return kProgramTier;
    // What follows "/lib/python3[.N]/": a package folder, the standard
    // library's own folders, or nothing left to tell (a library's, to be safe).
    std::string_view rest = file.substr(lib + skip);
    while (!rest.empty() && (rest.front() == '.' || (rest.front() >= '0' && rest.front() <= '9'))) rest.remove_prefix(1);
    if (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
    for (const std::string_view packages : {"site-packages", "dist-packages"})
        if (packages.starts_with(rest.substr(0, packages.size()))) return kLibraryTier;
    return kInterpreterTier;
}

// Module name → tier, from each module object's `__file__` (module →
// __dict__ → the value under the key "__file__"). A module without one is
// built in or frozen, the interpreter's, except `__main__`: the program's
// own in a REPL, under `python -c` and in a notebook (IPython's user
// module has no file either). Two modules of one name: the better tier.
std::unordered_map<std::string_view, uint8_t> module_tiers(const GraphIndex& index, const SuspectEvidence& ev,
                                                          const std::vector<uint8_t>& is_module) {
    const Snapshot& s = ev.s;
    const uint32_t n_nodes = index.node_count();
    std::unordered_map<std::string_view, uint8_t> tiers;
    for (uint32_t m = 0; m < n_nodes; ++m) {
        if (!is_module[std::min<size_t>(s.node_type[m], is_module.size() - 1)] || s.node_preview[m] == 0) continue;
        const std::string_view name = s.strings.view(s.node_preview[m]);
        uint8_t tier = name == "__main__" ? kProgramTier : kInterpreterTier;
        const uint32_t dict = module_namespace(index, m);
        for (const uint32_t e : dict < n_nodes ? index.out_edges(dict) : EdgeIds(nullptr, 0, 0)) {
            const uint32_t key = s.edge_label[e];
            if (s.edge_kind[e] != static_cast<uint8_t>(format::EdgeKind::DictValue) || key >= n_nodes ||
                s.strings.view(s.node_preview[key]) != "__file__" || index.target(e) >= n_nodes)
                continue;
            tier = file_tier(s.strings.view(s.node_preview[index.target(e)]));
            break;
        }
        uint8_t& known = tiers.emplace(name, tier).first->second;
        known = std::max(known, tier);
    }
    return tiers;
}

}  // namespace

std::vector<uint8_t> type_tiers(const GraphIndex& index, const SuspectEvidence& ev,
                                const std::vector<uint8_t>& is_module_type) {
    const std::unordered_map<std::string_view, uint8_t> modules = module_tiers(index, ev, is_module_type);
    std::vector<uint8_t> tier(ev.type_count + 1, kInterpreterTier);
    for (uint32_t t = 0; t < ev.type_count; ++t) {
        if (ev.interpreter_type[t]) continue;
        // The module, else its nearest parent package the snapshot holds
        // (a module name cut by the probe, a submodule not imported as
        // such); none (made at run time with another __module__, a snapshot
        // without module objects): nothing says it is not the program's.
        std::string_view module = ev.s.strings.view(ev.s.types[t].module);
        tier[t] = kProgramTier;
        for (;;) {
            if (const auto found = modules.find(module); found != modules.end()) {
                tier[t] = found->second;
                break;
            }
            const size_t dot = module.rfind('.');
            if (dot == std::string_view::npos) break;
            module = module.substr(0, dot);
        }
    }
    return tier;
}

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
    const auto tier_of = [&](uint32_t n) { return ev.type_tier[std::min<uint32_t>(s.node_type[n], ev.type_count)]; };
    const std::vector<uint8_t> roles = cache_type_roles(ev);
    const auto role_of = [&](uint32_t n) { return roles[std::min<uint32_t>(s.node_type[n], ev.type_count)]; };
    const auto is_link = [&](uint32_t n) { return role_of(n) == kLinkType; };
    const std::vector<uint8_t> bounded_wrapper = bounded_cache_wrappers(*in.index, role_of);

    // Parents before children: each new object learns its subtree's head
    // (the topmost new object) and whether a bounded cache's link is on the
    // way; each head, the best tier of a type in its subtree.
    std::vector<uint32_t> head(n_nodes, kNoNode);
    std::vector<uint8_t> bounded(n_nodes, 0);
    std::vector<uint8_t> best_tier(n_nodes, kInterpreterTier);  // per head
    ev.lead_holder.assign(n_nodes, kNoNode);
    ev.lead_of.assign(n_nodes, kNoNode);
    for (const uint32_t v : order) {
        if (!fresh(v)) continue;
        const uint32_t p = dom.idom(v);
        if (fresh(p)) {
            head[v] = head[p];
            bounded[v] = bounded[p];
        } else {
            head[v] = v;
            bounded[v] = p < n_nodes && (is_link(p) || bounded_wrapper[p]);
        }
        bounded[v] |= is_link(v) ? 1 : 0;
        best_tier[head[v]] = std::max(best_tier[head[v]], tier_of(v));
    }
    // The lead at or above each new object: the topmost one of its
    // subtree's best tier (none when that is the interpreter's).
    std::vector<uint32_t> lead_at(n_nodes, kNoNode);
    for (const uint32_t v : order) {
        if (!fresh(v)) continue;
        const uint32_t p = dom.idom(v);
        if (fresh(p)) lead_at[v] = lead_at[p];
        const uint8_t best = best_tier[head[v]];
        if (lead_at[v] == kNoNode && best > kInterpreterTier && tier_of(v) == best) lead_at[v] = v;
    }
    // A subtree whose best tier is the interpreter's is led by its head.
    // Leads are counted per type group; a group with fewer than
    // min_growth_objects leads is not evidence (one new object under an old
    // one is no leak). New objects above or beside the leads of their
    // subtree (the tuple and partial around a Session) are the packaging of
    // the subtree's first lead.
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
    // Per holder, its best lead: the first of the best tier among the leads
    // it holds that are evidence (enough of their type; an old holder, not
    // a root). A lead of a lower tier under the same holder is what the
    // better leads' entries hold: it and its parts become parts of the
    // best lead's growth.
    const auto counts = [&](uint32_t v) {
        return head[v] != kNoNode && !bounded[v] && ev.lead_of[v] == v && dom.idom(head[v]) < n_nodes &&
               leads_per_group[ev.group_of_node(v)] >= options.min_growth_objects;
    };
    std::unordered_map<uint32_t, uint32_t> best_lead;  // holder → lead
    for (uint32_t v = 0; v < n_nodes; ++v) {
        if (!counts(v)) continue;
        const auto [it, added] = best_lead.emplace(dom.idom(head[v]), v);
        if (!added && tier_of(v) > tier_of(it->second)) it->second = v;
    }
    std::unordered_map<uint32_t, uint32_t> outranked_by;  // demoted lead → best lead
    for (uint32_t v = 0; v < n_nodes; ++v) {
        if (!counts(v)) continue;
        const uint32_t best = best_lead.at(dom.idom(head[v]));
        if (tier_of(v) < tier_of(best)) outranked_by.emplace(v, best);
    }
    for (uint32_t v = 0; v < n_nodes; ++v) {
        if (head[v] == kNoNode || ev.lead_of[v] == kNoNode || ev.lead_of[v] == kInBoundedCache) continue;
        if (const auto found = outranked_by.find(ev.lead_of[v]); found != outranked_by.end())
            ev.lead_of[v] = found->second;
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
