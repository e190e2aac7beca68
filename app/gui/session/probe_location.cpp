#include "session/probe_location.h"

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

ProbeLocation find_probe() {
    ProbeLocation probe;
    probe.python = qEnvironmentVariable("REFSCOPE_PYTHON", QStringLiteral(REFSCOPE_APP_PYTHON));
    probe.packageDir =
        qEnvironmentVariable("REFSCOPE_PYTHON_PACKAGE_DIR", QStringLiteral(REFSCOPE_APP_PYTHON_PACKAGE_DIR));
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
    if (!QFileInfo(probe.packageDir + QStringLiteral("/refscope/__init__.py")).isFile()) {
        probe.error = QObject::tr("no refscope probe in %1: the directory has no refscope package "
                                  "(build the probe, or set REFSCOPE_PYTHON_PACKAGE_DIR)")
                          .arg(probe.packageDir);
        return probe;
    }
    return probe;
}

}  // namespace refscope::app
