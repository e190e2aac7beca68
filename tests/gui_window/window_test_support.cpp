#include "window_test_support.h"

#include <QCoreApplication>
#include <QDir>
#include <memory>

#include <QEventLoop>
#include <QTimer>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>

#include "refscope/format/snapshot_io.h"
#include "window/main_window.h"

namespace refscope::testing {

QString data_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

QString output_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_OUTPUT_DIR "/") + QLatin1String(name); }

bool save_guide_image(QWidget& widget, const QString& name) {
    const QString dir = qEnvironmentVariable("REFSCOPE_GUIDE_IMAGES");
    if (dir.isEmpty()) {
        qWarning("REFSCOPE_GUIDE_IMAGES is not set: the guide picture %s.png is not saved", qPrintable(name));
        return true;
    }
    if (!QDir().mkpath(dir)) return false;
    return widget.grab().save(QDir(dir).filePath(name + QLatin1String(".png")), "PNG");
}

bool open_snapshot(app::MainWindow& window, const QTemporaryDir& dir, const Snapshot& snapshot, const char* name) {
    const std::string path = dir.filePath(QLatin1String(name)).toStdString();
    format::write_snapshot_file(snapshot, path);
    window.show();
    window.openFiles({QString::fromStdString(path)});
    return wait_settled(window) && window.loadErrors().isEmpty();
}

bool open_scenario(app::MainWindow& window, QSize size) {
    window.resize(size);
    window.show();
    window.openFiles({data_file(kScenarioBaseline), data_file(kScenarioCurrent)});
    return wait_settled(window) && window.loadErrors().isEmpty();
}

bool wait_settled(app::MainWindow& window, int ms) {
    // A real event loop, sleeping between events: spinning on
    // processEvents() would take a core from the workers being waited for.
    // The callback may come after a timeout, when this frame is gone: it
    // only touches the shared state.
    struct State {
        bool settled = false;
        QEventLoop* loop = nullptr;
    };
    auto state = std::make_shared<State>();
    window.whenSettled([state] {
        state->settled = true;
        if (state->loop) state->loop->quit();
    });
    QEventLoop loop;
    state->loop = &loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    if (!state->settled) loop.exec();
    state->loop = nullptr;
    return state->settled;
}

bool columns_in_viewport(const QTableView& view, const std::vector<int>& columns) {
    for (const int c : columns) {
        if (view.isColumnHidden(c) || view.columnWidth(c) < 30) return false;
        if (view.columnViewportPosition(c) + view.columnWidth(c) > view.viewport()->width()) return false;
    }
    return true;
}

void isolate_settings() {
    // Lives as long as the process: the settings file is written at exit.
    static QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
    QStandardPaths::setTestModeEnabled(true);
    // Test mode puts QSettings in ~/.qttest/config, one file for every test
    // process: two window tests running at once (ctest -j2) shared their
    // recent files. The process's own folder instead.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path());
    QCoreApplication::setOrganizationName(QStringLiteral("refscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("refscope-window-tests"));
}

}  // namespace refscope::testing
