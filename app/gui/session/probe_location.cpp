#include "session/probe_location.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QObject>
#include <QStandardPaths>

// Compile definitions from app/gui/session/CMakeLists.txt (empty strings
// when the build has no probe).
#ifndef REFSCOPE_APP_PYTHON
#define REFSCOPE_APP_PYTHON ""
#endif
#ifndef REFSCOPE_APP_PYTHON_PACKAGE_DIR
#define REFSCOPE_APP_PYTHON_PACKAGE_DIR ""
#endif

namespace refscope::app {

namespace {

bool holds_package(const QString& dir) { return QFileInfo(dir + QStringLiteral("/refscope/__init__.py")).isFile(); }

// The installed layout (docs/packaging.md, "The Debian package"): the app in
// <prefix>/bin, the probe's package, with an extension for every Python the
// build had, in <prefix>/lib/refscope/python. Found from the binary's own
// folder, so a package unpacked under any root (dpkg --instdir, the .tar.gz)
// uses its own probe, and an installed app never picks up a build tree that
// happens to remain on the machine. Empty when the layout is not there.
QString installed_package_dir(const QString& applicationDir) {
    if (applicationDir.isEmpty()) return {};
    const QString dir = QDir::cleanPath(applicationDir + QStringLiteral("/../lib/refscope/python"));
    return holds_package(dir) ? dir : QString();
}

}  // namespace

ProbeLocation find_probe() { return find_probe(QCoreApplication::applicationDirPath()); }

ProbeLocation find_probe(const QString& applicationDir) {
    ProbeLocation probe;
    const QString installed = installed_package_dir(applicationDir);
    // Installed, the compiled-in interpreter is the build machine's; the
    // package's probe has an extension for the system's Python (the package
    // recommends python3).
    const QString default_python = installed.isEmpty() ? QStringLiteral(REFSCOPE_APP_PYTHON)
                                                       : QStringLiteral("/usr/bin/python3");
    const QString default_package = installed.isEmpty() ? QStringLiteral(REFSCOPE_APP_PYTHON_PACKAGE_DIR) : installed;
    probe.python = qEnvironmentVariable("REFSCOPE_PYTHON", default_python);
    probe.packageDir = qEnvironmentVariable("REFSCOPE_PYTHON_PACKAGE_DIR", default_package);
    if (probe.python.isEmpty() || probe.packageDir.isEmpty()) {
        probe.error = QObject::tr("this build of refscope has no probe: set REFSCOPE_PYTHON and "
                                  "REFSCOPE_PYTHON_PACKAGE_DIR to a Python and the directory holding "
                                  "its refscope package");
        return probe;
    }
    // A bare name ("python3") is looked up on PATH.
    if (!probe.python.contains(QLatin1Char('/'))) {
        const QString found = QStandardPaths::findExecutable(probe.python);
        if (found.isEmpty()) {
            probe.error = QObject::tr("cannot find the Python interpreter '%1' on PATH").arg(probe.python);
            return probe;
        }
        probe.python = found;
    }
    const QFileInfo python(probe.python);
    if (!python.isFile() || !python.isExecutable()) {
        probe.error = QObject::tr("the Python interpreter %1 does not exist or cannot be run (REFSCOPE_PYTHON)")
                          .arg(probe.python);
        return probe;
    }
    if (!holds_package(probe.packageDir)) {
        probe.error = QObject::tr("no refscope probe in %1: the directory has no refscope package "
                                  "(build the probe, or set REFSCOPE_PYTHON_PACKAGE_DIR)")
                          .arg(probe.packageDir);
        return probe;
    }
    return probe;
}

}  // namespace refscope::app
