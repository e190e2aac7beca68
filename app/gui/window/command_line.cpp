#include "window/command_line.h"

#include <QCommandLineParser>
#include <QRegularExpression>

namespace refscope::app {

std::optional<LaunchOptions> parse_command_line(QCommandLineParser& parser, const QStringList& arguments,
                                                QString* error) {
    parser.setApplicationDescription(QObject::tr(
        "refscope: see why Python objects stay alive. Opens heap snapshots written by the\n"
        "refscope probe (python -m refscope run ... --snapshot-at-exit FILE) and shows the\n"
        "leak suspects, retention paths from the GC roots and the reference graph.\n"
        "Several snapshots of one process open as a timeline; the oldest is the baseline."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QObject::tr("Snapshot files (.rscope) to open."),
                                 QStringLiteral("[FILE...]"));
    const QCommandLineOption select_top(QStringLiteral("select-top-suspect"),
                                        QObject::tr("Once loaded, select the top leak suspect and show its path."));
    const QCommandLineOption print_path(QStringLiteral("print-path"),
                                        QObject::tr("Print the selected object's retention path on standard output."));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                        QObject::tr("Once everything is shown, save a picture of the window to FILE (PNG)."),
                                        QStringLiteral("FILE"));
    const QCommandLineOption export_graph(QStringLiteral("export-graph"),
                                          QObject::tr("Once the selection's graph is drawn, save it to FILE "
                                                      "(.png, .svg, .pdf or .dot, rendered by Graphviz)."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption quit(QStringLiteral("quit-after-screenshot"),
                                  QObject::tr("Quit after --screenshot (or, without it, once everything is shown)."));
    const QCommandLineOption size(QStringLiteral("window-size"),
                                  QObject::tr("Window size, e.g. 1400x900 (default: as last time)."),
                                  QStringLiteral("WxH"));
    const QCommandLineOption listen(QStringLiteral("listen"),
                                    QObject::tr("Start listening for live Python processes at start-up "
                                                "(Live ▸ Start Listening)."));
    const QCommandLineOption session_dir(QStringLiteral("session-dir"),
                                         QObject::tr("Save live snapshots in DIR (default: a new folder "
                                                     "under the app's data folder, sessions/)."),
                                         QStringLiteral("DIR"));
    parser.addOptions({select_top, print_path, screenshot, export_graph, quit, size, listen, session_dir});

    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return std::nullopt;
    }
    LaunchOptions options;
    options.files = parser.positionalArguments();
    options.selectTopSuspect = parser.isSet(select_top);
    options.printPath = parser.isSet(print_path);
    options.screenshot = parser.value(screenshot);
    options.quitAfterScreenshot = parser.isSet(quit);
    options.exportGraph = parser.value(export_graph);
    options.listen = parser.isSet(listen);
    options.sessionDir = parser.value(session_dir);
    if (parser.isSet(size)) {
        static const QRegularExpression pattern(QStringLiteral("^(\\d{2,5})x(\\d{2,5})$"));
        const auto match = pattern.match(parser.value(size));
        if (!match.hasMatch()) {
            *error = QObject::tr("--window-size wants WIDTHxHEIGHT, e.g. 1400x900, not '%1'").arg(parser.value(size));
            return std::nullopt;
        }
        options.windowSize = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    }
    if ((options.printPath || !options.exportGraph.isEmpty()) && !options.selectTopSuspect) {
        // Nothing else selects an object from the command line (yet).
        *error = QObject::tr("--print-path and --export-graph need --select-top-suspect");
        return std::nullopt;
    }
    return options;
}

}  // namespace refscope::app
