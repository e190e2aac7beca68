// Opens a line of a source file in the user's editor: the allocation sites
// the path panel shows are links to the code that made the object.
//
// REFSCOPE_EDITOR names the editor command. "{file}" and "{line}" in it are
// replaced ("code -g {file}:{line}", "kate --line {line} {file}"); without
// them "+LINE FILE" is appended, the convention of vim, emacs, nano, gedit
// and most others ("gvim", "emacsclient -n"). Without REFSCOPE_EDITOR the
// desktop's default application for the file opens it (at its start: there
// is no portable way to pass a line). A terminal editor needs a terminal of
// its own: "x-terminal-emulator -e vim".
#pragma once

#include <QString>
#include <QStringList>

namespace refscope::app {

struct EditorCommand {
    QString program;
    QStringList arguments;
};

// The command REFSCOPE_EDITOR (`editor`) gives for file:line; an empty
// program when `editor` is empty or only spaces.
EditorCommand editor_command(const QString& editor, const QString& file, int line);

// Opens file:line. Returns "" on success, else why not, in one sentence
// ("app/views.py is not on this machine (the snapshot was taken elsewhere?)").
QString open_source(const QString& file, int line);

}  // namespace refscope::app
