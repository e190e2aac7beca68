// GoogleTest helpers for the format tests: field-by-field snapshot equality
// that reports the first difference instead of dumping million-entry columns,
// and a check that decoding fails with a given code.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "refscope/format/snapshot_io.h"

namespace refscope::testing {

template <typename T>
::testing::AssertionResult same_column(const char* name, const T& a, const T& b) {
    if (a.size() != b.size())
        return ::testing::AssertionFailure()
               << name << ": sizes " << a.size() << " != " << b.size();
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i]))
            return ::testing::AssertionFailure() << name << ": first difference at " << i;
    return ::testing::AssertionSuccess();
}

// The table's strings as a column (same_column reports the first that differs).
inline std::vector<std::string_view> string_column(const StringTable& t) {
    std::vector<std::string_view> out(t.size());
    for (uint32_t i = 0; i < out.size(); ++i) out[i] = t.view(i);
    return out;
}

// Each edge's source, whichever way the snapshot holds them (the reader
// gives first-edge offsets, hand-built snapshots a per-edge column).
inline std::vector<uint32_t> edge_sources(const Snapshot& s) {
    // A malformed hand-built snapshot: its column as it is, so the sizes differ.
    if (s.edge_first.empty() && s.edge_source.size() != s.edge_count()) return s.edge_source;
    std::vector<uint32_t> out(s.edge_count());
    for (size_t e = 0; e < out.size(); ++e) out[e] = s.source_of(static_cast<uint32_t>(e));
    return out;
}

inline ::testing::AssertionResult same_snapshot(const Snapshot& a, const Snapshot& b) {
    const SnapshotHeader& x = a.header;
    const SnapshotHeader& y = b.header;
    if (x.probe_version != y.probe_version || x.python_version != y.python_version ||
        x.python_hexversion != y.python_hexversion || x.python_build != y.python_build ||
        x.platform != y.platform || x.pid != y.pid || x.executable != y.executable ||
        x.argv != y.argv || x.time_unix_ns != y.time_unix_ns ||
        x.collected_first != y.collected_first || x.sequence != y.sequence || x.label != y.label ||
        x.walk_ns != y.walk_ns)
        return ::testing::AssertionFailure() << "headers differ";
    std::vector<uint64_t> ta, tb;
    for (const auto& t : a.types) ta.insert(ta.end(), {t.name, t.module, t.type_address, t.flags});
    for (const auto& t : b.types) tb.insert(tb.end(), {t.name, t.module, t.type_address, t.flags});
    std::vector<uint64_t> ra, rb;
    for (const auto& r : a.roots)
        ra.insert(ra.end(), {r.node, uint64_t(r.kind), r.thread, r.label, r.count});
    for (const auto& r : b.roots)
        rb.insert(rb.end(), {r.node, uint64_t(r.kind), r.thread, r.label, r.count});
    std::vector<uint64_t> ha, hb;
    for (const auto& t : a.threads) ha.insert(ha.end(), {t.ident, t.name, uint64_t(t.is_main)});
    for (const auto& t : b.threads) hb.insert(hb.end(), {t.ident, t.name, uint64_t(t.is_main)});
    std::vector<uint64_t> fa, fb;
    for (const auto& f : a.allocations.frames) fa.insert(fa.end(), {f.file, f.line, f.function});
    for (const auto& f : b.allocations.frames) fb.insert(fb.end(), {f.file, f.line, f.function});
    if (a.allocations.traceback_limit != b.allocations.traceback_limit)
        return ::testing::AssertionFailure() << "allocation traceback limits differ";
    ::testing::AssertionResult results[] = {
        same_column("strings", string_column(a.strings), string_column(b.strings)),
        same_column("types", ta, tb),
        same_column("node_address", a.node_address, b.node_address),
        same_column("node_type", a.node_type, b.node_type),
        same_column("node_size", a.node_size, b.node_size),
        same_column("node_refcount", a.node_refcount, b.node_refcount),
        same_column("node_flags", a.node_flags, b.node_flags),
        same_column("node_preview", a.node_preview, b.node_preview),
        same_column("edge sources", edge_sources(a), edge_sources(b)),
        same_column("edge_target", a.edge_target, b.edge_target),
        same_column("edge_kind", a.edge_kind, b.edge_kind),
        same_column("edge_flags", a.edge_flags, b.edge_flags),
        same_column("edge_label", a.edge_label, b.edge_label),
        same_column("roots", ra, rb),
        same_column("threads", ha, hb),
        same_column("allocation frames", fa, fb),
        same_column("traceback starts", a.allocations.traceback_start, b.allocations.traceback_start),
        same_column("traceback frames", a.allocations.traceback_frames, b.allocations.traceback_frames),
        same_column("node tracebacks", a.allocations.node_traceback, b.allocations.node_traceback),
    };
    for (auto& r : results)
        if (!r) return r;
    return ::testing::AssertionSuccess();
}

// Decodes `bytes`, expecting a ReadError with `code`; returns its message
// ("" and a test failure if decoding succeeded or failed otherwise).
inline std::string expect_read_error(const std::vector<uint8_t>& bytes,
                                     format::ReadErrorCode code) {
    try {
        format::decode_snapshot(bytes.data(), bytes.size());
        ADD_FAILURE() << "decoded without error; expected " << format::to_string(code);
    } catch (const format::ReadError& e) {
        EXPECT_EQ(format::to_string(e.code()), std::string(format::to_string(code))) << e.what();
        return e.what();
    }
    return {};
}

}  // namespace refscope::testing
