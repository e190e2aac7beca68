// Where the app finds the probe for "Attach to process…" and the connect
// lines (app/gui/session/probe_location.cpp): an app installed by the Debian
// package, or unpacked from its .tar.gz under any folder, uses the probe
// installed next to it (<bindir>/../lib/refscope/python) and the system's
// python3; a build-tree app, the build's probe; the environment overrides
// both.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "session/probe_location.h"

using refscope::app::find_probe;
using refscope::app::ProbeLocation;

class ProbeLocationTest : public QObject {
    Q_OBJECT

private slots:
    void init() {
        qunsetenv("REFSCOPE_PYTHON");
        qunsetenv("REFSCOPE_PYTHON_PACKAGE_DIR");
    }

    void installedLayoutIsFoundFromTheBinarysFolder() {
        if (!QFileInfo(QStringLiteral("/usr/bin/python3")).isExecutable()) QSKIP("no /usr/bin/python3 here");
        QTemporaryDir root;
        const QString package = makeInstalledTree(root);
        const ProbeLocation probe = find_probe(root.filePath(QStringLiteral("usr/bin")));
        QVERIFY2(probe.usable(), qPrintable(probe.error));
        QCOMPARE(probe.packageDir, package);
        QCOMPARE(probe.python, QStringLiteral("/usr/bin/python3"));
    }

    void environmentOverridesTheInstalledLayout() {
        QTemporaryDir root;
        makeInstalledTree(root);
        QTemporaryDir other;
        QVERIFY(QDir(other.path()).mkpath(QStringLiteral("refscope")));
        touch(other.filePath(QStringLiteral("refscope/__init__.py")));
        qputenv("REFSCOPE_PYTHON_PACKAGE_DIR", other.path().toLocal8Bit());
        const ProbeLocation probe = find_probe(root.filePath(QStringLiteral("usr/bin")));
        QCOMPARE(probe.packageDir, other.path());
    }

    void withoutTheInstalledLayoutTheBuildsProbeIsUsed() {
        // A bin/ with no lib/refscope/python beside it, as in a build tree
        // (and a lib/refscope/python without the package: half-removed).
        QTemporaryDir root;
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("usr/bin")));
        QVERIFY(QDir(root.path()).mkpath(QStringLiteral("usr/lib/refscope/python/refscope")));
        const ProbeLocation probe = find_probe(root.filePath(QStringLiteral("usr/bin")));
        QCOMPARE(probe.packageDir, QStringLiteral(REFSCOPE_TEST_BUILD_PACKAGE_DIR));
        QVERIFY2(probe.usable(), qPrintable(probe.error));
    }

private:
    static void touch(const QString& path) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
    }

    // root/usr/bin and root/usr/lib/refscope/python/refscope/__init__.py;
    // returns the package folder.
    static QString makeInstalledTree(const QTemporaryDir& root) {
        QDir dir(root.path());
        dir.mkpath(QStringLiteral("usr/bin"));
        dir.mkpath(QStringLiteral("usr/lib/refscope/python/refscope"));
        touch(root.filePath(QStringLiteral("usr/lib/refscope/python/refscope/__init__.py")));
        return root.filePath(QStringLiteral("usr/lib/refscope/python"));
    }
};

QTEST_GUILESS_MAIN(ProbeLocationTest)
#include "probe_location_test.moc"
