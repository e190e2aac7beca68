// `refscope [options] [FILE...]`: the desktop app. See command_line.h for the
// options; with --select-top-suspect, --print-path, --screenshot and
// --quit-after-screenshot it also runs headless (QT_QPA_PLATFORM=offscreen or
// under xvfb-run), which the demo uses on machines without a display.
#include <cstdio>

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QPixmap>

#include "window/command_line.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "session/live_session.h"

namespace {

// The offscreen platform (headless screenshots) warns that it "does not
// support propagateSizeHints()" for every top-level window: noise in the
// demo's output, dropped here; everything else goes to Qt's handler.
QtMessageHandler qt_handler = nullptr;

void filter_messages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (message.contains(QLatin1String("does not support propagateSizeHints"))) return;
    qt_handler(type, context, message);
}

}  // namespace

int main(int argc, char** argv) {
    qt_handler = qInstallMessageHandler(filter_messages);
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("refscope"));
    QApplication::setOrganizationName(QStringLiteral("refscope"));
    QApplication::setApplicationVersion(QStringLiteral(REFSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("refscope"));

    QCommandLineParser parser;
    QString error;
    QStringList arguments = QApplication::arguments();
    arguments[0] = QStringLiteral("refscope");  // "Usage: refscope ...", not the build path
    const auto options = refscope::app::parse_command_line(parser, arguments, &error);
    if (!options) {
        std::fprintf(stderr, "refscope: %s\nTry 'refscope --help'.\n", qPrintable(error));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(parser.helpText()), stdout);
        return 0;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("refscope %s\n", REFSCOPE_VERSION);
        return 0;
    }

    refscope::app::MainWindow window;
    if (options->windowSize.isValid()) window.resize(options->windowSize);
    window.show();
    if (!options->files.isEmpty()) window.openFiles(options->files);
    if (!options->sessionDir.isEmpty()) window.live()->setSessionDir(QFileInfo(options->sessionDir).absoluteFilePath());
    if (options->listen && !window.live()->startListening(/*quiet=*/true)) {
        std::fprintf(stderr, "refscope: %s\n", qPrintable(window.live()->session()->errorString()));
    }

    const bool scripted = options->selectTopSuspect || !options->screenshot.isEmpty() ||
                          !options->exportGraph.isEmpty() || options->quitAfterScreenshot;
    if (!scripted) return QApplication::exec();

    int status = 0;
    // Step 1 once loading and the comparison are done; step 2 once the
    // selection's graph is laid out too.
    window.whenSettled([&] {
        for (const QString& line : window.loadErrors()) {
            std::fprintf(stderr, "refscope: cannot open %s\n", qPrintable(line));
            status = 1;
        }
        if (options->selectTopSuspect && !window.selectTopSuspect()) {
            std::fprintf(stderr, "refscope: no leak suspect to select\n");
            status = status ? status : 1;
        }
        window.whenSettled([&] {
            if (options->printPath) {
                const QString path = window.selectedPathText();
                if (!path.isEmpty()) std::printf("%s\n", qPrintable(path));
            }
            if (!options->exportGraph.isEmpty()) {
                const QString file = QFileInfo(options->exportGraph).absoluteFilePath();
                QString export_error;
                if (window.exportGraph(file, &export_error)) {
                    std::printf("graph: %s\n", qPrintable(QDir::toNativeSeparators(file)));
                } else {
                    std::fprintf(stderr, "refscope: cannot export the graph: %s\n", qPrintable(export_error));
                    status = 1;
                }
            }
            if (!options->screenshot.isEmpty()) {
                const QString file = QFileInfo(options->screenshot).absoluteFilePath();
                if (window.grab().save(file, "PNG")) {
                    std::printf("screenshot: %s\n", qPrintable(QDir::toNativeSeparators(file)));
                } else {
                    std::fprintf(stderr, "refscope: cannot write the screenshot %s\n", qPrintable(file));
                    status = 1;
                }
            }
            std::fflush(stdout);
            if (options->quitAfterScreenshot) QApplication::exit(status);
        });
    });
    const int exec_status = QApplication::exec();
    return exec_status != 0 ? exec_status : status;
}
