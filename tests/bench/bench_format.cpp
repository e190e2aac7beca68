// Snapshot format micro-benchmark: builds a heap-shaped synthetic snapshot
// (~1.1M nodes by default, see tests/format/synthetic_heap.cpp), then times
// encode, file write and read + decode, and prints the size per section and
// the bytes per (node + edge), the format's headline number (target <= 6).
//   bench_format [nodes] [zstd level] [file path]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_measure.h"
#include "refscope/format/snapshot_io.h"
#include "test_support.h"

using namespace refscope::bench;

int main(int argc, char** argv) {
    using namespace refscope;
    const size_t nodes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'100'000;
    const int level = argc > 2 ? std::atoi(argv[2]) : 3;
    const std::string path = argc > 3 ? argv[3] : "/tmp/refscope-bench.rscope";

    auto t = Clock::now();
    const Snapshot s = testing::make_synthetic_heap(nodes, 1);
    std::printf("synthetic heap: %zu nodes, %zu edges, %zu strings (%.2f s to build)\n",
                s.node_count(), s.edge_count(), s.strings.size(), seconds_since(t));
    const double elements = static_cast<double>(s.node_count() + s.edge_count());
    // The in-memory size of the columns: what the encoder reads.
    size_t in_memory =
        s.node_count() * (8 + 4 + 8 + 8 + 1 + 4) + s.edge_count() * (4 + 4 + 1 + 1 + 4);
    in_memory += s.strings.byte_size();

    for (bool compress : {true, false}) {
        const format::WriteOptions options{compress, level};
        t = Clock::now();
        const std::vector<uint8_t> bytes = format::encode_snapshot(s, options);
        const double encode_s = seconds_since(t);
        t = Clock::now();
        format::write_snapshot_file(s, path, options);
        const double write_s = seconds_since(t);
        t = Clock::now();
        const Snapshot back = format::decode_snapshot(bytes.data(), bytes.size());
        const double decode_s = seconds_since(t);
        t = Clock::now();
        const Snapshot back_file = format::read_snapshot_file(path);
        const double read_s = seconds_since(t);
        if (back.edge_count() != s.edge_count() || back_file.node_count() != s.node_count()) {
            std::fprintf(stderr, "round trip mismatch\n");
            return 1;
        }
        const double mb = static_cast<double>(in_memory) / 1e6;
        std::printf("\n%s (level %d): %zu bytes = %.2f bytes per (node+edge)\n",
                    compress ? "zstd" : "uncompressed", level, bytes.size(),
                    static_cast<double>(bytes.size()) / elements);
        std::printf("  encode to memory  %7.3f s  %7.1f MB/s of columns\n", encode_s,
                    mb / encode_s);
        std::printf("  write file        %7.3f s  (encode + write + fsync + rename)\n", write_s);
        std::printf("  decode + validate %7.3f s  %7.1f MB/s of columns\n", decode_s,
                    mb / decode_s);
        std::printf("  read file         %7.3f s\n", read_s);
        for (const testing::RawSection& sec : testing::split_sections(bytes).sections) {
            const char* name = format::section_name(sec.frame.id);
            std::printf("    %-8s stored %10llu  raw %10llu  %s\n", name ? name : "?",
                        static_cast<unsigned long long>(sec.frame.stored_bytes),
                        static_cast<unsigned long long>(sec.frame.raw_bytes),
                        sec.frame.flags & format::kSectionZstd ? "zstd" : "raw");
        }
    }
    std::remove(path.c_str());
    return 0;
}
