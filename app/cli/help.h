// Help texts: one overview and one page per verb (refscope-cli VERB --help).
#pragma once

#include <string_view>

#include "arguments.h"

namespace refscope::cli {

// The overview for Verb::None, else the verb's page. Ends with a newline.
std::string_view help_text(Verb verb);

}  // namespace refscope::cli
