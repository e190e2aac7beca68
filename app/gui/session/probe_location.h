// Where the app finds the probe to run `python -m refscope attach` (and to
// print ready-made command lines): a Python interpreter and the directory
// that holds the `refscope` package built for it.
//
// The build compiles in the first interpreter the probe was built for and
// the package directory (probe/CMakeLists.txt: REFSCOPE_PYTHON_EXECUTABLES,
// REFSCOPE_PYTHON_PACKAGE_DIR); the environment overrides both
// (REFSCOPE_PYTHON, REFSCOPE_PYTHON_PACKAGE_DIR). An installed app (the
// Debian package, docs/packaging.md) uses the probe installed next to it,
// <bindir>/../lib/refscope/python, with /usr/bin/python3, when that is there.
#pragma once

#include <QString>

namespace refscope::app {

struct ProbeLocation {
    QString python;        // interpreter to run
    QString packageDir;    // put on PYTHONPATH: it holds refscope/
    QString error;         // one sentence when the probe cannot be used; empty when it can

    bool usable() const { return error.isEmpty(); }
};

// Reads the environment, the installed layout next to the running binary and
// the compiled-in defaults, in that order, and checks that the interpreter is
// an executable file and that the package directory holds
// refscope/__init__.py.
ProbeLocation find_probe();
// The same for a binary in applicationDir (find_probe() passes the running
// one's, QCoreApplication::applicationDirPath()).
ProbeLocation find_probe(const QString& applicationDir);

}  // namespace refscope::app
