#include "window_test_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "window/main_window.h"

namespace refscope::testing {

QString data_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

QString output_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_OUTPUT_DIR "/") + QLatin1String(name); }

bool wait_settled(app::MainWindow& window, int ms) {
    bool settled = false;
    window.whenSettled([&] { settled = true; });
    QElapsedTimer timer;
    timer.start();
    while (!settled && timer.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return settled;
}

void isolate_settings() {
    // Lives as long as the process: the settings file is written at exit.
    static QTemporaryDir config;
    qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("refscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("refscope-window-tests"));
}

}  // namespace refscope::testing
