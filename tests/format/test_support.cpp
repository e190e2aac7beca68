#include "test_support.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace refscope::testing {

using format::EdgeKind;
using format::RootKind;
using format::SectionId;

Snapshot make_small_snapshot() {
    Snapshot s;
    SnapshotHeader& h = s.header;
    h.probe_version = "0.1.0";
    h.python_version = "3.12.1 (main, Dec  8 2023, 05:40:51) [GCC 12.2.0]";
    h.python_hexversion = 0x030C01F0;
    h.python_build = "CPython release GCC 12.2.0";
    h.platform = "linux x86_64";
    h.pid = 4242;
    h.executable = "/usr/bin/python3";
    h.argv = {"app.py", "--size=3", "ünïcødé ✓", ""};
    h.time_unix_ns = 1'700'000'000'123'456'789;
    h.collected_first = true;
    h.sequence = 7;
    h.label = "after warm-up — 日本語";
    h.walk_ns = 12'345'678;

    auto str = [&](const char* text) { return s.strings.add(text); };
    const uint32_t builtins = str("builtins");
    const uint32_t app = str("app");
    s.types.push_back({str("type"), builtins, 0x7f0000001000});
    s.types.push_back({str("dict"), builtins, 0x7f0000002000});
    s.types.push_back({str("list"), builtins, 0x7f0000003000});
    s.types.push_back({str("str"), builtins, 0x7f0000004000});
    s.types.push_back({str("function"), builtins, 0x7f0000005000});
    s.types.push_back({str("app.Leaky"), app, 0x55550000a000});
    s.types.push_back({str("Ωmega"), app, 0});

    // Node 0: a static type; 1: module dict; 2..11: strs (keys); 12: list;
    // 13..40: instances; 41: function; 42: a native node.
    s.add_node(0x7f0000001000, 0, 920, 1'000'000'000,
               format::kNodeTypeObject | format::kNodeStaticType | format::kNodeImmortal,
               str("type"));
    s.add_node(0x7f12'3456'7890, 1, 2272, 3, format::kNodeGcTracked, str("dict[10]"));
    for (int i = 0; i < 10; ++i) {
        s.add_node(0x7f12'0000'0000 + 48 * static_cast<uint64_t>(i), 3,
                   55 + static_cast<uint64_t>(i), 1 + i % 3, 0,
                   str(("key_" + std::to_string(i) + (i == 3 ? " ☃" : "")).c_str()));
    }
    s.add_node(0x7f12'0000'1000, 2, 56 + 8 * 28, 1, format::kNodeGcTracked, str("list[28]"));
    for (int i = 0; i < 28; ++i) {
        s.add_node(0x7f12'0001'0000 + 64 * static_cast<uint64_t>(i), 5, 48, i == 5 ? -2 : 1,
                   format::kNodeGcTracked,
                   i % 5 == 0 ? str(("rec-" + std::to_string(10000 + i)).c_str()) : 0);
    }
    const uint32_t fn =
        s.add_node(0x7f12'0002'0008, 4, 152, 2, format::kNodeGcTracked, str("main"));
    const uint32_t native = s.add_node(0x5555'dead'beef, 6, 1 << 20, 1, format::kNodeNative, 0);

    // Module dict 1: DictKey + DictValue pairs (value labelled by its key node).
    for (uint32_t i = 0; i < 10; ++i) {
        s.add_edge(1, 2 + i, EdgeKind::DictKey, format::kEdgeOwned | format::kEdgeGcVisible, 0);
        s.add_edge(1, 13 + i, EdgeKind::DictValue, format::kEdgeOwned | format::kEdgeGcVisible,
                   2 + i);
    }
    s.add_edge(1, 12, EdgeKind::DictValue, format::kEdgeOwned | format::kEdgeGcVisible, 11);
    for (uint32_t i = 0; i < 28; ++i)
        s.add_edge(12, 13 + i, EdgeKind::Index, format::kEdgeOwned | format::kEdgeGcVisible, i);
    // Instances: an attribute, a slot, a reference with a skipped position.
    s.add_edge(13, 2, EdgeKind::Attribute, format::kEdgeOwned, 2);
    s.add_edge(13, 14, EdgeKind::Slot, format::kEdgeOwned | format::kEdgeGcVisible,
               str("__slots__ item ✓"));
    s.add_edge(14, 0, EdgeKind::Reference, format::kEdgeOwned | format::kEdgeGcVisible, 3);
    s.add_edge(14, 15, EdgeKind::Reference, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    s.add_edge(15, 15, EdgeKind::SetMember, format::kEdgeOwned | format::kEdgeGcVisible, 0);
    s.add_edge(16, 17, EdgeKind::Weak, 0, 0);
    s.add_edge(17, native, EdgeKind::Native, format::kEdgeOwned, str("std::shared_ptr<Buffer>"));
    s.add_edge(fn, 1, EdgeKind::Field, format::kEdgeOwned | format::kEdgeGcVisible,
               str("__globals__"));
    s.add_edge(fn, 40, EdgeKind::Local, format::kEdgeOwned, str("x"));
    s.add_edge(fn, 0, EdgeKind::Index, 0, 4'000'000'000u);  // a label far from its position
    s.add_edge(native, 18, EdgeKind::Native, format::kEdgeOwned, str("Buffer::owner"));

    const uint32_t main_name = str("MainThread");
    s.threads.push_back({140'000'000'001, main_name, true});
    s.threads.push_back({140'000'000'002, str("worker-1 🧵"), false});
    s.roots.push_back({0, RootKind::Interpreter, kNoNode, 0, 0});
    s.roots.push_back({1, RootKind::Interpreter, kNoNode, str("sys.modules['app'].__dict__"), 1});
    s.roots.push_back(
        {40, RootKind::ThreadStack, 1, str("thread worker-1, frame app.py:12 in run, local x"), 2});
    s.roots.push_back({native, RootKind::Extension, kNoNode, str("registry"), 1});
    s.roots.push_back({fn, RootKind::ThreadStack, 0, main_name, 1});

    return s;
}

void add_allocation_sites(Snapshot& s) {
    const auto str = [&](std::string_view text) { return s.strings.add(text); };
    uint32_t fn = 0;  // the function object `main`
    while (fn < s.node_count() && s.strings.view(s.node_preview[fn]) != "main") ++fn;
    // Two tracebacks sharing a frame; a few nodes traced.
    AllocationSites& a = s.allocations;
    a.traceback_limit = 8;
    a.frames.push_back({str("app/views.py"), 12, str("create_order")});
    a.frames.push_back({str("app/urls.py"), 40, str("dispatch")});
    a.frames.push_back({str("<frozen runpy>"), 88, 0});  // no function found
    const uint32_t orders = a.add_traceback({0, 1, 2});
    const uint32_t other = a.add_traceback({1});
    a.node_traceback.assign(s.node_count(), 0);
    a.node_traceback[1] = orders + 1;
    a.node_traceback[40] = orders + 1;
    a.node_traceback[fn] = other + 1;
}

Snapshot make_every_feature_snapshot() {
    Snapshot s = make_small_snapshot();
    add_allocation_sites(s);
    // 1.1: the Types section's flags column.
    s.types[1].flags = format::kTypeFactsRecorded | format::kTypeHasGc;
    s.types[5].flags = format::kTypeFactsRecorded | format::kTypeHasGc | format::kTypeDescribed |
                       format::kTypeBound;
    // 1.3: an extension type object and an inferred edge (the native node's
    // last edge, to an instance, found by reading the holder's memory).
    s.node_flags[0] |= format::kNodeExtensionType;
    s.edge_flags.back() |= format::kEdgeInferred;
    return s;
}

// ------------------------------------------------------------ forging ----

namespace {

using Bytes = std::vector<uint8_t>;

void varint(Bytes& b, uint64_t v) { format::append_varint(b, v); }
void zigzag(Bytes& b, int64_t v) { format::append_varint(b, format::zigzag_encode(v)); }
void text(Bytes& b, const std::string& s) {
    varint(b, s.size());
    b.insert(b.end(), s.begin(), s.end());
}

void section(Bytes& out, SectionId id, const Bytes& payload) {
    format::SectionFrame f;
    f.id = static_cast<uint16_t>(id);
    f.flags = id == SectionId::Allocations ? 0 : format::kSectionRequired;
    f.stored_bytes = payload.size();
    f.raw_bytes = payload.size();
    f.crc32c = format::crc32c(payload.data(), payload.size());
    uint8_t frame[format::kSectionFrameBytes];
    format::store_frame(frame, f);
    out.insert(out.end(), frame, frame + sizeof frame);
    out.insert(out.end(), payload.begin(), payload.end());
}

}  // namespace

std::vector<uint8_t> forge_snapshot(const Snapshot& s, uint16_t major, uint16_t minor) {
    Bytes out(format::kMagic, format::kMagic + 8);
    out.resize(format::kPreambleBytes);
    format::store_le16(out.data() + 8, major);
    format::store_le16(out.data() + 10, minor);

    const SnapshotHeader& h = s.header;
    Bytes p;
    auto field_str = [&](format::HeaderTag tag, const std::string& v) {
        varint(p, static_cast<uint32_t>(tag));
        text(p, v);
    };
    auto field_int = [&](format::HeaderTag tag, uint64_t v) {
        Bytes tmp;
        varint(tmp, v);
        varint(p, static_cast<uint32_t>(tag));
        varint(p, tmp.size());
        p.insert(p.end(), tmp.begin(), tmp.end());
    };
    field_str(format::HeaderTag::ProbeVersion, h.probe_version);
    field_str(format::HeaderTag::PythonVersion, h.python_version);
    field_int(format::HeaderTag::PythonHexVersion, h.python_hexversion);
    field_str(format::HeaderTag::PythonBuild, h.python_build);
    field_str(format::HeaderTag::Platform, h.platform);
    field_int(format::HeaderTag::Pid, format::zigzag_encode(h.pid));
    field_str(format::HeaderTag::Executable, h.executable);
    Bytes argv;
    varint(argv, h.argv.size());
    for (const auto& a : h.argv) text(argv, a);
    field_str(format::HeaderTag::Argv, std::string(argv.begin(), argv.end()));
    field_int(format::HeaderTag::TimeUnixNs, format::zigzag_encode(h.time_unix_ns));
    field_int(format::HeaderTag::CollectedFirst, h.collected_first);
    field_int(format::HeaderTag::Sequence, h.sequence);
    field_str(format::HeaderTag::Label, h.label);
    field_int(format::HeaderTag::WalkNs, h.walk_ns);
    section(out, SectionId::Header, p);

    p.clear();
    const uint32_t n_strings = static_cast<uint32_t>(s.strings.size());
    varint(p, n_strings);
    for (uint32_t i = 1; i < n_strings; ++i) varint(p, s.strings.view(i).size());
    for (uint32_t i = 1; i < n_strings; ++i) p.insert(p.end(), s.strings.view(i).begin(), s.strings.view(i).end());
    section(out, SectionId::Strings, p);

    p.clear();
    varint(p, s.types.size());
    for (const auto& t : s.types) varint(p, t.name);
    for (const auto& t : s.types) varint(p, t.module);
    for (const auto& t : s.types) varint(p, t.type_address);
    if (minor >= 1)  // 1.1: a byte of kType* flags per type
        for (const auto& t : s.types) p.push_back(t.flags);
    section(out, SectionId::Types, p);

    p.clear();
    const size_t n = s.node_count();
    varint(p, n);
    unsigned shift = 0;  // the number of low zero bits common to all addresses
    uint64_t all = 0;
    for (uint64_t a : s.node_address) all |= a;
    while (all && !(all & (uint64_t{1} << shift))) ++shift;
    varint(p, shift);
    uint64_t prev = 0;
    for (uint64_t a : s.node_address) {
        zigzag(p, static_cast<int64_t>((a >> shift) - prev));
        prev = a >> shift;
    }
    for (auto t : s.node_type) varint(p, t);
    for (auto z : s.node_size) varint(p, z);
    for (auto r : s.node_refcount) zigzag(p, r);
    p.insert(p.end(), s.node_flags.begin(), s.node_flags.end());
    int64_t last_preview = 0;
    for (uint32_t v : s.node_preview) {
        if (v == 0) {
            varint(p, 0);
        } else {
            varint(p, format::zigzag_encode(int64_t{v} - last_preview) + 1);
            last_preview = v;
        }
    }
    section(out, SectionId::Nodes, p);

    p.clear();
    varint(p, s.edge_count());
    std::vector<uint64_t> degree(n, 0);
    for (uint32_t src : s.edge_source)
        if (src < n) ++degree[src];
    for (uint64_t d : degree) varint(p, d);
    for (size_t k = 0; k < s.edge_count(); ++k)
        zigzag(p, int64_t{s.edge_target[k]} - int64_t{s.edge_source[k]});
    p.insert(p.end(), s.edge_kind.begin(), s.edge_kind.end());
    p.insert(p.end(), s.edge_flags.begin(), s.edge_flags.end());
    int64_t position = 0;
    for (size_t k = 0; k < s.edge_count(); ++k) {
        position = (k > 0 && s.edge_source[k] == s.edge_source[k - 1]) ? position + 1 : 0;
        const uint8_t kind = s.edge_kind[k];
        if (kind == uint8_t(EdgeKind::Index) || kind == uint8_t(EdgeKind::Reference))
            zigzag(p, int64_t{s.edge_label[k]} - position);
        else
            varint(p, s.edge_label[k]);
    }
    section(out, SectionId::Edges, p);

    p.clear();
    varint(p, s.roots.size());
    for (const auto& r : s.roots) varint(p, r.node);
    for (const auto& r : s.roots) p.push_back(static_cast<uint8_t>(r.kind));
    for (const auto& r : s.roots) varint(p, r.thread == kNoNode ? 0 : uint64_t{r.thread} + 1);
    for (const auto& r : s.roots) varint(p, r.label);
    for (const auto& r : s.roots) varint(p, r.count);
    section(out, SectionId::Roots, p);

    p.clear();
    varint(p, s.threads.size());
    for (const auto& t : s.threads) varint(p, t.ident);
    for (const auto& t : s.threads) varint(p, t.name);
    for (const auto& t : s.threads) p.push_back(t.is_main ? 1 : 0);
    section(out, SectionId::Threads, p);

    const AllocationSites& a = s.allocations;
    if (!a.node_traceback.empty() && minor >= 2) {
        p.clear();
        varint(p, a.traceback_limit);
        varint(p, a.frames.size());
        for (const auto& f : a.frames) varint(p, f.file);
        for (const auto& f : a.frames) varint(p, f.line);
        for (const auto& f : a.frames) varint(p, f.function);
        const size_t t = a.traceback_start.empty() ? 0 : a.traceback_start.size() - 1;
        varint(p, t);
        for (size_t i = 0; i < t; ++i) varint(p, a.traceback_start[i + 1] - a.traceback_start[i]);
        for (const uint32_t f : a.traceback_frames) varint(p, f);
        varint(p, a.node_traceback.size());
        for (const uint32_t tb : a.node_traceback) varint(p, tb);
        section(out, SectionId::Allocations, p);
    }

    section(out, SectionId::End, {});
    return out;
}

// ----------------------------------------------------------- sections ----

RawFile split_sections(const std::vector<uint8_t>& bytes) {
    if (bytes.size() < format::kPreambleBytes)
        throw std::runtime_error("split_sections: too short");
    RawFile file;
    file.major = format::load_le16(bytes.data() + 8);
    file.minor = format::load_le16(bytes.data() + 10);
    size_t at = format::kPreambleBytes;
    while (at < bytes.size()) {
        if (bytes.size() - at < format::kSectionFrameBytes)
            throw std::runtime_error("split_sections: cut frame");
        RawSection s;
        s.frame = format::load_frame(bytes.data() + at);
        at += format::kSectionFrameBytes;
        if (s.frame.stored_bytes > bytes.size() - at)
            throw std::runtime_error("split_sections: cut payload");
        s.payload.assign(bytes.begin() + static_cast<ptrdiff_t>(at),
                         bytes.begin() + static_cast<ptrdiff_t>(at + s.frame.stored_bytes));
        at += s.frame.stored_bytes;
        file.sections.push_back(std::move(s));
    }
    return file;
}

std::vector<uint8_t> join_sections(const RawFile& file) {
    std::vector<uint8_t> out(format::kMagic, format::kMagic + 8);
    out.resize(format::kPreambleBytes);
    format::store_le16(out.data() + 8, file.major);
    format::store_le16(out.data() + 10, file.minor);
    for (const RawSection& s : file.sections) {
        uint8_t frame[format::kSectionFrameBytes];
        format::store_frame(frame, s.frame);
        out.insert(out.end(), frame, frame + sizeof frame);
        out.insert(out.end(), s.payload.begin(), s.payload.end());
    }
    return out;
}

void set_payload(RawSection& section, std::vector<uint8_t> payload) {
    section.payload = std::move(payload);
    section.frame.stored_bytes = section.payload.size();
    if (!(section.frame.flags & format::kSectionZstd))
        section.frame.raw_bytes = section.payload.size();
    section.frame.crc32c = format::crc32c(section.payload.data(), section.payload.size());
}

std::vector<uint8_t> with_unreadable_edge_columns(const std::vector<uint8_t>& uncompressed) {
    RawFile file = split_sections(uncompressed);
    RawSection& edges = find_section(file, SectionId::Edges);
    if (edges.frame.flags & format::kSectionZstd)
        throw std::runtime_error("with_unreadable_edge_columns: the Edges section is compressed");
    std::vector<uint8_t> payload = edges.payload;
    uint64_t count = 0;
    const size_t count_bytes = format::get_varint(payload.data(), payload.data() + payload.size(), count);
    std::fill(payload.begin() + static_cast<ptrdiff_t>(count_bytes), payload.end(), uint8_t{0xFF});
    set_payload(edges, std::move(payload));
    return join_sections(file);
}

RawSection& find_section(RawFile& file, SectionId id) {
    for (RawSection& s : file.sections)
        if (s.frame.id == static_cast<uint16_t>(id)) return s;
    throw std::runtime_error("find_section: no section " +
                             std::to_string(static_cast<unsigned>(id)));
}

void mutate_bytes(std::vector<uint8_t>& b, std::mt19937_64& rng, bool may_cut) {
    auto pick = [&](size_t n) { return n ? static_cast<size_t>(rng() % n) : 0; };
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits; ++i) {
        const size_t at = pick(b.size());
        switch (rng() % (may_cut ? 6 : 5)) {
            case 0:
                if (!b.empty()) b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
                break;
            case 1:
                if (!b.empty()) b[at] = static_cast<uint8_t>(rng());
                break;
            case 2:
                b.insert(b.begin() + static_cast<ptrdiff_t>(at), static_cast<uint8_t>(rng()));
                break;
            case 3:
                if (!b.empty()) b.erase(b.begin() + static_cast<ptrdiff_t>(at));
                break;
            case 4: {
                const uint8_t edge[] = {0x00, 0x7F, 0x80, 0xFF};
                if (!b.empty()) b[at] = edge[rng() % 4];
                break;
            }
            case 5:  // only with may_cut
                b.resize(at);
                break;
        }
    }
}

bool save_test_file(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes) {
    const std::string path = dir + "/" + name;
    // A checked-in file pins what the writer of its day wrote (good-v1.rscope
    // is format 1.0): it is never rewritten, only missing files are made.
    if (std::FILE* existing = std::fopen(path.c_str(), "rb")) {
        std::fclose(existing);
        std::printf("%-32s kept\n", name);
        return true;
    }
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return false;
    }
    std::printf("%-32s %8zu bytes\n", name, bytes.size());
    return true;
}

}  // namespace refscope::testing
