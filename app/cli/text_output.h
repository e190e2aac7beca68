// Output for people: aligned columns, thousands separators, paths as one
// line of `edge → object` plus a table of the hops.
#pragma once

#include <ostream>

#include "reports.h"

namespace refscope::cli {

void write_text(const InfoReport& report, std::ostream& out);
void write_text(const SummaryReport& report, std::ostream& out);
void write_text(const RootsReport& report, std::ostream& out);
void write_text(const PathReport& report, std::ostream& out);
void write_text(const ReferrersReport& report, std::ostream& out);

}  // namespace refscope::cli
