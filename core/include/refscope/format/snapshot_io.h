// Encoding and decoding of snapshots (docs/format.md). The writer side is
// linked into the probe, so it depends on nothing but libzstd.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "refscope/format/byte_sink.h"
#include "refscope/snapshot.h"

namespace refscope::format {

// Why a snapshot could not be read. Each value maps to one clear message.
enum class ReadErrorCode {
    Io,             // file missing, unreadable
    BadMagic,       // not a refscope snapshot at all
    NewerVersion,   // written by a newer refscope: upgrade to read it
    OlderVersion,   // major older than this reader supports
    Truncated,      // ends before a declared length / no End section
    BadChecksum,    // a section's CRC-32C does not match
    Corrupt,        // structurally invalid (bad varint, id out of range...)
    TooLarge,       // a declared size exceeds the reader's hard limits
    Decompress,     // zstd frame invalid
};

const char* to_string(ReadErrorCode code);

class ReadError : public std::runtime_error {
public:
    ReadError(ReadErrorCode code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    ReadErrorCode code() const { return code_; }
private:
    ReadErrorCode code_;
};

struct WriteOptions {
    bool compress = true;
    int zstd_level = 3;
    // Check that no two nodes share an address (a sort of every address:
    // 8 bytes per node and a noticeable share of the encoding time). The
    // probe's walker turns it off: its address map gives each address one
    // node by construction, and the sort would run inside the target.
    bool check_addresses = true;
};

// Encodes a snapshot as a sequence of sections into `sink` (byte_sink.h); the
// same bytes make a file and a streamed snapshot on the live connection
// (docs/protocol.md). The snapshot
// is validated first (column lengths, every id in range, edges grouped by
// source, string 0 empty: the rules the reader enforces); an invalid one
// throws WriteError naming the first defect, as do sink failures. Memory
// beyond the snapshot: the stored payload of one section (compressed when
// compressing) + 64 KiB.
void write_snapshot(const Snapshot& snapshot, ByteSink& sink, const WriteOptions& options = {});
std::vector<uint8_t> encode_snapshot(const Snapshot& snapshot, const WriteOptions& options = {});
// Writes to `path` atomically (temporary file + rename): a failed write never
// leaves a half-written snapshot under the final name.
void write_snapshot_file(const Snapshot& snapshot, const std::string& path,
                         const WriteOptions& options = {});

// Decodes and validates everything; throws ReadError.
Snapshot decode_snapshot(const uint8_t* data, size_t size);
Snapshot read_snapshot_file(const std::string& path);

// A snapshot without its references, for what `refscope-cli info` reports:
// every section is read and checked as decode_snapshot does except the
// Edges section, whose frame and payload checksum are checked but whose
// columns are not decoded (of a compressed payload only the first bytes are
// unpacked): `snapshot` has no edges, and `edge_count` is the count the
// section declares, within the same limits the full reader applies. On a
// 10M-object snapshot the edges are most of the reading time and memory.
struct SnapshotOutline {
    Snapshot snapshot;        // edge_count() == 0
    uint64_t edge_count = 0;  // the Edges section's count
};
SnapshotOutline decode_snapshot_outline(const uint8_t* data, size_t size);
SnapshotOutline read_snapshot_outline(const std::string& path);

}  // namespace refscope::format
