// Writes tests/data/crafted/: hostile files that declare far more than they
// hold (issue #14's decompression and count bombs, rebuilt here) and the
// densest file the compression bound lets through. Run by hand (never at
// build time; the files are checked in):
//   build/<dir>/tests/format/make_crafted_files tests/data/crafted
// Each file is make_small_snapshot() with one section replaced, so it is
// well framed with valid checksums and fails (or passes) on its content
// alone. tests/cli/cli_crafted_files_tests.inc runs every verb on them with
// a time and memory limit; docs/format.md, "Validation and limits", gives
// the bound they check.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "format/compression.h"
#include "refscope/format/constants.h"
#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"
#include "test_support.h"

namespace {

using namespace refscope;
using namespace refscope::testing;
using format::SectionId;


// `head` followed by `zeros` zero bytes, as one zstd frame, fed in 64 MiB
// pieces so that gigabytes never sit in memory.
std::vector<uint8_t> packed_zeros(const std::vector<uint8_t>& head, uint64_t zeros) {
    const std::vector<uint8_t> piece(64u << 20, 0);
    format::PieceBuffer packed;
    format::SectionCompressor compressor(3);
    compressor.begin();
    compressor.feed(head.data(), head.size(), packed);
    for (uint64_t left = zeros; left > 0;) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(left, piece.size()));
        compressor.feed(piece.data(), n, packed);
        left -= n;
    }
    compressor.finish(packed);
    return packed.joined();
}

// make_small_snapshot() with section `id` stored as `payload`, compressed
// from `raw_bytes` bytes when `compressed`.
std::vector<uint8_t> with_section(SectionId id, std::vector<uint8_t> payload, uint64_t raw_bytes,
                                  bool compressed) {
    RawFile f = split_sections(forge_snapshot(make_small_snapshot()));
    RawSection& s = find_section(f, id);
    s.payload = std::move(payload);
    s.frame.flags = compressed ? (s.frame.flags | format::kSectionZstd) : (s.frame.flags & ~format::kSectionZstd);
    s.frame.stored_bytes = s.payload.size();
    s.frame.raw_bytes = raw_bytes;
    s.frame.crc32c = format::crc32c(s.payload.data(), s.payload.size());
    return join_sections(f);
}

// A Nodes section of `count` nodes whose every column is zero: all at
// address 0, of type 0, size 0, refcount 0, no flags, no preview.
std::vector<uint8_t> zero_nodes(uint64_t count, bool compressed) {
    std::vector<uint8_t> head;
    format::append_varint(head, count);
    format::append_varint(head, 0);  // address shift
    const uint64_t zeros = 6 * count;
    if (compressed) return with_section(SectionId::Nodes, packed_zeros(head, zeros), head.size() + zeros, true);
    head.resize(head.size() + zeros, 0);
    const uint64_t raw = head.size();
    return with_section(SectionId::Nodes, std::move(head), raw, false);
}

// A dense but honest file, as the writer makes it: `count` objects 16 bytes
// apart, one byte per column, one in 64 with a random size so that zstd
// packs the Nodes section about 134-fold (within kMaxCompressionRatio; with
// no random sizes it would pack further and be stored plain). Their empty
// edge lists pack further than the bound, so the writer stores that column
// plain: 1M objects in ~1 MB.
std::vector<uint8_t> dense_nodes(uint32_t count) {
    Snapshot s = make_small_snapshot();
    const uint32_t type = s.node_type[0];
    std::mt19937_64 rng(14);
    uint64_t address = 0x7f10'0000'0000;
    for (uint32_t i = static_cast<uint32_t>(s.node_count()); i < count; ++i) {
        const uint64_t size = rng() % 64 == 0 ? rng() % 128 : 32;  // 1 byte either way
        s.add_node(address += 16, type, size, 1, 0, 0);
    }
    return format::encode_snapshot(s);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <tests/data/crafted directory>\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    // The first bomb: a Header of 3 GiB of zeros in ~100 KB.
    const uint64_t header_zeros = uint64_t{3} << 30;
    bool ok = save_test_file(dir, "header-3gib-of-zeros.rscope",
                   with_section(SectionId::Header, packed_zeros({}, header_zeros), header_zeros, true));
    // Its count bombs: 100M and 400M all-zero nodes, all at address 0.
    ok &= save_test_file(dir, "nodes-100m-at-zero.rscope", zero_nodes(100'000'000, true));
    ok &= save_test_file(dir, "nodes-400m-at-zero.rscope", zero_nodes(400'000'000, true));
    // Within the compression bound, stored plain: refused by the address check.
    ok &= save_test_file(dir, "nodes-10k-at-zero-plain.rscope", zero_nodes(10'000, false));
    ok &= save_test_file(dir, "dense-1m-objects.rscope", dense_nodes(1'000'000));
    return ok ? 0 : 1;
}
