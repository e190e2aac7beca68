// Writes the checked-in test snapshots of tests/data that are missing. Run
// by hand after a deliberate format change (never at build time):
//   build/<dir>/tests/format/make_test_files tests/data
// Existing files are kept: each pins what the writer of its day wrote.
// good-v1.rscope is make_small_snapshot() as format 1.0 wrote it,
// good-v1.3.rscope make_every_feature_snapshot() as format 1.3 wrote it (a
// new minor or major adds its own good-vM.m file); each other file damages
// the current writer's output in one documented way (data_files_test.cpp).
#include <cstdio>
#include <string>

#include "refscope/format/snapshot_io.h"
#include "test_support.h"

using namespace refscope;
using namespace refscope::testing;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <tests/data directory>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const std::vector<uint8_t> good = format::encode_snapshot(make_small_snapshot());
    bool ok = save_test_file(dir, "good-v1.rscope", good);

    // Cut inside the Edges payload.
    RawFile f = split_sections(good);
    size_t edges_at = format::kPreambleBytes;
    for (const RawSection& s : f.sections) {
        if (s.frame.id == static_cast<uint16_t>(format::SectionId::Edges)) break;
        edges_at += format::kSectionFrameBytes + s.payload.size();
    }
    const size_t cut = edges_at + format::kSectionFrameBytes +
                       find_section(f, format::SectionId::Edges).payload.size() / 2;
    ok &= save_test_file(dir, "truncated.rscope",
               std::vector<uint8_t>(good.begin(), good.begin() + static_cast<ptrdiff_t>(cut)));

    std::vector<uint8_t> bad_magic = good;
    bad_magic[5] = 'X';  // "RSCOPX"
    ok &= save_test_file(dir, "bad-magic.rscope", bad_magic);

    f = split_sections(good);
    find_section(f, format::SectionId::Nodes).payload[3] ^= 0x20;  // CRC left as it was
    ok &= save_test_file(dir, "bad-checksum.rscope", join_sections(f));

    ok &= save_test_file(dir, "good-v1.3.rscope", format::encode_snapshot(make_every_feature_snapshot()));

    // A file of the next major, written by a later refscope: its Header
    // still names that refscope (docs/format.md, "Versioning").
    Snapshot later = make_small_snapshot();
    later.header.probe_version = "2.0.0";
    f = split_sections(format::encode_snapshot(later));
    f.major = 2;
    f.minor = 0;
    ok &= save_test_file(dir, "newer-version.rscope", join_sections(f));

    f = split_sections(good);
    find_section(f, format::SectionId::Nodes).frame.stored_bytes = uint64_t{1} << 60;
    ok &= save_test_file(dir, "absurd-size.rscope", join_sections(f));

    f = split_sections(format::encode_snapshot(make_small_snapshot(), {false, 0}));
    std::vector<uint8_t> count;
    format::append_varint(count, uint64_t{1} << 40);  // node count 2^40, then nothing
    set_payload(find_section(f, format::SectionId::Nodes), count);
    ok &= save_test_file(dir, "absurd-count.rscope", join_sections(f));

    Snapshot s = make_small_snapshot();
    s.edge_target[5] = 999;  // 43 nodes
    ok &= save_test_file(dir, "corrupt-ids.rscope", forge_snapshot(s));
    return ok ? 0 : 1;
}
