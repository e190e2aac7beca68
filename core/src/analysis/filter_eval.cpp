// Binding and evaluating filter queries (filter_query.h).
//
// Evaluation is column-at-a-time over blocks of kBlock nodes: each leaf of
// the postfix program writes one byte per node of the block onto a stack of
// blocks, and And/Or/Not combine whole blocks. The inner loops are plain
// array scans the compiler can vectorise; names (type globs, module globs,
// preview substrings) were resolved to lookup tables when the filter was
// compiled, so no string is touched per node except a module object's name.
#include <algorithm>
#include <cctype>

#include "refscope/analysis/filter_query.h"
#include "refscope/analysis/graph_index.h"
#include "refscope/analysis/retention_paths.h"
#include "refscope/analysis/root_classes.h"
#include "refscope/analysis/type_names.h"

namespace refscope::analysis {

namespace {

constexpr uint32_t kBlock = 4096;

// `*` any run, `?` one byte, everything else literal. Iterative: on a
// mismatch, retry from just after the last `*` with one more byte swallowed.
bool glob_match(std::string_view pattern, std::string_view text) {
    size_t p = 0, t = 0;
    size_t star = std::string_view::npos, star_text = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            star_text = t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++star_text;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

bool icontains(std::string_view text, std::string_view needle) {
    if (needle.size() > text.size()) return false;
    const auto lower = [](char c) { return std::tolower(static_cast<unsigned char>(c)); };
    return std::search(text.begin(), text.end(), needle.begin(), needle.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

[[noreturn]] void missing(std::string_view term, std::string_view what) {
    throw FilterContextError("'" + std::string(term) + "' needs " + std::string(what),
                             std::string(term));
}

// Writes out[i] = value(first + i) OP threshold for a block; `value` returns
// false for "no value" (immortal surplus, unreached distance), which never
// matches.
template <typename Value>
void compare_block(Value value, CompareOp op, double threshold, uint32_t first, uint32_t count,
                   uint8_t* out) {
    const auto loop = [&](auto test) {
        for (uint32_t i = 0; i < count; ++i) {
            double v = 0;
            out[i] = value(first + i, v) && test(v) ? 1 : 0;
        }
    };
    switch (op) {
        case CompareOp::Less: loop([&](double v) { return v < threshold; }); break;
        case CompareOp::LessEqual: loop([&](double v) { return v <= threshold; }); break;
        case CompareOp::Greater: loop([&](double v) { return v > threshold; }); break;
        case CompareOp::GreaterEqual: loop([&](double v) { return v >= threshold; }); break;
        case CompareOp::Equal: loop([&](double v) { return v == threshold; }); break;
        case CompareOp::NotEqual: loop([&](double v) { return v != threshold; }); break;
    }
}

}  // namespace

CompiledFilter::CompiledFilter(const FilterQuery& query, const FilterContext& context)
    : context_(context) {
    if (!context.snapshot) throw std::invalid_argument("filter context has no snapshot");
    const Snapshot& s = *context.snapshot;
    const size_t nodes = s.node_count();
    const auto check_column = [&](size_t size, std::string_view name) {
        if (size != 0 && size != nodes) {
            throw std::invalid_argument("filter context column '" + std::string(name) + "' has " +
                                        std::to_string(size) + " entries for " +
                                        std::to_string(nodes) + " nodes");
        }
    };
    check_column(context.retained.size(), "retained");
    check_column(context.in_cycle.size(), "in_cycle");
    check_column(context.is_new.size(), "is_new");
    check_column(context.suspect.size(), "suspect");
    if (context.index && &context.index->snapshot() != context.snapshot) {
        throw std::invalid_argument("filter context: the graph index is of another snapshot");
    }

    size_t depth = 0;
    for (const FilterTerm& term : query.program) {
        Op op;
        op.kind = term.kind;
        op.field = term.field;
        op.op = term.op;
        op.flag = term.flag;
        op.number = term.number;
        op.address = term.address;
        switch (term.kind) {
            case FilterTerm::Kind::Text: {
                op.table = tables_.size();
                if (term.field == FilterField::Preview) {
                    tables_.resize(tables_.size() + s.strings.size(), 0);
                    for (size_t id = 1; id < s.strings.size(); ++id) {
                        tables_[op.table + id] =
                            icontains(s.strings.view(static_cast<uint32_t>(id)), term.text);
                    }
                } else {
                    // One entry per type id and a last one for out-of-range ids ("?").
                    tables_.resize(tables_.size() + s.types.size() + 1, 0);
                    // `type:Plugin` with no type of that exact name means the
                    // types whose class name is Plugin (type_names.h), as --type does.
                    const bool by_bare_name = term.field == FilterField::Type &&
                                              term.text.find_first_of("*?.") == std::string::npos &&
                                              !has_type_named(s, term.text);
                    for (size_t id = 0; id <= s.types.size(); ++id) {
                        std::string_view name = "?";
                        std::string_view module;
                        if (id < s.types.size()) {
                            name = s.strings.view(s.types[id].name);
                            if (name.empty()) name = "?";
                            module = s.strings.view(s.types[id].module);
                        }
                        uint8_t value = 0;
                        if (by_bare_name) {
                            value = bare_type_name(name) == term.text;
                        } else if (term.field == FilterField::Type) {
                            value = glob_match(term.text, name);
                        } else {
                            value = glob_match(term.text, module);
                            // A module object belongs to the module it is
                            // (descriptions.h module_name): decided per node.
                            if (name == "module") value = static_cast<uint8_t>(2 + value);
                        }
                        tables_[op.table + id] = value;
                    }
                    op.text = term.text;
                }
                ++depth;
                break;
            }
            case FilterTerm::Kind::Number:
                switch (term.field) {
                    case FilterField::Retained:
                        if (context.retained.empty())
                            missing("retained", "the dominator analysis (retained sizes)");
                        break;
                    case FilterField::Surplus:
                    case FilterField::Unexplained:
                        if (!context.roots)
                            missing(filter_field_name(term.field),
                                    "the root classes (refcount surplus analysis)");
                        break;
                    case FilterField::Distance:
                        if (!context.paths)
                            missing("distance", "the retention paths (BFS from roots)");
                        break;
                    case FilterField::Referrers:
                    case FilterField::Referents:
                        if (!context.index)
                            missing(filter_field_name(term.field), "the graph index");
                        break;
                    default: break;
                }
                ++depth;
                break;
            case FilterTerm::Kind::Flag:
                switch (term.flag) {
                    case FilterFlag::New:
                        if (context.is_new.empty())
                            missing("new", "a diff against an older snapshot");
                        break;
                    case FilterFlag::Unreachable:
                    case FilterFlag::Reachable:
                        if (!context.paths)
                            missing(filter_flag_name(term.flag),
                                    "the retention paths (BFS from roots)");
                        break;
                    case FilterFlag::Cycle:
                        if (context.in_cycle.empty())
                            missing("cycle", "the cycle analysis (strongly connected components)");
                        break;
                    case FilterFlag::Suspect:
                        if (context.suspect.empty()) missing("suspect", "the leak suspect ranking");
                        break;
                    case FilterFlag::Root:
                        if (root_flag_.empty()) {
                            root_flag_.assign(nodes, 0);
                            for (const RootRef& r : s.roots) {
                                if (r.node < nodes) root_flag_[r.node] = 1;
                            }
                        }
                        break;
                    default: break;
                }
                ++depth;
                break;
            case FilterTerm::Kind::Address: ++depth; break;
            case FilterTerm::Kind::And:
            case FilterTerm::Kind::Or: --depth; break;
            case FilterTerm::Kind::Not: break;
        }
        max_depth_ = std::max(max_depth_, depth);
        program_.push_back(std::move(op));
    }
}

// A numeric comparison (`size>1KB`, `surplus>0`) over nodes
// [first, first + count), into `slot`.
void CompiledFilter::evaluate_number(const Op& op, uint32_t first, uint32_t count, uint8_t* slot) const {
    const Snapshot& s = *context_.snapshot;
    const auto run_compare = [&](auto value) {
        compare_block(value, op.op, op.number, first, count, slot);
    };
    switch (op.field) {
        case FilterField::Size:
            run_compare([&](uint32_t n, double& v) {
                v = static_cast<double>(s.node_size[n]);
                return true;
            });
            break;
        case FilterField::Retained:
            run_compare([&](uint32_t n, double& v) {
                v = static_cast<double>(context_.retained[n]);
                return true;
            });
            break;
        case FilterField::Refcount:
            run_compare([&](uint32_t n, double& v) {
                v = static_cast<double>(s.node_refcount[n]);
                return true;
            });
            break;
        case FilterField::Surplus: {
            const RootClasses& roots = *context_.roots;
            run_compare([&](uint32_t n, double& v) {
                if (s.node_flags[n] & (format::kNodeImmortal | format::kNodeNative))
                    return false;
                v = static_cast<double>(s.node_refcount[n] -
                                        int64_t{roots.owned_in(n)});
                return true;
            });
            break;
        }
        case FilterField::Unexplained: {
            // Sparse, sorted by node: scatter this block's entries
            // into a dense scratch block, zero elsewhere.
            const std::vector<NodeCount>& list = context_.roots->unexplained_nodes();
            std::vector<int64_t> values(count, 0);
            auto it = std::lower_bound(
                list.begin(), list.end(), first,
                [](const NodeCount& c, uint32_t n) { return c.node < n; });
            for (; it != list.end() && it->node < first + count; ++it) {
                values[it->node - first] = it->references;
            }
            run_compare([&](uint32_t n, double& v) {
                v = static_cast<double>(values[n - first]);
                return true;
            });
            break;
        }
        case FilterField::Distance: {
            const RetentionPaths& paths = *context_.paths;
            run_compare([&](uint32_t n, double& v) {
                const uint32_t d = paths.distance(n);
                v = d;
                return d != kUnreached;
            });
            break;
        }
        case FilterField::Referrers:
            run_compare([&](uint32_t n, double& v) {
                v = context_.index->in_degree(n);
                return true;
            });
            break;
        case FilterField::Referents:
            run_compare([&](uint32_t n, double& v) {
                v = context_.index->out_degree(n);
                return true;
            });
            break;
        default: std::fill(slot, slot + count, uint8_t{0}); break;
    }
}

void CompiledFilter::evaluate_block(uint32_t first, uint32_t count, uint8_t* out,
                                    std::vector<uint8_t>& stack) const {
    if (program_.empty()) {
        std::fill(out, out + count, uint8_t{1});
        return;
    }
    stack.resize(max_depth_ * count);
    const Snapshot& s = *context_.snapshot;
    const uint32_t type_limit = static_cast<uint32_t>(s.types.size());
    size_t top = 0;  // number of blocks on the stack
    for (const Op& op : program_) {
        uint8_t* slot = stack.data() + top * count;  // where a leaf writes
        switch (op.kind) {
            case FilterTerm::Kind::Text: {
                const uint8_t* table = tables_.data() + op.table;
                if (op.field == FilterField::Preview) {
                    const uint32_t strings = static_cast<uint32_t>(s.strings.size());
                    for (uint32_t i = 0; i < count; ++i) {
                        const uint32_t preview = s.node_preview[first + i];
                        slot[i] = preview < strings ? table[preview] : 0;
                    }
                } else {
                    for (uint32_t i = 0; i < count; ++i) {
                        const uint32_t type = std::min(s.node_type[first + i], type_limit);
                        uint8_t v = table[type];
                        if (v >= 2) {  // a module object: its own name decides
                            const uint32_t preview = s.node_preview[first + i];
                            v = preview != 0 ? glob_match(op.text, s.strings.view(preview))
                                             : static_cast<uint8_t>(v - 2);
                        }
                        slot[i] = v;
                    }
                }
                ++top;
                break;
            }
            case FilterTerm::Kind::Address:
                for (uint32_t i = 0; i < count; ++i)
                    slot[i] = s.node_address[first + i] == op.address;
                ++top;
                break;
            case FilterTerm::Kind::Number:
                evaluate_number(op, first, count, slot);
                ++top;
                break;
            case FilterTerm::Kind::Flag: {
                const auto node_bit = [&](uint8_t bit) {
                    for (uint32_t i = 0; i < count; ++i)
                        slot[i] = (s.node_flags[first + i] & bit) != 0;
                };
                const auto column = [&](std::span<const uint8_t> values) {
                    for (uint32_t i = 0; i < count; ++i) slot[i] = values[first + i] != 0;
                };
                switch (op.flag) {
                    case FilterFlag::New: column(context_.is_new); break;
                    case FilterFlag::Cycle: column(context_.in_cycle); break;
                    case FilterFlag::Suspect: column(context_.suspect); break;
                    case FilterFlag::Root: column(root_flag_); break;
                    case FilterFlag::Immortal: node_bit(format::kNodeImmortal); break;
                    case FilterFlag::Tracked: node_bit(format::kNodeGcTracked); break;
                    case FilterFlag::Native: node_bit(format::kNodeNative); break;
                    case FilterFlag::TypeObject: node_bit(format::kNodeTypeObject); break;
                    case FilterFlag::Unreachable:
                    case FilterFlag::Reachable: {
                        const bool want = op.flag == FilterFlag::Reachable;
                        for (uint32_t i = 0; i < count; ++i) {
                            slot[i] = context_.paths->reachable(first + i) == want;
                        }
                        break;
                    }
                }
                ++top;
                break;
            }
            case FilterTerm::Kind::Not: {
                uint8_t* operand = stack.data() + (top - 1) * count;
                for (uint32_t i = 0; i < count; ++i) operand[i] ^= 1;
                break;
            }
            case FilterTerm::Kind::And:
            case FilterTerm::Kind::Or: {
                uint8_t* left = stack.data() + (top - 2) * count;
                const uint8_t* right = left + count;
                if (op.kind == FilterTerm::Kind::And) {
                    for (uint32_t i = 0; i < count; ++i) left[i] &= right[i];
                } else {
                    for (uint32_t i = 0; i < count; ++i) left[i] |= right[i];
                }
                --top;
                break;
            }
        }
    }
    std::copy(stack.data(), stack.data() + count, out);
}

bool CompiledFilter::matches(uint32_t node) const {
    if (node >= context_.snapshot->node_count()) return false;
    std::vector<uint8_t> stack;
    uint8_t result = 0;
    evaluate_block(node, 1, &result, stack);
    return result != 0;
}

template <typename Sink>
void CompiledFilter::run(Sink&& sink) const {
    const uint32_t nodes = static_cast<uint32_t>(context_.snapshot->node_count());
    std::vector<uint8_t> stack;
    std::vector<uint8_t> block(kBlock);
    for (uint32_t first = 0; first < nodes; first += kBlock) {
        const uint32_t count = std::min(kBlock, nodes - first);
        evaluate_block(first, count, block.data(), stack);
        sink(first, count, block.data());
    }
}

std::vector<uint32_t> CompiledFilter::select() const {
    std::vector<uint32_t> out;
    run([&](uint32_t first, uint32_t count, const uint8_t* bits) {
        for (uint32_t i = 0; i < count; ++i) {
            if (bits[i]) out.push_back(first + i);
        }
    });
    return out;
}

void CompiledFilter::select_bitmap(std::vector<uint8_t>& out) const {
    out.resize(context_.snapshot->node_count());
    run([&](uint32_t first, uint32_t count, const uint8_t* bits) {
        std::copy(bits, bits + count, out.begin() + first);
    });
}

uint64_t CompiledFilter::count() const {
    uint64_t total = 0;
    run([&](uint32_t, uint32_t count, const uint8_t* bits) {
        for (uint32_t i = 0; i < count; ++i) total += bits[i];
    });
    return total;
}

std::vector<uint32_t> select_nodes(const FilterQuery& query, const FilterContext& context) {
    return CompiledFilter(query, context).select();
}

}  // namespace refscope::analysis
