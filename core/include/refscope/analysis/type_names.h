// Which types a name typed by a person means. People type the class name
// they see in their code ("Plugin"), while a snapshot holds qualified names
// ("__main__.Plugin", "app.plugins.Plugin"). The CLI's --type, the filter
// language's `type:` (so the app's filter bar too) and export-path resolve
// names here, so "Plugin" means the same everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "refscope/snapshot.h"

namespace refscope::analysis {

// The part after the last '.': "Plugin" for "__main__.Plugin"; a name
// without a dot is its own bare name.
std::string_view bare_type_name(std::string_view qualified);

// Whether some type's qualified name is exactly `name`.
bool has_type_named(const Snapshot& snapshot, std::string_view name);

// The ids of the types `name` means: those whose qualified name is `name`
// when there are any; else, for a name without a dot, those whose bare name
// is `name`. Several ids may share one qualified name (a class defined
// twice).
std::vector<uint32_t> types_named(const Snapshot& snapshot, std::string_view name);

// Distinct type names near `name`, for "did you mean": the same bare name
// ignoring case, or qualified or bare names within two edits of it. Nearest
// first, then alphabetical; at most `limit`.
std::vector<std::string> similar_type_names(const Snapshot& snapshot, std::string_view name, size_t limit = 5);

// `name` when it is nobody's bare name, or names no type (the caller says
// "no objects"); else the one qualified name it means. Throws TypeNameError
// when a bare name is shared by types of different qualified names, listing
// them.
class TypeNameError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
std::string resolve_type_name(const Snapshot& snapshot, std::string_view name);

// "no objects of type 'Plugn'", with "; did you mean app.Plugin?" when
// similar_type_names finds some.
std::string no_type_message(const Snapshot& snapshot, std::string_view name);

}  // namespace refscope::analysis
