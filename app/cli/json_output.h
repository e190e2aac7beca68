// --json rendering of each verb's report. The schema is documented, field by
// field, in docs/cli.md: change both together.
#pragma once

#include <ostream>

#include "reports.h"

namespace refscope::cli {

void write_json(const InfoReport& report, std::ostream& out);
void write_json(const SummaryReport& report, std::ostream& out);
void write_json(const RootsReport& report, std::ostream& out);
void write_json(const PathReport& report, std::ostream& out);
void write_json(const ReferrersReport& report, std::ostream& out);

}  // namespace refscope::cli
