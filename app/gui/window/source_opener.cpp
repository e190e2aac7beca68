#include "window/source_opener.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QProcess>
#include <QUrl>

namespace refscope::app {

EditorCommand editor_command(const QString& editor, const QString& file, int line) {
    QStringList words = QProcess::splitCommand(editor);
    if (words.isEmpty()) return {};
    const QString line_text = QString::number(line);
    bool placed = false;
    for (QString& word : words) {
        if (word.contains(QLatin1String("{file}")) || word.contains(QLatin1String("{line}"))) placed = true;
        word.replace(QLatin1String("{file}"), file);
        word.replace(QLatin1String("{line}"), line_text);
    }
    EditorCommand command;
    command.program = words.takeFirst();
    command.arguments = words;
    if (!placed) command.arguments << QStringLiteral("+") + line_text << file;
    return command;
}

QString open_source(const QString& file, int line) {
    const QFileInfo info(file);
    if (!info.isAbsolute() || !info.isFile())
        return QObject::tr("%1 is not a file on this machine (the snapshot was taken elsewhere, or the code "
                           "was not loaded from a file)")
            .arg(file);
    const EditorCommand command = editor_command(qEnvironmentVariable("REFSCOPE_EDITOR"), file, line);
    if (!command.program.isEmpty()) {
        if (!QProcess::startDetached(command.program, command.arguments))
            return QObject::tr("Could not start the editor %1 (REFSCOPE_EDITOR)").arg(command.program);
        return {};
    }
    if (!QDesktopServices::openUrl(QUrl::fromLocalFile(file)))
        return QObject::tr("No application opens %1; set REFSCOPE_EDITOR to an editor command").arg(file);
    return {};
}

}  // namespace refscope::app
