// The pieces heapsnapshot_writer.cpp assembles a .heapsnapshot from, shared
// by the files that define them: the buffered, pure-ASCII JSON output over
// its sinks (heapsnapshot_json_output.cpp), and the output string table, the
// synthetic root nodes and the Python type -> V8 node type mapping
// (heapsnapshot_tables.cpp).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/format/byte_sink.h"
#include "refscope/snapshot.h"

namespace refscope::exporting::detail {

// ---------------------------------------------------------------------------
// Output: a buffer in front of a sink (format::ByteSink).

class JsonOutput {
public:
    explicit JsonOutput(format::ByteSink& sink) : sink_(sink), buffer_(kBufferSize) {}

    void put(char c) {
        if (used_ == kBufferSize) flush();
        buffer_[used_++] = c;
    }
    void raw(std::string_view text) {
        while (!text.empty()) {
            if (used_ == kBufferSize) flush();
            const size_t n = std::min(text.size(), kBufferSize - used_);
            std::memcpy(buffer_.data() + used_, text.data(), n);
            used_ += n;
            text.remove_prefix(n);
        }
    }
    void number(uint64_t value) {
        if (kBufferSize - used_ < 24) flush();
        char* const begin = buffer_.data() + used_;
        used_ += static_cast<size_t>(std::to_chars(begin, begin + 24, value).ptr - begin);
    }
    // A JSON string literal, quotes included, in pure ASCII: control
    // characters, quote and backslash escaped; other characters as \uXXXX
    // (surrogate pairs beyond the BMP); each byte that does not start a
    // well-formed UTF-8 sequence becomes U+FFFD.
    void string(std::string_view text);
    void flush() {
        if (used_ > 0) sink_.write(buffer_.data(), used_);
        written_ += used_;
        used_ = 0;
    }
    uint64_t bytes() const { return written_ + used_; }

private:
    static constexpr size_t kBufferSize = 1 << 18;

    void escape_ascii(unsigned char c);
    void unicode_escape(uint32_t unit);

    format::ByteSink& sink_;
    std::vector<char> buffer_;
    size_t used_ = 0;
    uint64_t written_ = 0;
};

// ---------------------------------------------------------------------------
// The output string table. Each distinct text gets one index; a text is either
// a snapshot string (kept by id, not copied) or one the export made up ("[3]
// [GC-invisible]"), kept here. Lookups go through a per-snapshot-string cache
// first, so most names cost one array read; the flat open-addressing table
// (no node allocation per entry) de-duplicates the rest.

class OutputStrings {
public:
    explicit OutputStrings(const StringTable& snapshot_strings)
        : source_(snapshot_strings), by_snapshot_id_(snapshot_strings.size(), kUnset) {
        slots_.assign(1024, 0);
        add_text("");  // index 0: the empty name
    }

    uint32_t snapshot_string(uint32_t id) {
        if (id >= by_snapshot_id_.size()) return add_text("?");
        uint32_t& cached = by_snapshot_id_[id];
        if (cached == kUnset) cached = intern(source_.view(id), kFromSnapshot | id);
        return cached;
    }
    uint32_t add_text(std::string_view text) {
        return intern(text, static_cast<uint32_t>(made_.size()));
    }

    size_t size() const { return entries_.size(); }
    std::string_view text(uint32_t index) const { return view(entries_[index]); }

private:
    static constexpr uint32_t kUnset = 0xFFFFFFFFu;
    static constexpr uint32_t kFromSnapshot = 0x80000000u;  // else: index into made_

    std::string_view view(uint32_t entry) const {
        return (entry & kFromSnapshot) ? source_.view(entry & ~kFromSnapshot)
                                       : std::string_view(made_[entry]);
    }

    static uint64_t hash(std::string_view text);

    // `entry` says where the text lives if it is new: a snapshot string id
    // tagged kFromSnapshot, or the position the text will take in made_.
    uint32_t intern(std::string_view text, uint32_t entry);
    void place(uint32_t index, uint64_t h);
    void rehash(size_t slot_count);

    const StringTable& source_;
    std::vector<uint32_t> by_snapshot_id_;
    std::vector<uint32_t> entries_;
    std::vector<uint32_t> hashes_;   // upper half of each entry's hash
    std::vector<uint32_t> slots_;    // entry index + 1, 0 = empty
    std::vector<std::string> made_;
};

// ---------------------------------------------------------------------------
// The synthetic nodes: the root, then one per root class, with a thread-stack
// node per thread of the snapshot (plus one for records naming no known
// thread). Records are bucketed by synthetic node with a counting sort so that
// each node's edges come out together.

struct SyntheticNodes {
    std::vector<std::string> names;       // [0] is the root
    std::vector<uint32_t> record_offset;  // per node: its records in `records`
    std::vector<uint32_t> records;        // snapshot.roots indexes, bucketed
    uint32_t unexplained_node = 0;        // its edges come from RootClasses
};

SyntheticNodes plan_synthetic_nodes(const Snapshot& s);

// ---------------------------------------------------------------------------
// Python objects → V8 node types, decided once per type.

enum class TypeStyle : uint8_t { Object, String, Number, Closure, Code, Array };

TypeStyle style_of(std::string_view type_name);

}  // namespace refscope::exporting::detail
