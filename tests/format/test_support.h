// Helpers shared by the format tests, the test-file generator and the format
// benchmark: sample snapshots, an independent spec-following encoder used to
// forge invalid files, and a section-level view of encoded bytes.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "refscope/format/constants.h"
#include "refscope/format/encoding.h"
#include "refscope/snapshot.h"

namespace refscope::testing {

// ~60 nodes using every field, every edge kind, every root kind, threads,
// unicode strings and every header field.
Snapshot make_small_snapshot();
// Adds format 1.2 allocation sites to a make_small_snapshot(): two
// tracebacks (one of three frames, one frame shared), nodes 1, 40 and 41 traced.
void add_allocation_sites(Snapshot& s);
// make_small_snapshot() with every part the current format adds (type
// flags, allocation sites, the extension-type node flag, an inferred edge):
// what tests/data/good-v1.3.rscope pins.
Snapshot make_every_feature_snapshot();

// A heap-shaped snapshot: `nodes` objects, ~2.5 edges per node, addresses
// 16-byte aligned in arenas, skewed type ids, small sizes, refcounts mostly
// 1-3, previews ("rec-12345") on ~40% of nodes. Deterministic for a seed.
Snapshot make_synthetic_heap(size_t nodes, uint64_t seed = 1);

// Encodes `s` following docs/format.md, written independently of the real
// writer, all sections uncompressed and WITHOUT validating anything: the
// tests use it to produce files with out-of-range ids and valid checksums.
// For a valid snapshot its output must equal the writer's (compress=false).
std::vector<uint8_t> forge_snapshot(const Snapshot& s, uint16_t major = format::kFormatMajor,
                                    uint16_t minor = format::kFormatMinor);

struct RawSection {
    format::SectionFrame frame;
    std::vector<uint8_t> payload;  // the stored bytes
};
struct RawFile {
    uint16_t major = format::kFormatMajor;
    uint16_t minor = format::kFormatMinor;
    std::vector<RawSection> sections;
};

// Splits a well-formed encoding into its sections (no validation beyond the
// framing; throws std::runtime_error if the framing is broken).
RawFile split_sections(const std::vector<uint8_t>& bytes);
// Writes the preamble and each section's frame exactly as given (the frame
// checksum is recomputed by store_frame), then its payload.
std::vector<uint8_t> join_sections(const RawFile& file);
// Replaces an uncompressed payload and makes the frame consistent with it
// (stored and raw length, payload CRC).
void set_payload(RawSection& section, std::vector<uint8_t> payload);
// The section with this id (throws if absent).
RawSection& find_section(RawFile& file, format::SectionId id);
// `uncompressed` (an encoding with every section stored plain) with every
// byte of the Edges section after its count overwritten with 0xFF, checksums
// recomputed: no edge column decodes (bad varints), the count and the
// payload's length are intact. Only a reader that skips the edge columns
// (format::read_snapshot_outline) reads it.
std::vector<uint8_t> with_unreadable_edge_columns(const std::vector<uint8_t>& uncompressed);

// 1 to 4 random edits of `bytes`: flip a bit, overwrite, insert or delete a
// byte, or set one to a boundary value (0x00, 0x7F, 0x80, 0xFF); with
// `may_cut`, also cut the bytes short (a peer that stops mid-frame). The
// same seed gives the same edits. Shared by the reader's and the live
// protocol's mutation tests.
void mutate_bytes(std::vector<uint8_t>& bytes, std::mt19937_64& rng, bool may_cut = false);

// Writes `bytes` to dir/name and prints the name and size (the test-file
// generators make_test_files and make_crafted_files) unless dir/name exists:
// checked-in files are never rewritten. False, with a message on stderr,
// when it cannot write.
bool save_test_file(const std::string& dir, const char* name, const std::vector<uint8_t>& bytes);

}  // namespace refscope::testing
