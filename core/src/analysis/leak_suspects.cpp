// Leak suspects: the names of the kinds and confidences, the interpreter's
// modules, and the constructor, which gathers per-node evidence
// (leak_suspects_evidence.cpp) and folds it into rows per (type name,
// confidence) (leak_suspects_rows.cpp). See leak_suspects.h for the model and
// docs/leak-suspects.md for the scoring.
#include "refscope/analysis/leak_suspects.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string>

#include "leak_suspects_stages.h"

namespace refscope::analysis {
namespace {


// Modules whose types are the interpreter's own or the standard library's C
// parts: objects of their static types that carry unexplained surplus are
// almost always held by C statics (interned strings, type caches, module
// state). Also the names runtimes give their own types without a module of
// that name: CPython 3.13's cross-interpreter exceptions
// ("interpreters.NotShareableError", kept in interpreter state; 3.14 names
// it "concurrent.interpreters.NotShareableError") and
// pybind11's ("pybind11_builtins.pybind11_object", the metaclass, and 3.x's
// function record type, which each extension's local internals hold).
constexpr std::string_view kInterpreterModules[] = {
    "",           "_abc",        "_asyncio",     "_ast",        "_bisect",      "_blake2",
    "_bz2",       "_codecs",     "_collections", "_contextvars", "_csv",        "_ctypes",
    "_datetime",  "_decimal",    "_elementtree", "_frozen_importlib", "_frozen_importlib_external",
    "_functools", "_hashlib",    "_heapq",       "_imp",        "_io",          "_json",
    "_locale",    "_lsprof",     "_lzma",        "_md5",        "_multiprocessing", "_opcode",
    "_operator",  "_pickle",     "_posixsubprocess", "_queue",  "_random",      "_sha1",
    "_sha2",      "_sha256",     "_sha3",        "_sha512",     "_signal",      "_socket",
    "_sqlite3",   "_sre",        "_ssl",         "_stat",       "_string",      "_struct",
    "_thread",    "_tokenize",   "_tracemalloc", "_typing",     "_warnings",    "_weakref",
    "abc",        "array",       "ast",          "asyncio",     "atexit",       "binascii",
    "builtins",   "cmath",       "codecs",       "collections", "contextvars",  "datetime",
    "decimal",    "enum",        "errno",        "faulthandler", "fcntl",       "functools",
    "gc",         "grp",         "importlib",    "io",          "itertools",    "marshal",
    "math",       "mmap",        "operator",     "os",          "posix",        "pwd",
    "pyexpat",    "re",          "resource",     "select",      "socket",       "ssl",
    "sys",        "termios",     "time",         "types",       "typing",       "unicodedata",
    "weakref",    "zipimport",   "zlib",         "_weakrefset", "encodings",    "_pydecimal",
    "interpreters", "concurrent", "pybind11_builtins",
};

}  // namespace

std::string_view suspect_kind_name(uint8_t kind) {
    switch (kind) {
        case kSuspectUnexplainedSurplus: return "unexplained surplus";
        case kSuspectUnreachable: return "unreachable";
        case kSuspectUncollectableCycle: return "uncollectable cycle";
        case kSuspectGrowth: return "growth";
        case kSuspectSurvivor: return "survivor";
        case kSuspectLargeRetained: return "large retained";
        case kSuspectOwnFinalizer: return "own finalizer";
        case kSuspectGrowingHolder: return "growing holder";
        default: return "?";
    }
}

std::string suspect_kind_names(uint8_t kinds) {
    std::string out;
    for (int bit = 0; bit < kSuspectKindCount; ++bit) {
        const uint8_t kind = static_cast<uint8_t>(1u << bit);
        if ((kinds & kind) == 0) continue;
        if (!out.empty()) out += ", ";
        out += suspect_kind_name(kind);
    }
    return out;
}

std::string_view suspect_confidence_name(SuspectConfidence confidence) {
    return confidence == SuspectConfidence::High ? "high" : "low";
}

bool is_interpreter_module(std::string_view module) {
    // Cython's shared runtime types (cython_function_or_method, its
    // generators and coroutines) live in a module named after the Cython
    // version, "_cython_3_0_11"; every Cython module keeps some of their
    // instances in C statics, as CPython's own modules do.
    if (module.starts_with("_cython_")) return true;
    // The table is short; a linear scan keeps it free of ordering mistakes.
    return std::find(std::begin(kInterpreterModules), std::end(kInterpreterModules), module) !=
           std::end(kInterpreterModules);
}

LeakSuspects::LeakSuspects(const SuspectInputs& in, const SuspectOptions& options) {
    if (!in.index || !in.roots || !in.paths || !in.dominators || !in.cycles) {
        throw std::invalid_argument("leak suspects need the index, roots, paths, dominators and cycles");
    }
    const GraphIndex& index = *in.index;
    const uint32_t n_nodes = index.node_count();
    if (in.diff && in.diff->is_new.size() != n_nodes) {
        throw std::invalid_argument("the diff's is_new column does not match the current snapshot");
    }
    if (in.survivors && in.survivors->is_survivor.size() != n_nodes) {
        throw std::invalid_argument(
            "the survivor report's is_survivor column does not match the current snapshot");
    }
    node_kinds_.assign(n_nodes, 0);
    std::vector<uint8_t>& kinds = node_kinds_;  // the full bits until the end
    const detail::SuspectEvidence evidence = detail::gather_suspect_evidence(in, options, kinds);
    groups_ = detail::fold_suspect_rows(in, options, evidence, kinds, low_confidence_);
    for (const SuspectGroup& g : groups_) {
        if (g.confidence == SuspectConfidence::High) ++high_count_;
    }
}

std::vector<NodeCount> LeakSuspects::rank_unexplained(const RootClasses& roots, size_t limit) const {
    std::vector<NodeCount> ranked = roots.unexplained_nodes();
    const auto suspected = [&](uint32_t node) {
        return node < node_kinds_.size() && (node_kinds_[node] & kSuspectUnexplainedSurplus) != 0;
    };
    const auto before = [&](const NodeCount& a, const NodeCount& b) {
        if (suspected(a.node) != suspected(b.node)) return suspected(a.node);
        return a.references != b.references ? a.references > b.references : a.node < b.node;
    };
    const size_t keep = limit == 0 ? ranked.size() : std::min(limit, ranked.size());
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(), before);
    ranked.resize(keep);
    return ranked;
}

const SuspectGroup* LeakSuspects::find(std::string_view type) const {
    for (const SuspectGroup& g : groups_) {
        if (g.type == type) return &g;
    }
    return nullptr;
}

}  // namespace refscope::analysis
