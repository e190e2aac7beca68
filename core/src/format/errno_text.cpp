#include "refscope/format/errno_text.h"

#include <system_error>

namespace refscope::format {

std::string errno_text(int error) { return std::generic_category().message(error); }

}  // namespace refscope::format
