// `refscope [options] [FILE...]`: the desktop app. See command_line.h for the
// options; with --select-top-suspect, --print-path, --screenshot and
// --quit-after-screenshot it also runs headless (QT_QPA_PLATFORM=offscreen or
// under xvfb-run), which the demo uses on machines without a display.
#include <cstdio>
#include <cstdlib>
#include <string_view>

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

void print_error(const QString& error) {
    std::fprintf(stderr, "refscope: %s\nTry 'refscope --help'.\n", qPrintable(error));
}

// The exit status when --help or --version was asked for (printed here).
std::optional<int> help_or_version(const QCommandLineParser& parser) {
    if (parser.isSet(QStringLiteral("help"))) {
        // "Usage: refscope ...", not the path the program was started by.
        QString text = parser.helpText();
        const QString program = QCoreApplication::arguments().value(0);
        if (!program.isEmpty() && text.startsWith(QLatin1String("Usage: ") + program)) {
            text.replace(7, program.size(), QStringLiteral("refscope"));
        }
        std::fputs(qPrintable(text), stdout);
        return 0;
    }
    if (parser.isSet(QStringLiteral("version"))) {
        std::printf("refscope %s\n", REFSCOPE_VERSION);
        return 0;
    }
    return std::nullopt;
}

// The name of an option QGuiApplication/QApplication take themselves, with
// one dash or two ("-platform", "--style=Fusion"), else "".
std::string_view qt_gui_option(std::string_view argument) {
    if (!argument.starts_with('-')) return {};
    argument.remove_prefix(argument.starts_with("--") ? 2 : 1);
    argument = argument.substr(0, argument.find('='));
    for (const std::string_view name :
         {"platform", "platformpluginpath", "platformtheme", "plugin", "qwindowgeometry", "qwindowicon",
          "qwindowtitle", "reverse", "session", "display", "geometry", "style", "stylesheet", "widgetcount",
          "dialogs", "fontengine", "nograb", "dograb", "sync", "qmljsdebugger", "testability"}) {
        if (argument == name) return name;
    }
    return {};
}

// --help, --version and wrong arguments are answered before any window
// system is touched (without a display, QApplication aborts the process):
// parsed with a QCoreApplication, which needs none, without the options
// QApplication takes for itself (and their values), as QApplication would.
// Returns the exit status when there is nothing more to do, else fills
// `options`: the one parse of the command line.
std::optional<int> parse_without_display(int argc, char** argv,
                                         std::optional<refscope::app::LaunchOptions>& options) {
    QCoreApplication core(argc, argv);
    QStringList arguments{QString::fromLocal8Bit(argv[0])};
    for (int i = 1; i < argc; ++i) {
        const std::string_view option = qt_gui_option(argv[i]);
        if (option.empty()) {
            arguments << QString::fromLocal8Bit(argv[i]);
            continue;
        }
        const bool has_value = std::string_view(argv[i]).find('=') == std::string_view::npos &&
                               option != "reverse" && option != "nograb" && option != "dograb" &&
                               option != "sync" && option != "testability";
        if (has_value) ++i;
    }
    QCommandLineParser parser;
    QString error;
    options = refscope::app::parse_command_line(parser, arguments, &error);
    if (options) return help_or_version(parser);
    print_error(error);
    return 2;
}

// Qt picks xcb (or wayland) when nothing else is named, and without a
// display that fails inside QApplication with an abort: say it first.
bool has_display(int argc, char** argv) {
    const auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value && *value;
    };
    if (set("QT_QPA_PLATFORM") || set("DISPLAY") || set("WAYLAND_DISPLAY")) return true;
    for (int i = 1; i < argc; ++i) {
        if (qt_gui_option(argv[i]) == "platform") return true;
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    qt_handler = qInstallMessageHandler(filter_messages);
    std::optional<refscope::app::LaunchOptions> options;
    if (const std::optional<int> status = parse_without_display(argc, argv, options)) return *status;
    if (!has_display(argc, argv)) {
        std::fprintf(stderr,
                     "refscope: no display (DISPLAY and WAYLAND_DISPLAY are not set). Run it in a desktop "
                     "session, under xvfb-run, or headless with QT_QPA_PLATFORM=offscreen.\n");
        return 1;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("refscope"));
    QApplication::setOrganizationName(QStringLiteral("refscope"));
    QApplication::setApplicationVersion(QStringLiteral(REFSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("refscope"));

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
