// Opening a snapshot in the desktop app (not a test: numbers go to
// docs/performance-app.md, "Desktop app: opening a snapshot").
//
//   bench_open_snapshot [FILE]     (default: the 1.1M-object synthetic heap of
//                                   tests/format/synthetic_heap.cpp, written to
//                                   a temporary file)
//
// Runs itself twice, each in a fresh process, so that their peak memory is
// their own:
//   core  analysis::SnapshotAnalysis::load on the file: the core analysis's
//         own time and memory (peak RSS above the process's RSS before);
//   app   the real MainWindow, shown, then openFiles(FILE): the time until
//         the summary by type is in its view and painted (its census: the
//         file is read, the graph is being analysed), until the full summary
//         (retained sizes) is, until the window is settled (every panel),
//         the process's CPU time (all threads) at the first and the last,
//         the app's memory (peak RSS above the RSS of the shown, empty
//         window) and the largest gap between ticks of a 10 ms timer on
//         the GUI thread from open to settled (how long the window went
//         without answering). Its worker threads run at the
//         core's priority here (REFSCOPE_WORKER_NICE=0): the app lowers
//         them to stay responsive, which on a busy machine would measure
//         the other programs rather than the app.
// Then prints both and the ratio of the memory increments.
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <QApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QTableView>
#include <QTemporaryDir>

#include "gap_meter.h"
#include "models/type_summary_model.h"
#include "refscope/analysis/snapshot_analysis.h"
#include "session_fixtures.h"
#include "window/main_window.h"
#include "window/summary_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

namespace {

using namespace refscope;

// VmRSS or VmHWM of this process in MiB.
double status_mib(const char* field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    const std::string prefix = std::string(field) + ":";
    while (std::getline(status, line)) {
        if (line.rfind(prefix, 0) == 0) return std::strtod(line.c_str() + prefix.size(), nullptr) / 1024.0;
    }
    return -1;
}

// CPU seconds of this process so far, every thread.
double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

int run_core(const QString& file) {
    const double before = status_mib("VmRSS");
    QElapsedTimer timer;
    timer.start();
    const auto analysis = analysis::SnapshotAnalysis::load(file.toStdString());
    const double seconds = timer.nsecsElapsed() / 1e9;
    std::printf("core %.3f s %.3f cpu %.1f MiB %zu objects\n", seconds, cpu_seconds(), status_mib("VmHWM") - before,
                analysis->snapshot().node_count());
    return 0;
}

int run_app(int argc, char** argv, const QString& file) {
    QApplication app(argc, argv);
    refscope::testing::isolate_settings();
    app::MainWindow window;
    window.resize(1400, 900);
    window.show();
    QApplication::processEvents();
    const double before = status_mib("VmRSS");

    QElapsedTimer timer;
    double summary_seconds = -1, summary_cpu = -1, full_seconds = -1;
    double cpu_before = 0;
    app::SummaryPanel* summary = window.workspace()->summaryPanel();
    QObject::connect(summary, &app::SummaryPanel::modelReplaced, [&] {
        summary->view()->viewport()->repaint();  // shown, not merely set
        if (summary_seconds < 0) {
            summary_seconds = timer.nsecsElapsed() / 1e9;
            summary_cpu = cpu_seconds() - cpu_before;
        }
        if (!summary->model()->analysing()) full_seconds = timer.nsecsElapsed() / 1e9;
    });
    refscope::testing::GapMeter gaps;
    cpu_before = cpu_seconds();
    timer.start();
    gaps.start();
    window.openFiles({file});
    if (!refscope::testing::wait_settled(window, 600'000) || !window.loadErrors().isEmpty()) {
        std::fprintf(stderr, "bench_open_snapshot: could not open %s\n", qPrintable(file));
        return 1;
    }
    const double settled_seconds = timer.nsecsElapsed() / 1e9;
    gaps.stop();
    std::printf("app %.3f s %.3f cpu %.3f s %.3f s %.3f cpu %.1f MiB %d groups %lld ms gap\n", summary_seconds,
                summary_cpu, full_seconds, settled_seconds, cpu_seconds() - cpu_before, status_mib("VmHWM") - before,
                summary->model()->rowCount(), static_cast<long long>(gaps.largest()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 3 && std::string(argv[1]) == "core") return run_core(QString::fromLocal8Bit(argv[2]));
    if (argc >= 3 && std::string(argv[1]) == "app") return run_app(argc, argv, QString::fromLocal8Bit(argv[2]));

    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    QString file = argc >= 2 ? QString::fromLocal8Bit(argv[1]) : QString();
    if (file.isEmpty()) {
        file = dir.filePath(QStringLiteral("heap.rscope"));
        if (!refscope::testing::write_synthetic_heap(file, 1'100'000)) return 1;
        std::printf("snapshot: the 1.1M-object synthetic heap (tests/format/synthetic_heap.cpp)\n");
    }
    const auto run = [&](const char* mode) {
        QProcess child;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("REFSCOPE_WORKER_NICE"), QStringLiteral("0"));
        child.setProcessEnvironment(environment);
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QCoreApplication::applicationFilePath(), {QString::fromLatin1(mode), file});
        child.waitForFinished(-1);
        return QString::fromLocal8Bit(child.readAllStandardOutput()).trimmed();
    };
    const QString core = run("core");
    const QString shown = run("app");
    const auto core_match =
        QRegularExpression(QStringLiteral("^core ([0-9.]+) s ([0-9.]+) cpu ([0-9.]+) MiB (\\d+) objects")).match(core);
    const auto app_match = QRegularExpression(QStringLiteral(
        "^app ([0-9.]+) s ([0-9.]+) cpu ([0-9.]+) s ([0-9.]+) s ([0-9.]+) cpu ([0-9.]+) MiB (\\d+) groups (\\d+) ms gap"))
                              .match(shown);
    if (!core_match.hasMatch() || !app_match.hasMatch()) {
        std::fprintf(stderr, "unexpected output:\n%s\n%s\n", qPrintable(core), qPrintable(shown));
        return 1;
    }
    const auto number = [](const QRegularExpressionMatch& m, int i) { return m.captured(i).toDouble(); };
    const double core_mib = number(core_match, 3);
    const double app_mib = number(app_match, 6);
    std::printf("%s objects                      wall        CPU (all threads)\n", qPrintable(core_match.captured(4)));
    std::printf("core: load + full analysis          %7.3f s   %7.3f s   %7.1f MiB\n", number(core_match, 1),
                number(core_match, 2), core_mib);
    std::printf("app:  open -> summary shown         %7.3f s   %7.3f s   (census: objects, shallow bytes)\n",
                number(app_match, 1), number(app_match, 2));
    std::printf("app:  open -> full summary shown    %7.3f s             (retained, unexplained)\n",
                number(app_match, 3));
    std::printf("app:  open -> settled (all panels)  %7.3f s   %7.3f s   %7.1f MiB  (%s summary rows)\n",
                number(app_match, 4), number(app_match, 5), app_mib, qPrintable(app_match.captured(7)));
    std::printf("app:  largest gap in the GUI thread  %7s ms  (10 ms timer, open -> settled)\n",
                qPrintable(app_match.captured(8)));
    std::printf("app memory / core memory            %7.2f\n", app_mib / core_mib);
    return 0;
}
