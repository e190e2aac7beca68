// zstd helpers for the snapshot sections (private to refscope_format).
// Each compressed section payload is exactly one zstd frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/piece_buffer.h"

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;

namespace refscope::format {

// Streams raw bytes into one zstd frame per section, appending the compressed
// bytes to a caller-owned buffer of pieces. One context is reused for every section of
// a snapshot (creating a context costs more than compressing a small section).
class SectionCompressor {
public:
    explicit SectionCompressor(int level);
    ~SectionCompressor();
    SectionCompressor(const SectionCompressor&) = delete;
    SectionCompressor& operator=(const SectionCompressor&) = delete;

    void begin();  // starts a new frame
    void feed(const uint8_t* data, size_t size, PieceBuffer& out);
    void finish(PieceBuffer& out);  // ends the frame
private:
    void run(const uint8_t* data, size_t size, bool end, PieceBuffer& out);
    ZSTD_CCtx_s* cctx_ = nullptr;
    int level_;
};

// Decompresses section payloads; one context is reused for all sections of
// a snapshot.
class SectionDecompressor {
public:
    SectionDecompressor();
    ~SectionDecompressor();
    SectionDecompressor(const SectionDecompressor&) = delete;
    SectionDecompressor& operator=(const SectionDecompressor&) = delete;

    // Decompresses one zstd frame that must expand to exactly `raw_size`
    // bytes. Never allocates more than 64x the input (or 1 MiB) before the
    // bytes actually come out, so a forged raw size cannot force a large
    // allocation. Returns an empty string on success, else what went wrong.
    std::string run(const uint8_t* data, size_t size, uint64_t raw_size, std::vector<uint8_t>& out);
    // Decompresses only the first min(`bytes`, `raw_size`) bytes of the frame
    // into `out` (a count at the start of a section, without unpacking the
    // rest). Fewer come out only when the frame is truncated or invalid,
    // which is then the message; the rest of the frame is not checked. A
    // frame whose window is too large to stream is decoded whole by run(),
    // so that both accept and refuse the same frames.
    std::string prefix(const uint8_t* data, size_t size, uint64_t raw_size, size_t bytes,
                       std::vector<uint8_t>& out);

private:
    ZSTD_DCtx_s* dctx_ = nullptr;
};

}  // namespace refscope::format
