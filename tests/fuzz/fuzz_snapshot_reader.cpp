// libFuzzer entry point for the snapshot reader (the fuzz preset builds it,
// docs/fuzzing.md). Any input must give a Snapshot or a ReadError; whatever
// the reader accepts must also pass the writer's validation.
//   fuzz_snapshot_reader -max_total_time=60 corpus/ tests/data
// Each input is decoded twice: as is, and with every frame's checksums
// recomputed, since a fuzzer cannot forge CRCs and would otherwise never get
// past them into the section decoders. The outline (refscope-cli info) reads
// each input too: whatever the full reader accepts, it accepts with the same
// edge count, and what it refuses for anything but the references, the
// outline refuses with the same message.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "refscope/format/encoding.h"
#include "refscope/format/snapshot_io.h"

namespace {

using namespace refscope::format;

void decode_one(const uint8_t* data, size_t size) {
    uint64_t outline_edges = UINT64_MAX;
    std::string outline_error;
    try {
        outline_edges = decode_snapshot_outline(data, size).edge_count;
    } catch (const ReadError& e) {
        outline_error = e.what();
    }
    try {
        const refscope::Snapshot s = decode_snapshot(data, size);
        if (outline_edges != s.edge_count()) std::abort();
        try {
            (void)encode_snapshot(s, WriteOptions{false, 0});
        } catch (const WriteError&) {
            std::abort();  // the reader accepted what the writer refuses
        }
    } catch (const ReadError& e) {
        // Refused for anything but the references (which the outline does
        // not decode): the outline refuses it with the same message.
        const std::string message = e.what();
        const bool about_edges = message.find("Edges") != std::string::npos || message.find("edge") != std::string::npos;
        if (!about_edges && message != outline_error) {
            std::fprintf(stderr, "full reader: %s\noutline: %s\n", message.c_str(),
                         outline_error.empty() ? "(accepted)" : outline_error.c_str());
            std::abort();
        }
    }
}

std::vector<uint8_t> with_fixed_checksums(const uint8_t* data, size_t size) {
    std::vector<uint8_t> b(data, data + size);
    size_t at = kPreambleBytes;
    while (at + kSectionFrameBytes <= b.size()) {
        SectionFrame f = load_frame(b.data() + at);
        const size_t payload = at + kSectionFrameBytes;
        if (f.stored_bytes > b.size() - payload) break;
        f.crc32c = crc32c(b.data() + payload, static_cast<size_t>(f.stored_bytes));
        store_frame(b.data() + at, f);
        at = payload + static_cast<size_t>(f.stored_bytes);
    }
    return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    decode_one(data, size);
    const std::vector<uint8_t> fixed = with_fixed_checksums(data, size);
    decode_one(fixed.data(), fixed.size());
    return 0;
}
