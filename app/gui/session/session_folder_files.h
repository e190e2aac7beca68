// The snapshots of a session folder the live listener wrote
// (docs/protocol.md, "The session folder"), for File ▸ Open Session…: the
// files session.jsonl records as saved, in the order they arrived, then any
// other *.rscope file in the folder (by name). Hidden partial files are never
// listed. A line of session.jsonl that does not parse (a crash may cut the
// last one) is skipped; a recorded file that no longer exists is left out.
#pragma once

#include <QString>
#include <QStringList>

namespace refscope::app {

// Absolute paths. Empty with `*error` set when `dir` is not a readable
// folder or holds no snapshot.
QStringList session_snapshot_files(const QString& dir, QString* error);

}  // namespace refscope::app
