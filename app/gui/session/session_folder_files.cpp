#include "session/session_folder_files.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

namespace refscope::app {

QStringList session_snapshot_files(const QString& dir, QString* error) {
    const QFileInfo info(dir);
    if (!info.isDir()) {
        *error = QObject::tr("%1 is not a folder").arg(QDir::toNativeSeparators(dir));
        return {};
    }
    const QDir folder(info.absoluteFilePath());
    QStringList files;
    const QString index_path = folder.filePath(QStringLiteral("session.jsonl"));
    QFile index(index_path);
    // Only a regular file (a FIFO would block the open), and only its first
    // 64 MiB: an index is a line per event, far below that; the rest of the
    // folder's files are found by name below anyway.
    constexpr qint64 kIndexLimit = qint64(64) << 20;
    if (QFileInfo(index_path).isFile() && index.open(QIODevice::ReadOnly)) {
        while (!index.atEnd() && index.pos() < kIndexLimit) {
            const QByteArray line = index.readLine(1 << 20);
            const QJsonObject event = QJsonDocument::fromJson(line).object();
            if (event.value(QLatin1String("event")).toString() != QLatin1String("snapshot")) continue;
            // Only a plain name inside the folder: the index is data, not a path to follow.
            const QString name = event.value(QLatin1String("file")).toString();
            if (name.isEmpty() || name.contains(QLatin1Char('/')) || name.startsWith(QLatin1Char('.'))) continue;
            const QString path = folder.filePath(name);
            if (QFileInfo(path).isFile() && !files.contains(path)) files << path;
        }
    }
    const QStringList others = folder.entryList({QStringLiteral("*.rscope")}, QDir::Files, QDir::Name);
    for (const QString& name : others) {
        const QString path = folder.filePath(name);
        if (!files.contains(path)) files << path;
    }
    if (files.isEmpty()) {
        *error = QObject::tr("%1 holds no snapshot (.rscope) files").arg(QDir::toNativeSeparators(folder.path()));
    }
    return files;
}

}  // namespace refscope::app
