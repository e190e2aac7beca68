// `refscope [options] [FILE...]`: what the desktop app is asked to do at
// start. Besides files to open, the options drive the README's demo and
// headless screenshots: select the top leak suspect once everything is
// loaded, print its retention path, save a picture of the window, quit.
#pragma once

#include <optional>

#include <QSize>
#include <QString>
#include <QStringList>

class QCommandLineParser;

namespace refscope::app {

struct LaunchOptions {
    QStringList files;              // opened together (several: a timeline)
    bool selectTopSuspect = false;  // --select-top-suspect
    bool printPath = false;         // --print-path: the selection's path on stdout
    QString screenshot;             // --screenshot FILE (PNG)
    QString exportGraph;            // --export-graph FILE (.png/.svg/.pdf/.dot)
    bool quitAfterScreenshot = false;
    QSize windowSize;               // --window-size WxH; invalid = the saved geometry
    bool listen = false;            // --listen: start listening for live processes at once
    QString sessionDir;             // --session-dir DIR: where live snapshots are saved
};

// Declares the options on `parser` (with --help and --version) and reads
// them from `arguments` (argv, program name first). On a usage error returns
// nullopt with `*error` set; --help and --version are left to the caller
// (parser.isSet("help"), ...), as QCommandLineParser::process would exit.
std::optional<LaunchOptions> parse_command_line(QCommandLineParser& parser, const QStringList& arguments,
                                                QString* error);

}  // namespace refscope::app
