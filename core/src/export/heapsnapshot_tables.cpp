// The tables the .heapsnapshot writer names things with: the de-duplicated
// output string table, the plan of synthetic root nodes (root, root classes,
// thread stacks) with the root records bucketed under them, and the mapping
// of Python types onto V8 node types.

#include <cstring>

#include "export/heapsnapshot_parts.h"
#include "refscope/format/constants.h"

namespace refscope::exporting::detail {

uint64_t OutputStrings::hash(std::string_view text) {
    uint64_t h = 0x9E3779B97F4A7C15ull ^ text.size();
    size_t i = 0;
    for (; i + 8 <= text.size(); i += 8) {
        uint64_t word;
        std::memcpy(&word, text.data() + i, 8);
        h = (h ^ word) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, text.data() + i, text.size() - i);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
}

// `entry` says where the text lives if it is new: a snapshot string id
// tagged kFromSnapshot, or the position the text will take in made_.
uint32_t OutputStrings::intern(std::string_view text, uint32_t entry) {
    const uint64_t h = hash(text);
    const uint32_t short_hash = static_cast<uint32_t>(h >> 32);
    size_t mask = slots_.size() - 1;
    for (size_t slot = h & mask;; slot = (slot + 1) & mask) {
        const uint32_t index_plus_one = slots_[slot];
        if (index_plus_one == 0) break;
        const uint32_t index = index_plus_one - 1;
        if (hashes_[index] == short_hash && view(entries_[index]) == text) return index;
    }
    if (!(entry & kFromSnapshot)) made_.emplace_back(text);
    const auto index = static_cast<uint32_t>(entries_.size());
    entries_.push_back(entry);
    hashes_.push_back(short_hash);
    if (entries_.size() * 2 > slots_.size()) {
        rehash(slots_.size() * 2);
    } else {
        place(index, h);
    }
    return index;
}

void OutputStrings::place(uint32_t index, uint64_t h) {
    const size_t mask = slots_.size() - 1;
    size_t slot = h & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = index + 1;
}

void OutputStrings::rehash(size_t slot_count) {
    slots_.assign(slot_count, 0);
    for (uint32_t i = 0; i < entries_.size(); ++i) place(i, hash(view(entries_[i])));
}

SyntheticNodes plan_synthetic_nodes(const Snapshot& s) {
    SyntheticNodes plan;
    plan.names.emplace_back("(refscope roots)");
    plan.names.emplace_back("(interpreter)");
    const uint32_t first_thread = 2;
    for (const ThreadInfo& thread : s.threads) {
        plan.names.push_back("(thread stack: " + std::string(s.strings.view(thread.name)) + ")");
    }
    const auto node_count = static_cast<uint32_t>(s.node_count());
    bool unknown_thread = false;
    for (const RootRef& r : s.roots) {
        unknown_thread |= r.node < node_count && r.kind == format::RootKind::ThreadStack &&
                          r.thread >= s.threads.size();
    }
    const uint32_t unknown_thread_node =
        unknown_thread ? static_cast<uint32_t>(plan.names.size()) : 0;
    if (unknown_thread) plan.names.emplace_back("(thread stack: unknown thread)");
    const auto extension_node = static_cast<uint32_t>(plan.names.size());
    plan.names.emplace_back("(extension)");
    plan.unexplained_node = static_cast<uint32_t>(plan.names.size());
    plan.names.emplace_back("(unexplained surplus)");

    // Which synthetic node each valid record hangs from (0 = none).
    std::vector<uint32_t> owner(s.roots.size(), 0);
    for (size_t i = 0; i < s.roots.size(); ++i) {
        const RootRef& r = s.roots[i];
        if (r.node >= node_count) continue;  // RootClasses reports these
        switch (r.kind) {
            case format::RootKind::Interpreter: owner[i] = 1; break;
            case format::RootKind::ThreadStack:
                owner[i] = r.thread < s.threads.size() ? first_thread + r.thread
                                                        : unknown_thread_node;
                break;
            case format::RootKind::Extension: owner[i] = extension_node; break;
            default: owner[i] = extension_node; break;  // unknown kinds: outside holders
        }
    }
    plan.record_offset.assign(plan.names.size() + 1, 0);
    for (const uint32_t o : owner) {
        if (o != 0) ++plan.record_offset[o + 1];
    }
    for (size_t i = 1; i < plan.record_offset.size(); ++i) {
        plan.record_offset[i] += plan.record_offset[i - 1];
    }
    plan.records.resize(plan.record_offset.back());
    std::vector<uint32_t> fill(plan.record_offset.begin(), plan.record_offset.end() - 1);
    for (size_t i = 0; i < owner.size(); ++i) {
        if (owner[i] != 0) plan.records[fill[owner[i]]++] = static_cast<uint32_t>(i);
    }
    return plan;
}

TypeStyle style_of(std::string_view type_name) {
    if (type_name == "str") return TypeStyle::String;
    if (type_name == "int" || type_name == "float" || type_name == "bool" ||
        type_name == "complex") {
        return TypeStyle::Number;
    }
    if (type_name == "function" || type_name == "builtin_function_or_method" ||
        type_name == "method") {
        return TypeStyle::Closure;
    }
    if (type_name == "code") return TypeStyle::Code;
    if (type_name == "list" || type_name == "tuple") return TypeStyle::Array;
    return TypeStyle::Object;
}

}  // namespace refscope::exporting::detail
