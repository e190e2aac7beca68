// CRC-32C, section names and the zstd helpers of the snapshot format.
// Varints and zigzag are inline in refscope/format/encoding.h.
#include "refscope/format/encoding.h"

#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <array>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "format/compression.h"
#include "refscope/format/constants.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define REFSCOPE_CRC32C_SSE42 1
#endif

namespace refscope::format {

namespace {

// Slicing-by-8 tables for the reflected Castagnoli polynomial, built at
// compile time: a constant table needs no global constructor, which matters
// because this code is loaded into the target Python process.
constexpr uint32_t kCastagnoliReflected = 0x82F63B78u;

constexpr std::array<std::array<uint32_t, 256>, 8> make_crc_tables() {
    std::array<std::array<uint32_t, 256>, 8> t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kCastagnoliReflected : c >> 1;
        t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
        for (size_t s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}
constexpr auto kCrcTables = make_crc_tables();

uint32_t crc32c_portable(const uint8_t* p, size_t n, uint32_t c) {
    while (n >= 8) {
        const uint32_t lo = c ^ (uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 |
                                 uint32_t{p[3]} << 24);
        c = kCrcTables[7][lo & 0xFF] ^ kCrcTables[6][(lo >> 8) & 0xFF] ^
            kCrcTables[5][(lo >> 16) & 0xFF] ^ kCrcTables[4][lo >> 24] ^ kCrcTables[3][p[4]] ^
            kCrcTables[2][p[5]] ^ kCrcTables[1][p[6]] ^ kCrcTables[0][p[7]];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ kCrcTables[0][(c ^ *p++) & 0xFF];
    return c;
}

#ifdef REFSCOPE_CRC32C_SSE42
// The SSE4.2 crc32 instruction computes exactly CRC-32C; ~10x the table speed.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const uint8_t* p, size_t n, uint32_t c) {
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);  // unaligned-safe; x86 is little-endian
        c64 = _mm_crc32_u64(c64, word);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = static_cast<uint32_t>(c64);
    while (n--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}
#endif

}  // namespace

uint32_t crc32c(const void* data, size_t size, uint32_t crc) {
    const auto* p = static_cast<const uint8_t*>(data);
    uint32_t c = ~crc;
#ifdef REFSCOPE_CRC32C_SSE42
    // __builtin_cpu_supports reads a table libgcc fills before main; cheap.
    if (__builtin_cpu_supports("sse4.2")) return ~crc32c_sse42(p, size, c);
#endif
    return ~crc32c_portable(p, size, c);
}

const char* section_name(uint16_t id) {
    switch (static_cast<SectionId>(id)) {
        case SectionId::Header: return "Header";
        case SectionId::Strings: return "Strings";
        case SectionId::Types: return "Types";
        case SectionId::Nodes: return "Nodes";
        case SectionId::Edges: return "Edges";
        case SectionId::Roots: return "Roots";
        case SectionId::NativeNodes: return "NativeNodes";
        case SectionId::Threads: return "Threads";
        case SectionId::Allocations: return "Allocations";
        case SectionId::End: return "End";
    }
    return nullptr;
}

// ---------------------------------------------------------------- zstd ----

SectionCompressor::SectionCompressor(int level) : cctx_(ZSTD_createCCtx()), level_(level) {
    if (!cctx_) throw std::bad_alloc();
}

SectionCompressor::~SectionCompressor() { ZSTD_freeCCtx(cctx_); }

void SectionCompressor::begin() {
    ZSTD_CCtx_reset(cctx_, ZSTD_reset_session_and_parameters);
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, level_);
    // The frame's checksum would duplicate the section CRC; leave it out.
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 0);
}

void SectionCompressor::feed(const uint8_t* data, size_t size, PieceBuffer& out) { run(data, size, false, out); }

void SectionCompressor::finish(PieceBuffer& out) { run(nullptr, 0, true, out); }

void SectionCompressor::run(const uint8_t* data, size_t size, bool end, PieceBuffer& out) {
    ZSTD_inBuffer in{data, size, 0};
    for (;;) {
        // Compress straight into the room at the end of `out`: no
        // intermediate buffer. zstd takes output space of any size.
        size_t room = 0;
        uint8_t* to = out.room(room);
        ZSTD_outBuffer ob{to, room, 0};
        const size_t rc = ZSTD_compressStream2(cctx_, &ob, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        out.commit(ob.pos);
        if (ZSTD_isError(rc))
            throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(rc));
        if (end ? rc == 0 : in.pos == in.size) return;
    }
}

SectionDecompressor::SectionDecompressor() : dctx_(ZSTD_createDCtx()) {
    if (!dctx_) throw std::bad_alloc();
}

SectionDecompressor::~SectionDecompressor() { ZSTD_freeDCtx(dctx_); }

std::string SectionDecompressor::run(const uint8_t* data, size_t size, uint64_t raw_size,
                                     std::vector<uint8_t>& out) {
    // The payload must be exactly one zstd frame.
    const size_t frame_size = ZSTD_findFrameCompressedSize(data, size);
    if (ZSTD_isError(frame_size)) {
        if (ZSTD_getErrorCode(frame_size) == ZSTD_error_srcSize_wrong)
            return "zstd frame is truncated";
        return std::string("invalid zstd frame: ") + ZSTD_getErrorName(frame_size);
    }
    if (frame_size != size) return "bytes after the end of the zstd frame";

    ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_and_parameters);
    // Real sections compress 2-5x. When the declared size is plausible for
    // the input (at most 64x it, or 1 MiB), allocate it and decode in one
    // shot: fastest, and needs no window buffer.
    if (raw_size <= std::max<uint64_t>(uint64_t{size} * 64, 1 << 20)) {
        out.resize(static_cast<size_t>(raw_size));
        const size_t got = ZSTD_decompressDCtx(dctx_, out.data(), out.size(), data, size);
        if (ZSTD_isError(got)) {
            if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
                return "zstd frame expands beyond the declared raw length " +
                       std::to_string(raw_size);
            return std::string("invalid zstd data: ") + ZSTD_getErrorName(got);
        }
        if (got != raw_size) {
            return "zstd frame expands to " + std::to_string(got) +
                   " bytes, the section frame declares " + std::to_string(raw_size);
        }
        return {};
    }
    // Otherwise stream, growing the output only as bytes actually come out,
    // so that a forged raw size cannot force a large allocation. The window
    // limit (8 MiB; the writer's levels <= 19 stay within it) bounds the
    // decoder's own buffer.
    ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, 23);

    out.clear();
    // Start with a buffer sized from the compressed bytes, not from the
    // declared raw size, then grow geometrically as output actually appears.
    size_t cap =
        static_cast<size_t>(std::min<uint64_t>(raw_size, std::max<uint64_t>(size * 4, 4096)));
    out.resize(cap);
    ZSTD_inBuffer in{data, size, 0};
    size_t produced = 0;
    for (;;) {
        if (produced == out.size() && out.size() < raw_size) {
            out.resize(
                static_cast<size_t>(std::min<uint64_t>(raw_size, uint64_t{out.size()} * 2 + 4096)));
        }
        // Once the declared size is filled, offer one spare byte: any output
        // into it means the frame is larger than declared.
        uint8_t spare = 0;
        const bool full = produced == out.size();
        ZSTD_outBuffer ob = full ? ZSTD_outBuffer{&spare, 1, 0}
                                 : ZSTD_outBuffer{out.data() + produced, out.size() - produced, 0};
        const size_t in_before = in.pos;
        const size_t rc = ZSTD_decompressStream(dctx_, &ob, &in);
        if (ZSTD_isError(rc)) return std::string("invalid zstd data: ") + ZSTD_getErrorName(rc);
        if (full && ob.pos) {
            return "zstd frame expands beyond the declared raw length " + std::to_string(raw_size);
        }
        if (!full) produced += ob.pos;
        if (rc == 0) {
            // The frame is complete: it must be the whole payload and fill
            // exactly the declared size.
            if (in.pos != in.size) return "bytes after the end of the zstd frame";
            if (produced != raw_size) {
                return "zstd frame expands to " + std::to_string(produced) +
                       " bytes, the section frame declares " + std::to_string(raw_size);
            }
            out.resize(produced);
            return {};
        }
        // All input consumed and room left for output, yet the frame is not
        // complete: zstd needs input that is not there.
        if (in.pos == in.size && ob.pos < ob.size) return "zstd frame is truncated";
        // Defensive: never spin without progress.
        if (in.pos == in_before && ob.pos == 0) return "zstd decoder made no progress";
    }
}

std::string SectionDecompressor::prefix(const uint8_t* data, size_t size, uint64_t raw_size, size_t bytes,
                                        std::vector<uint8_t>& out) {
    ZSTD_DCtx_reset(dctx_, ZSTD_reset_session_and_parameters);
    ZSTD_DCtx_setParameter(dctx_, ZSTD_d_windowLogMax, 23);  // as run(): bounds the window buffer
    out.resize(static_cast<size_t>(std::min<uint64_t>(bytes, raw_size)));
    ZSTD_inBuffer in{data, size, 0};
    ZSTD_outBuffer ob{out.data(), out.size(), 0};
    while (ob.pos < ob.size) {
        const size_t in_before = in.pos, out_before = ob.pos;
        const size_t rc = ZSTD_decompressStream(dctx_, &ob, &in);
        if (ZSTD_isError(rc) && ZSTD_getErrorCode(rc) == ZSTD_error_frameParameter_windowTooLarge) {
            // run() decodes a plausibly sized frame in one shot, which needs
            // no window, so it accepts a window this stream refuses: answer
            // as it does (bounded by its size check). The writer's frames
            // never get here.
            std::string err = run(data, size, raw_size, out);
            if (err.empty()) out.resize(std::min(out.size(), bytes));
            return err;
        }
        if (ZSTD_isError(rc)) return std::string("invalid zstd data: ") + ZSTD_getErrorName(rc);
        if (ob.pos == ob.size) break;
        if (rc == 0) {
            return "zstd frame expands to " + std::to_string(ob.pos) + " bytes, the section frame declares " +
                   std::to_string(raw_size);
        }
        // Output wanted, the frame not complete: zstd needs input that is not there.
        if (in.pos == in.size) return "zstd frame is truncated";
        if (in.pos == in_before && ob.pos == out_before) return "zstd decoder made no progress";
    }
    return {};
}

}  // namespace refscope::format
