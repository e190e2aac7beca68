// Inferred references: what an extension object nobody describes holds.
//
// A C/C++ type without tp_traverse (not GC, or GC with no traverse) and
// without a describe callback or recogniser hides its references: every
// object it holds shows references no edge accounts for ("unexplained
// surplus"), the signal of a leak. PyTorch 2.14's dispatcher, for one, keeps
// each operator's bound `redispatch_boxed` in two such objects
// (torch._C._PyObjectDispatchFunc and _PyObjectRedispatchFunc), so 111 bound
// methods looked leaked in any program that imports torch.
//
// Such an object's own memory (its tp_basicsize bytes, read, never written,
// no code of the type run) usually holds those references as plain
// pointers. scan_words() proposes an edge for every aligned word that equals
// the address of an object the walk already knows: nothing that is not an
// object's address is ever dereferenced. The edge is labelled with the word's
// offset and flagged Inferred. A word may be a borrowed pointer, or a number
// that happens to equal an address, so after the walk settle_inferred_edges()
// makes an inferred edge Owned only while its target's refcount has room for
// it: references that no owned edge and no root claims. The accounting can
// therefore never claim more references than an object has, and an inferred
// edge never hides a reference another edge explains. docs/probe.md,
// "Inferred references", has the rules and their limits.
#include <cstring>
#include <string>
#include <unordered_map>

#include "heap_walker.h"

namespace refscope::probe {

namespace {

// Larger objects are not scanned: the types this is for hold a handful of
// fields; a large fixed-size object is a buffer, not a holder.
constexpr Py_ssize_t kMaxScannedBytes = 1024;

bool labelled_slot(const MemberSlot* slots, uint32_t count, Py_ssize_t offset) {
    for (uint32_t i = 0; i < count; ++i)
        if (slots[i].offset == offset) return true;
    return false;
}

}  // namespace

bool scans_words(PyTypeObject* tp, const TypeFacts& facts) {
    // Builtin kinds and the standard-library special cases have their own
    // labellers; a described type reports its references itself.
    if (facts.kind != ObjectKind::Other || facts.special != SpecialKind::None || facts.describers != 0)
        return false;
    if (facts.gc && tp->tp_traverse != nullptr) return false;
    // Only objects known to be allocated whole: a custom tp_alloc may
    // allocate less than tp_basicsize (datetime's naive time and datetime
    // leave out their tzinfo field), and the words past it are another
    // object's.
    if (tp->tp_alloc != PyType_GenericAlloc || tp->tp_itemsize != 0) return false;
    return tp->tp_basicsize > static_cast<Py_ssize_t>(sizeof(PyObject)) &&
           tp->tp_basicsize <= kMaxScannedBytes;
}

uint32_t HeapWalker::word_label(Py_ssize_t offset) {
    const auto index = static_cast<size_t>(offset) / sizeof(void*);
    if (word_labels_.size() <= index) word_labels_.resize(index + 1, 0);
    if (word_labels_[index] == 0) word_labels_[index] = text("word at +" + std::to_string(offset));
    return word_labels_[index];
}

void HeapWalker::scan_words(PyObject* op, PyTypeObject* tp, const TypeFacts& facts,
                            EdgeCollector& collector) {
    const char* base = reinterpret_cast<const char*>(op);
    const MemberSlot* slots = member_slots(facts);
    for (auto offset = static_cast<Py_ssize_t>(sizeof(PyObject));
         offset + static_cast<Py_ssize_t>(sizeof(void*)) <= tp->tp_basicsize;
         offset += static_cast<Py_ssize_t>(sizeof(void*))) {
        // The instance dict and weakref list are the interpreter's, and a
        // member is already an edge of its own.
        if (offset == tp->tp_dictoffset || offset == tp->tp_weaklistoffset) continue;
        if (labelled_slot(slots, facts.members_count, offset)) continue;
        uintptr_t word;
        std::memcpy(&word, base + offset, sizeof word);
        if (word == 0 || word % alignof(PyObject) != 0 || word == reinterpret_cast<uintptr_t>(op)) continue;
        // Not found, or an object the probe made (the map keeps those with an
        // id past every node's).
        const uint32_t node = nodes_.find(word);
        if (node >= snapshot_.node_address.size()) continue;
        collector.add(reinterpret_cast<PyObject*>(word), format::EdgeKind::Native, word_label(offset),
                      EdgeMode::Inferred);
        ++inferred_edges_;
    }
}

// Runs when refcounts, owned edges and roots are final. In edge order, an
// inferred edge becomes Owned while its target has references that neither
// an owned edge nor a root record accounts for.
void HeapWalker::settle_inferred_edges() {
    if (inferred_edges_ == 0) return;
    Snapshot& s = snapshot_;
    const size_t edges = s.edge_target.size();
    std::vector<bool> is_target(s.node_refcount.size(), false);
    std::unordered_map<uint32_t, int64_t> room;  // target -> references left
    for (size_t e = 0; e < edges; ++e) {
        if (!(s.edge_flags[e] & format::kEdgeInferred)) continue;
        const uint32_t target = s.edge_target[e];
        if (is_target[target]) continue;
        is_target[target] = true;
        const bool counted = (s.node_flags[target] & (format::kNodeImmortal | format::kNodeNative)) == 0;
        room.emplace(target, counted ? s.node_refcount.get(target) : int64_t{0});
    }
    for (size_t e = 0; e < edges; ++e) {
        const uint32_t target = s.edge_target[e];
        if (is_target[target] && (s.edge_flags[e] & format::kEdgeOwned)) --room[target];
    }
    for (const RootRef& root : s.roots) {
        if (root.node >= is_target.size() || !is_target[root.node]) continue;
        int64_t& left = room[root.node];
        left = root.count == 0 ? 0 : left - static_cast<int64_t>(root.count);
    }
    for (size_t e = 0; e < edges; ++e) {
        if (!(s.edge_flags[e] & format::kEdgeInferred)) continue;
        int64_t& left = room[s.edge_target[e]];
        if (left <= 0) continue;
        s.edge_flags[e] |= format::kEdgeOwned;
        --left;
    }
}

}  // namespace refscope::probe
