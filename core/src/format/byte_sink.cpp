#include "refscope/format/byte_sink.h"

#include <cerrno>
#include <ostream>
#include <string>

#include "refscope/format/errno_text.h"

namespace refscope::format {

void FileSink::write(const void* data, size_t size) {
    if (std::fwrite(data, 1, size, file_) != size) throw WriteError(errno_text(errno));
}

void StreamSink::write(const void* data, size_t size) {
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out_) throw WriteError("the stream failed");
}

}  // namespace refscope::format
