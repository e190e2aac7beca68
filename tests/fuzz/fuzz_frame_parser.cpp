// libFuzzer entry point for the live protocol's frame parser and message
// decoders (the fuzz preset builds it: docs/fuzzing.md).
//   fuzz_frame_parser -max_total_time=300 corpus/
// Each input runs twice: as is, and with every readable frame's CRC
// recomputed, since a fuzzer cannot forge CRCs and would otherwise rarely
// get past them into the payload decoders.
#include <cstddef>
#include <cstdint>

#include "protocol_fuzz_driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace refscope::protocol::fuzzing;
    (void)run_one(data, size);
    const std::vector<uint8_t> fixed = with_fixed_checksums(data, size);
    (void)run_one(fixed.data(), fixed.size());
    return 0;
}
