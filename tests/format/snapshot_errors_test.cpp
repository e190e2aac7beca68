// Every way a snapshot can be wrong, each with the ReadErrorCode it must map
// to and a message that names what is wrong and where.
#include <gtest/gtest.h>

#include <functional>

#include <random>

#include "snapshot_compare.h"
#include "test_support.h"

namespace refscope::testing {
namespace {

using format::ReadErrorCode;
using format::SectionId;

std::vector<uint8_t> small_raw() {
    return format::encode_snapshot(make_small_snapshot(), {false, 0});
}
RawFile small_sections() { return split_sections(small_raw()); }

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A payload builder for hand-made sections.
struct Payload {
    std::vector<uint8_t> bytes;
    Payload& v(uint64_t x) {
        format::append_varint(bytes, x);
        return *this;
    }
    Payload& b(uint8_t x) {
        bytes.push_back(x);
        return *this;
    }
};

TEST(ReadErrors, BadMagic) {
    std::vector<uint8_t> bytes = small_raw();
    bytes[1] = 'X';
    EXPECT_TRUE(contains(expect_read_error(bytes, ReadErrorCode::BadMagic), "bad magic"));
    const std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
    expect_read_error(text, ReadErrorCode::BadMagic);
    // CRLF -> LF conversion damages the magic's last two bytes.
    bytes = small_raw();
    bytes[6] = '\n';
    expect_read_error(bytes, ReadErrorCode::BadMagic);
}

// A newer major is refused naming the refscope that wrote it (its Header's
// version field), compressed Header or not.
TEST(ReadErrors, NewerMajorNamesTheRefscopeThatReadsIt) {
    Snapshot later = make_small_snapshot();
    later.header.probe_version = "2.4.1";
    for (bool compress : {false, true}) {
        RawFile f = split_sections(format::encode_snapshot(later, {compress, 19}));
        f.major = format::kFormatMajor + 1;
        f.minor = 5;
        EXPECT_EQ(expect_read_error(join_sections(f), ReadErrorCode::NewerVersion),
                  "written by refscope 2.4.1 (format 2.5); this reader supports format 1.x: open it "
                  "with refscope 2.4.1 or later");
    }
}

// When the newer file's Header cannot tell (damaged, not first, or a version
// that is not short printable text), the advice is generic.
TEST(ReadErrors, NewerMajorWithoutAReadableVersionAdvisesAnUpgrade) {
    const std::string generic = "written by refscope format 2.x; this reader supports 1.x: upgrade refscope";
    Snapshot odd = make_small_snapshot();
    odd.header.probe_version = "2.0\n; rm -rf";
    RawFile f = split_sections(format::encode_snapshot(odd, {false, 0}));
    f.major = format::kFormatMajor + 1;
    EXPECT_EQ(expect_read_error(join_sections(f), ReadErrorCode::NewerVersion), generic);

    f = small_sections();
    f.major = format::kFormatMajor + 1;
    find_section(f, format::SectionId::Header).payload[2] ^= 0x40;  // CRC left as it was
    EXPECT_EQ(expect_read_error(join_sections(f), ReadErrorCode::NewerVersion), generic);

    f = small_sections();
    f.major = format::kFormatMajor + 1;
    std::swap(f.sections[0], f.sections[1]);  // Strings first
    EXPECT_EQ(expect_read_error(join_sections(f), ReadErrorCode::NewerVersion), generic);
}

TEST(ReadErrors, OlderMajorIsRefused) {
    RawFile f = small_sections();
    f.major = format::kOldestReadableMajor - 1;
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::OlderVersion), "0.x"));
}

TEST(Versioning, NewerMinorWithUnknownOptionalPartsReads) {
    RawFile f = small_sections();
    f.minor = format::kFormatMinor + 1;
    // An unknown optional section, the reserved NativeNodes id, a trailing
    // column in Nodes and an unknown header field: all skipped.
    RawSection extra;
    extra.frame.id = 0x0100;
    set_payload(extra, {1, 2, 3});
    f.sections.insert(f.sections.begin() + 3, extra);
    RawSection native;
    native.frame.id = static_cast<uint16_t>(SectionId::NativeNodes);
    set_payload(native, {9, 9});
    f.sections.insert(f.sections.begin() + 6, native);
    RawSection& nodes = find_section(f, SectionId::Nodes);
    std::vector<uint8_t> p = nodes.payload;
    p.insert(p.end(), {0xAA, 0xBB});
    set_payload(nodes, p);
    RawSection& header = find_section(f, SectionId::Header);
    p = header.payload;
    p.insert(p.end(), {99, 2, 'h', 'i'});
    set_payload(header, p);
    const std::vector<uint8_t> bytes = join_sections(f);
    const Snapshot s = format::decode_snapshot(bytes.data(), bytes.size());
    EXPECT_TRUE(same_snapshot(make_small_snapshot(), s));
    EXPECT_EQ(s.header.format_minor, format::kFormatMinor + 1);
}

TEST(Versioning, UnknownOptionalSectionIsSkippedAtTheSameMinor) {
    RawFile f = small_sections();
    RawSection extra;
    extra.frame.id = 0x0200;
    extra.frame.flags = format::kSectionZstd;  // its encoding does not matter: never read
    set_payload(extra, {0xDE, 0xAD});
    f.sections.insert(f.sections.begin() + 1, extra);
    const std::vector<uint8_t> bytes = join_sections(f);
    EXPECT_TRUE(
        same_snapshot(make_small_snapshot(), format::decode_snapshot(bytes.data(), bytes.size())));
}

TEST(Versioning, UnknownRequiredSection) {
    RawFile f = small_sections();
    RawSection extra;
    extra.frame.id = 0x0100;
    extra.frame.flags = format::kSectionRequired;
    set_payload(extra, {1});
    f.sections.insert(f.sections.begin() + 2, extra);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "section 256"));
    f.minor = format::kFormatMinor + 1;
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::NewerVersion), "upgrade"));
}

TEST(Versioning, TrailingBytesInAKnownSectionAtTheSameMinor) {
    RawFile f = small_sections();
    RawSection& roots = find_section(f, SectionId::Roots);
    std::vector<uint8_t> p = roots.payload;
    p.push_back(0);
    set_payload(roots, p);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "Roots section"));
}

TEST(ReadErrors, TruncatedAtSectionBoundaryHasNoEnd) {
    RawFile f = small_sections();
    f.sections.pop_back();
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Truncated), "no End section"));
}

TEST(ReadErrors, BadPayloadChecksum) {
    std::vector<uint8_t> bytes = small_raw();
    bytes[bytes.size() / 2] ^= 0x10;
    expect_read_error(bytes, ReadErrorCode::BadChecksum);
    RawFile f = small_sections();
    find_section(f, SectionId::Types).frame.crc32c ^= 1;
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::BadChecksum),
                         "Types section (frame at offset"));
}

TEST(ReadErrors, DamagedFrameIsABadChecksum) {
    std::vector<uint8_t> bytes = small_raw();
    bytes[format::kPreambleBytes + 7] ^= 0x01;  // a bit in the Header's stored length
    EXPECT_TRUE(contains(expect_read_error(bytes, ReadErrorCode::BadChecksum), "frame checksum"));
}

TEST(ReadErrors, BadVarint) {
    RawFile f = small_sections();
    // Eleven continuation bytes where the Types count should be.
    set_payload(find_section(f, SectionId::Types), std::vector<uint8_t>(11, 0x80));
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt),
                         "bad varint in type count"));
    // A 10th byte with bits beyond 64.
    // (Built at its final size: GCC 16 warns, wrongly, on a push_back past 9.)
    std::vector<uint8_t> p(10, 0xFF);
    p.back() = 0x02;
    set_payload(find_section(f, SectionId::Types), p);
    expect_read_error(join_sections(f), ReadErrorCode::Corrupt);
    // A varint cut by the end of the section.
    set_payload(find_section(f, SectionId::Types), {0x80});
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt),
                         "ends inside type count"));
}

TEST(ReadErrors, CountsOverTheLimitAreTooLarge) {
    RawFile f = small_sections();
    set_payload(find_section(f, SectionId::Nodes), Payload().v(uint64_t{1} << 40).v(4).bytes);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::TooLarge),
                         "node count 1099511627776"));
    f = small_sections();
    set_payload(find_section(f, SectionId::Edges), Payload().v(format::kMaxCount + 1).bytes);
    expect_read_error(join_sections(f), ReadErrorCode::TooLarge);
    f = small_sections();
    set_payload(find_section(f, SectionId::Strings), Payload().v(uint64_t{1} << 62).bytes);
    expect_read_error(join_sections(f), ReadErrorCode::TooLarge);
}

TEST(ReadErrors, CountsBeyondTheSectionBytesAreRefusedBeforeAllocating) {
    // Within the limits but more elements than the section has bytes: this
    // must fail without allocating 2^31 nodes.
    for (SectionId id : {SectionId::Nodes, SectionId::Types, SectionId::Roots, SectionId::Threads,
                         SectionId::Strings, SectionId::Edges}) {
        RawFile f = small_sections();
        set_payload(find_section(f, id), Payload().v(format::kMaxCount - 1).v(0).v(0).bytes);
        SCOPED_TRACE(format::section_name(static_cast<uint16_t>(id)));
        EXPECT_TRUE(
            contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "remain"));
    }
}

TEST(ReadErrors, SectionLengthsOverTheLimitAreTooLarge) {
    RawFile f = small_sections();
    find_section(f, SectionId::Nodes).frame.stored_bytes = uint64_t{1} << 60;
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::TooLarge), "Nodes section"));
    f = small_sections();
    RawSection& edges = find_section(f, SectionId::Edges);
    edges.frame.flags |= format::kSectionZstd;
    edges.frame.raw_bytes = format::kMaxSectionBytes + 1;
    expect_read_error(join_sections(f), ReadErrorCode::TooLarge);
}

TEST(ReadErrors, TooManySections) {
    RawFile f = small_sections();
    RawSection extra;
    extra.frame.id = 0x0300;
    set_payload(extra, {});
    f.sections.insert(f.sections.begin(), format::kMaxSections, extra);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::TooLarge), "sections"));
}

TEST(ReadErrors, StringOverTheLimitIsTooLarge) {
    RawFile f = small_sections();
    Payload p;
    p.v(2).v(format::kMaxStringBytes + 1);
    p.bytes.resize(p.bytes.size() + format::kMaxStringBytes + 1, 'x');
    set_payload(find_section(f, SectionId::Strings), p.bytes);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::TooLarge),
                         "string of 1048577 bytes"));
    // The same in a header field.
    f = small_sections();
    Payload h;
    h.v(static_cast<uint32_t>(format::HeaderTag::Label)).v(format::kMaxStringBytes + 1);
    h.bytes.resize(h.bytes.size() + format::kMaxStringBytes + 1, 'y');
    set_payload(find_section(f, SectionId::Header), h.bytes);
    expect_read_error(join_sections(f), ReadErrorCode::TooLarge);
}

TEST(ReadErrors, DecompressedSizeMismatch) {
    const std::vector<uint8_t> packed = format::encode_snapshot(make_synthetic_heap(2'000, 5));
    for (int delta : {-1, +1}) {
        RawFile f = split_sections(packed);
        RawSection& nodes = find_section(f, SectionId::Nodes);
        ASSERT_TRUE(nodes.frame.flags & format::kSectionZstd);
        nodes.frame.raw_bytes =
            static_cast<uint64_t>(static_cast<int64_t>(nodes.frame.raw_bytes) + delta);
        EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Decompress),
                             "Nodes section"));
    }
    // Uncompressed sections must declare equal lengths.
    RawFile f = small_sections();
    find_section(f, SectionId::Types).frame.raw_bytes += 1;
    expect_read_error(join_sections(f), ReadErrorCode::Corrupt);
}

TEST(ReadErrors, DecompressedSizeMismatchOnTheStreamingPath) {
    // Nearly constant columns (one refcount in 33 differs) compress more
    // than 64x, yet within the 256x bound (within_compression_bound): such
    // sections are decoded by the streaming path, whose buffer grows only
    // with real output.
    Snapshot s;
    s.types.push_back({0, 0, 0});
    std::mt19937_64 rng(3);
    for (uint32_t i = 0; i < 300'000; ++i) {
        s.add_node(0x1000 + 16 * uint64_t{i}, 0, 16, rng() % 33 == 0 ? 2 : 1, 0, 0);
    }
    const std::vector<uint8_t> packed = format::encode_snapshot(s);
    {
        RawFile f = split_sections(packed);
        const RawSection& nodes = find_section(f, SectionId::Nodes);
        ASSERT_TRUE(nodes.frame.flags & format::kSectionZstd);
        ASSERT_GT(nodes.frame.raw_bytes, 64 * nodes.frame.stored_bytes);
        ASSERT_GT(nodes.frame.raw_bytes, uint64_t{1} << 20);
        EXPECT_TRUE(same_snapshot(s, format::decode_snapshot(packed.data(), packed.size())));
    }
    for (int64_t delta : {int64_t{-1}, int64_t{1}, int64_t{1} << 30}) {
        RawFile f = split_sections(packed);
        RawSection& nodes = find_section(f, SectionId::Nodes);
        nodes.frame.raw_bytes = static_cast<uint64_t>(static_cast<int64_t>(nodes.frame.raw_bytes) + delta);
        // A gigabyte more is past the bound: refused before unpacking.
        const ReadErrorCode code = delta > 1 ? ReadErrorCode::TooLarge : ReadErrorCode::Decompress;
        EXPECT_TRUE(contains(expect_read_error(join_sections(f), code), "Nodes section"));
    }
}

TEST(ReadErrors, InvalidZstdData) {
    RawFile f = split_sections(format::encode_snapshot(make_synthetic_heap(2'000, 5)));
    RawSection& edges = find_section(f, SectionId::Edges);
    ASSERT_TRUE(edges.frame.flags & format::kSectionZstd);
    std::vector<uint8_t> p = edges.payload;
    p[0] ^= 0xFF;  // the zstd magic
    set_payload(edges, p);
    expect_read_error(join_sections(f), ReadErrorCode::Decompress);
    p = find_section(f, SectionId::Edges).payload;
    p[0] ^= 0xFF;
    p.resize(p.size() / 2);  // a cut frame with a valid section checksum
    set_payload(edges, p);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Decompress), "truncated"));
}

TEST(ReadErrors, OutOfRangeIdsWithValidChecksums) {
    struct Case {
        const char* what;
        void (*damage)(Snapshot&);
        const char* message;
    };
    const Case cases[] = {
        {"edge target", [](Snapshot& s) { s.edge_target[5] = 500; }, "Edges section"},
        {"edge label node", [](Snapshot& s) { s.edge_label.set(1, 999); }, "label (a node id) 999"},
        {"edge label string", [](Snapshot& s) { s.edge_label.set(s.edge_count() - 1, 9999); },
         "label (a string id)"},
        {"unused label", [](Snapshot& s) { s.edge_label.set(0, 1); }, "must be 0"},
        {"edge kind", [](Snapshot& s) { s.edge_kind[0] = 200; }, "unknown kind 200"},
        {"node type", [](Snapshot& s) { s.node_type[4] = 77; }, "node 4: type 77"},
        {"preview", [](Snapshot& s) { s.node_preview[4] = 5000; }, "node 4: preview 5000"},
        {"type name", [](Snapshot& s) { s.types[1].name = 4000; }, "Types section"},
        {"root node", [](Snapshot& s) { s.roots[1].node = 43; }, "root 1: node 43"},
        {"root thread", [](Snapshot& s) { s.roots[2].thread = 2; }, "root 2: thread 2"},
        {"root kind", [](Snapshot& s) { s.roots[2].kind = static_cast<format::RootKind>(3); },
         "unknown kind 3"},
        {"root label", [](Snapshot& s) { s.roots[0].label = 123456; }, "Roots section"},
        {"thread name", [](Snapshot& s) { s.threads[0].name = 999; }, "Threads section"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        Snapshot s = make_small_snapshot();
        c.damage(s);
        EXPECT_TRUE(
            contains(expect_read_error(forge_snapshot(s), ReadErrorCode::Corrupt), c.message));
    }
}

// Allocation sites whose ids point nowhere, a node column of the wrong
// length and an empty traceback are refused with one clear message.
TEST(ReadErrors, BadAllocationSections) {
    const auto refused = [](const std::function<void(AllocationSites&)>& damage, const char* expected) {
        Snapshot s = make_small_snapshot();
        add_allocation_sites(s);
        damage(s.allocations);
        const std::string message = expect_read_error(forge_snapshot(s), ReadErrorCode::Corrupt);
        EXPECT_NE(message.find("Allocations section"), std::string::npos) << message;
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    };
    refused([](AllocationSites& a) { a.node_traceback[1] = 99; }, "traceback 98 is out of range");
    refused([](AllocationSites& a) { a.traceback_frames[0] = 50; }, "frame 50 is out of range");
    refused([](AllocationSites& a) { a.frames[0].file = 1'000'000; }, "file 1000000 is out of range");
    refused([](AllocationSites& a) { a.node_traceback.pop_back(); }, "differs from the");
    refused([](AllocationSites& a) { a.traceback_start.insert(a.traceback_start.begin() + 1, 0); },
            "has no frames");
    refused([](AllocationSites& a) { a.traceback_start.back() = 1'000'000; }, "frames, more than the");
}

// An address is an object's identity (`path --to`, the comparison of two
// snapshots): 0 or one Python object twice is refused, by the reader and
// the writer alike. Native nodes may share an address across types.
TEST(ReadErrors, NullAndDuplicateAddresses) {
    const auto refused = [](const std::function<void(Snapshot&)>& damage, const char* expected) {
        Snapshot s = make_small_snapshot();
        damage(s);
        const std::string message = expect_read_error(forge_snapshot(s), ReadErrorCode::Corrupt);
        EXPECT_NE(message.find("Nodes section"), std::string::npos) << message;
        EXPECT_NE(message.find(expected), std::string::npos) << message;
        EXPECT_THROW(format::encode_snapshot(s), format::WriteError);
    };
    refused([](Snapshot& s) { s.node_address[5] = 0; }, "node 5: address 0");
    refused([](Snapshot& s) { s.node_address[7] = s.node_address[2]; }, "nodes 2 and 7 are both the object at 0x");
    {
        // The probe's writer skips the check (its walker's address map rules
        // a duplicate out, and the sort would run inside the target); the
        // reader still refuses what it wrote.
        Snapshot s = make_small_snapshot();
        s.node_address[7] = s.node_address[2];
        format::WriteOptions unchecked;
        unchecked.check_addresses = false;
        const std::vector<uint8_t> bytes = format::encode_snapshot(s, unchecked);
        EXPECT_THROW(format::decode_snapshot(bytes.data(), bytes.size()), format::ReadError);
    }

    Snapshot s = make_small_snapshot();
    uint32_t native = 0;
    while (!(s.node_flags[native] & format::kNodeNative)) ++native;
    // The same C++ object under a second type: accepted.
    const uint32_t other_type = s.node_type[native] == 0 ? 1 : 0;
    s.add_node(s.node_address[native], other_type, 0, 0, format::kNodeNative, 0);
    const std::vector<uint8_t> bytes = format::encode_snapshot(s);
    EXPECT_EQ(format::decode_snapshot(bytes.data(), bytes.size()).node_count(), s.node_count());
    // The same type twice: refused.
    s.add_node(s.node_address[native], s.node_type[native], 0, 0, format::kNodeNative, 0);
    expect_read_error(forge_snapshot(s), ReadErrorCode::Corrupt);
}

TEST(ReadErrors, OutDegreesThatDoNotAddUp) {
    // The reader's form of "edges not grouped by source": the out-degree
    // column disagrees with the edge count.
    RawFile f = small_sections();
    RawSection& edges = find_section(f, SectionId::Edges);
    std::vector<uint8_t> p = edges.payload;
    ASSERT_LT(p[0], 0x80);  // a one-byte edge count
    p[0] -= 1;
    set_payload(edges, p);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "out-degree"));
    p[0] += 2;
    set_payload(edges, p);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "Edges section"));
}

TEST(ReadErrors, MissingDuplicateAndMisorderedSections) {
    for (SectionId id : {SectionId::Header, SectionId::Strings, SectionId::Types, SectionId::Nodes,
                         SectionId::Edges, SectionId::Roots, SectionId::Threads}) {
        RawFile f = small_sections();
        std::erase_if(f.sections, [&](const RawSection& s) { return s.frame.id == uint16_t(id); });
        SCOPED_TRACE(format::section_name(uint16_t(id)));
        const std::string m = expect_read_error(join_sections(f), ReadErrorCode::Corrupt);
        EXPECT_TRUE(id == SectionId::Nodes
                        ? contains(m, "no Nodes section")
                        : contains(m, std::string("missing ") + format::section_name(uint16_t(id))))
            << m;
    }
    RawFile f = small_sections();
    f.sections.insert(f.sections.begin() + 3, f.sections[3]);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "duplicate"));
    f = small_sections();
    std::swap(f.sections[2], f.sections[3]);
    EXPECT_TRUE(
        contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "out of order"));
}

TEST(ReadErrors, BytesAfterTheEndSection) {
    std::vector<uint8_t> bytes = small_raw();
    bytes.push_back(0);
    EXPECT_TRUE(
        contains(expect_read_error(bytes, ReadErrorCode::Corrupt), "after the End section"));
}

TEST(ReadErrors, UnknownFlagsOnAKnownSection) {
    RawFile f = small_sections();
    find_section(f, SectionId::Roots).frame.flags |= 0x0100;
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "0x0102"));
}

TEST(ReadErrors, BadHeaderFields) {
    RawFile f = small_sections();
    // pid whose value is not exactly one varint.
    set_payload(find_section(f, SectionId::Header), Payload().v(5).v(2).v(1).v(1).bytes);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt), "pid"));
    set_payload(find_section(f, SectionId::Header),
                Payload().v(10).v(1).v(1).v(10).v(1).v(2).bytes);
    EXPECT_TRUE(contains(expect_read_error(join_sections(f), ReadErrorCode::Corrupt),
                         "duplicate header field 10"));
    set_payload(find_section(f, SectionId::Header),
                Payload().v(7).v(2).v(5).v(0).bytes);  // argv of 5, 1 given
    expect_read_error(join_sections(f), ReadErrorCode::Corrupt);
    set_payload(find_section(f, SectionId::Header),
                Payload().v(11).v(50).v(1).bytes);  // length beyond
    expect_read_error(join_sections(f), ReadErrorCode::Corrupt);
}

}  // namespace
}  // namespace refscope::testing
