// SessionFolder: where a listener puts what it receives, so that a session
// can be reopened later (docs/protocol.md, "The session folder"):
//
//   DIR/                          mode 0700, created if missing
//     pid1234-0001.rscope         one valid snapshot file per complete
//     pid1234-0002.rscope         snapshot, mode 0600 (heaps hold secrets)
//     .pid1234-0003.rscope.partial  a snapshot still arriving (hidden)
//     session.jsonl               one JSON object per line, appended:
//                                 connected / snapshot / discarded /
//                                 disconnected, in the order they happened
#pragma once

#include <cstdint>
#include <string>

#include "refscope/live/listener.h"

namespace refscope::live {

class SessionFolder {
public:
    // Creates `dir` (and its parents) if missing; throws ListenError if it
    // cannot, or if `dir` exists and is not a directory.
    explicit SessionFolder(std::string dir);

    const std::string& dir() const { return dir_; }

    // Creates the hidden temporary file for an incoming snapshot (O_EXCL,
    // mode 0600). Returns the fd and sets `path`; throws ListenError.
    int create_partial(int64_t pid, uint64_t sequence, std::string& path) const;
    // A free final name for it: pid1234-0005.rscope, or -0005-2, -0005-3...
    std::string final_path(int64_t pid, uint64_t sequence) const;

    // session.jsonl records. A failure to append is returned as a message
    // (the snapshots matter more than the index), empty on success.
    std::string record_connected(const ConnectionInfo& info) const;
    std::string record_snapshot(const SavedSnapshot& saved) const;
    std::string record_discarded(ConnectionId id, uint64_t request_id, const std::string& message) const;
    std::string record_disconnected(ConnectionId id, DisconnectReason reason,
                                    const std::string& message) const;

private:
    std::string append_line(const std::string& json) const;
    std::string dir_;
};

// JSON string literal for `text` (quotes included); bytes that are not
// valid UTF-8 become U+FFFD so that every line stays valid JSON.
std::string json_string(const std::string& text);

}  // namespace refscope::live
