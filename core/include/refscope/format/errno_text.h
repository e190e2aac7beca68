// The text of an errno value ("Permission denied"), for error messages.
// Thread-safe, unlike strerror. The one copy every part of refscope uses.
#pragma once

#include <string>

namespace refscope::format {

std::string errno_text(int error);

}  // namespace refscope::format
