// Where the app finds the probe to run `python -m refscope attach` (and to
// print ready-made command lines): a Python interpreter and the directory
// that holds the `refscope` package built for it.
//
// The build compiles in the first interpreter the probe was built for and
// the package directory (probe/CMakeLists.txt: REFSCOPE_PYTHON_EXECUTABLES,
// REFSCOPE_PYTHON_PACKAGE_DIR); the environment overrides both
// (REFSCOPE_PYTHON, REFSCOPE_PYTHON_PACKAGE_DIR), e.g. for an installed app.
#pragma once

#include <QString>

namespace refscope::app {

struct ProbeLocation {
    QString python;        // interpreter to run
    QString packageDir;    // put on PYTHONPATH: it holds refscope/
    QString error;         // one sentence when the probe cannot be used; empty when it can

    bool usable() const { return error.isEmpty(); }
};

// Reads the environment and the compiled-in defaults, and checks that the
// interpreter is an executable file and that the package directory holds
// refscope/__init__.py.
ProbeLocation find_probe();

}  // namespace refscope::app
