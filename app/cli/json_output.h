// --json rendering of each verb's report. The schema is documented, field by
// field, in docs/cli-json.md: change both together.
#pragma once

#include <optional>
#include <ostream>

#include "json_writer.h"
#include "reports.h"

namespace refscope::cli {

// One object of a report as a JSON object (the shape docs/cli-json.md calls "node").
void write_node(JsonWriter& json, const NodeReport& node);

// A chain of hops as docs/cli-json.md's [hop] array.
void write_hops(JsonWriter& json, const std::vector<HopReport>& hops);

// A finalizer trap as docs/cli-json.md's "finalizer" object, or null.
void write_finalizer(JsonWriter& json, const std::optional<FinalizerReport>& finalizer);

void write_json(const InfoReport& report, std::ostream& out);
void write_json(const SummaryReport& report, std::ostream& out);
void write_json(const RootsReport& report, std::ostream& out);
void write_json(const PathReport& report, std::ostream& out);
void write_json(const ReferrersReport& report, std::ostream& out);

}  // namespace refscope::cli
