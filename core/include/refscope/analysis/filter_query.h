// The filter language shared by the CLI and the app (docs/filter-language.md):
//
//   type:app.Leaky module:app size>1000 surplus>0 new retained>1MB unreachable
//   type:app.* (size>=1KiB OR refcount>10) -tracked not cycle
//
// Terms combine with AND (juxtaposition or `AND`), `OR` binds looser than AND,
// `-term` / `not term` negates, parentheses group.
//
// parse_filter() turns text into a FilterQuery: a postfix program (a flat
// list of terms and operators), checked for syntax only. CompiledFilter binds
// a query to a FilterContext — the snapshot and whichever analysis columns the
// caller has — resolving names once (type patterns to a per-type-id table,
// preview substrings to a per-string-id table) and refusing queries that need
// a column the context lacks. Evaluation runs the program over blocks of
// nodes, one column at a time, so a 10M-node heap is a few passes over flat
// arrays.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

class GraphIndex;
class RootClasses;
class RetentionPaths;

// A syntax error, with the byte offset in the query where it was found.
// what() reads "unknown field 'sise' at column 1: did you mean 'size'?";
// column() is offset() + 1.
class FilterSyntaxError : public std::invalid_argument {
public:
    FilterSyntaxError(const std::string& message, size_t offset)
        : std::invalid_argument(message), offset_(offset) {}
    size_t offset() const { return offset_; }
    size_t column() const { return offset_ + 1; }

private:
    size_t offset_;
};

// The query is well formed but needs something the context lacks: "'retained'
// needs the dominator analysis (retained sizes)". `term()` names the field or flag.
class FilterContextError : public std::runtime_error {
public:
    FilterContextError(const std::string& message, std::string term)
        : std::runtime_error(message), term_(std::move(term)) {}
    const std::string& term() const { return term_; }

private:
    std::string term_;
};

enum class FilterField : uint8_t {
    Type,         // text: exact name or glob (`*`, `?`)
    Module,       // text: exact name or glob
    Preview,      // text: substring, ASCII case-insensitive
    Address,      // address: exact
    Size,         // number: shallow bytes
    Retained,     // number: retained bytes (dominator analysis)
    Refcount,     // number
    Surplus,      // number: refcount − owned in-references (RootClasses)
    Unexplained,  // number: unexplained surplus (RootClasses)
    Distance,     // number: hops from the nearest root (RetentionPaths); `depth` too
    Referrers,    // number: in-degree (GraphIndex)
    Referents,    // number: out-degree (GraphIndex)
};

enum class FilterFlag : uint8_t {
    New,          // no match in the older snapshot (diff)
    Unreachable,  // no retention path from roots (RetentionPaths)
    Reachable,    // the opposite
    Cycle,        // member of a strongly connected component of 2+ nodes (or a self loop)
    Root,         // has a root record
    Immortal,     // kNodeImmortal
    Tracked,      // kNodeGcTracked
    Native,       // kNodeNative
    TypeObject,   // kNodeTypeObject (flag name `typeobject`)
    Suspect,      // leak suspect (suspect ranking)
};

enum class CompareOp : uint8_t { Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual };

// One instruction of a postfix program. Leaves push one bit per node, And/Or
// pop two and push one, Not pops one and pushes one.
struct FilterTerm {
    enum class Kind : uint8_t { Text, Number, Address, Flag, And, Or, Not };
    Kind kind = Kind::Flag;
    FilterField field = FilterField::Type;  // Text, Number, Address
    CompareOp op = CompareOp::Equal;        // Number
    FilterFlag flag = FilterFlag::New;      // Flag
    double number = 0;                      // Number, units applied
    uint64_t address = 0;                   // Address
    std::string text;                       // Text: the pattern, unquoted
    uint32_t offset = 0;                    // where the term starts in the query text
};

struct FilterQuery {
    std::string text;                 // as given
    std::vector<FilterTerm> program;  // postfix; empty = matches every node
    bool matches_everything() const { return program.empty(); }
    // Fully parenthesised prefix form, for tests and debugging:
    // "(and (type app.*) (or (size > 1000) (not new)))".
    std::string to_string() const;
};

// Throws FilterSyntaxError. Blank text gives a query that matches everything.
FilterQuery parse_filter(std::string_view text);

// Canonical names: "type", "size", ..., "unreachable", ...
std::string_view filter_field_name(FilterField field);
std::string_view filter_flag_name(FilterFlag flag);

// What evaluation may read. Only `snapshot` is required; a query that uses a
// field or flag whose column is absent fails to compile with FilterContextError.
// Per-node spans must have snapshot->node_count() entries (or be empty).
struct FilterContext {
    const Snapshot* snapshot = nullptr;
    const GraphIndex* index = nullptr;      // referrers, referents
    const RootClasses* roots = nullptr;     // surplus, unexplained
    const RetentionPaths* paths = nullptr;  // distance, unreachable, reachable
    std::span<const uint64_t> retained;     // retained bytes per node (dominator tree)
    std::span<const uint8_t> in_cycle;      // nonzero: in a non-trivial SCC
    std::span<const uint8_t> is_new;        // nonzero: new since the older snapshot
    std::span<const uint8_t> suspect;       // nonzero: a leak suspect
};

class CompiledFilter {
public:
    // Throws FilterContextError when the query needs a column the context
    // lacks, std::invalid_argument when context.snapshot is null or a column
    // has the wrong length. Keeps pointers into the context: the snapshot and
    // the columns must outlive the filter.
    CompiledFilter(const FilterQuery& query, const FilterContext& context);

    bool matches(uint32_t node) const;
    // Matching node ids, increasing.
    std::vector<uint32_t> select() const;
    // One byte per node, 1 = matches (resized to node_count).
    void select_bitmap(std::vector<uint8_t>& out) const;
    uint64_t count() const;

private:
    // A FilterTerm with names resolved against the context.
    struct Op {
        FilterTerm::Kind kind = FilterTerm::Kind::Flag;
        FilterField field = FilterField::Type;
        CompareOp op = CompareOp::Equal;
        FilterFlag flag = FilterFlag::New;
        double number = 0;
        uint64_t address = 0;
        size_t table = 0;  // Text: offset of this term's lookup table in tables_
        std::string text;  // Module: the pattern, for module objects' own names
    };
    // Evaluates the program over nodes [first, first + count) into `out`
    // (count <= kBlock bytes). `stack` is scratch space.
    void evaluate_block(uint32_t first, uint32_t count, uint8_t* out,
                        std::vector<uint8_t>& stack) const;
    // One numeric comparison term of evaluate_block.
    void evaluate_number(const Op& op, uint32_t first, uint32_t count, uint8_t* slot) const;
    template <typename Sink>
    void run(Sink&& sink) const;

    FilterContext context_;
    std::vector<Op> program_;
    size_t max_depth_ = 0;
    // Per Text op, one byte per type id (+1 for bad ids; type, module) or per
    // string id (preview): 1 = matches; for module, 2 = "a module object:
    // match its own name".
    std::vector<uint8_t> tables_;
    std::vector<uint8_t> root_flag_;  // per node, built only when `root` is used
};

// Matching node ids of a parsed query (compiles, then selects).
std::vector<uint32_t> select_nodes(const FilterQuery& query, const FilterContext& context);

// Which analyses a query reads, so a caller builds only those before
// compiling (the CLI: `query FILE 'size>1MB'` needs none).
struct FilterNeeds {
    bool index = false;     // referrers, referents
    bool roots = false;     // surplus, unexplained
    bool paths = false;     // distance, unreachable, reachable (paths need roots and index too)
    bool retained = false;  // retained
    bool cycles = false;    // cycle
    bool diff = false;      // new
    bool suspects = false;  // suspect
};
FilterNeeds filter_needs(const FilterQuery& query);

// Completions for the last word of `prefix_text` (what the user is typing),
// each a full replacement for that word: field names with their separator
// ("type:", "size>"), flags ("unreachable"), and for `type:`/`module:` the
// matching names in the snapshot ("type:app.Leaky"). Sorted, at most `limit`.
std::vector<std::string> filter_completions(std::string_view prefix_text, const Snapshot& snapshot,
                                            size_t limit = 50);

}  // namespace refscope::analysis
