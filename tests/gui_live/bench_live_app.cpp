// The live connection in the desktop app, end to end (target and results in
// docs/performance-app.md, "Desktop app: live snapshots"). A program, not a
// test:
//
//   QT_QPA_PLATFORM=offscreen build/dev/tests/gui_live/bench_live_app [RECORDS [ROUNDS]]
//
// The real MainWindow listens (LiveSession); tests/bench/live_bench_target.py
// with make_heap(RECORDS) (125,000: ≈1.1M objects) connects at start-up,
// and each round presses "Take Snapshot" for it: the request goes out, the
// probe walks and streams, the listener saves the file, the window's loader
// reads and analyses it, and the summary by type is put in its view and
// painted. Reported per round and as medians: request → saved, request →
// summary shown, request → settled (every panel filled). Before each round
// the window's snapshots are closed, so that every round measures a
// snapshot shown on its own (no comparison). Round 0 warms up and is not
// counted. As bench_open_snapshot does, the app's worker threads run at
// the GUI thread's priority (REFSCOPE_WORKER_NICE=0) unless that variable
// is set: on a busy machine a lower priority would measure the other
// programs. Target: summary shown ≤ 1.5 s after the request.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include "live_test_support.h"
#include "models/type_summary_model.h"
#include "session/live_session.h"
#include "session/snapshot_timeline.h"
#include "window/live_controls.h"
#include "window/main_window.h"
#include "window/summary_panel.h"
#include "window/workspace.h"
#include "window_test_support.h"

namespace {

using namespace refscope;

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("REFSCOPE_WORKER_NICE")) qputenv("REFSCOPE_WORKER_NICE", "0");
    testing::isolate_settings();
    QApplication application(argc, argv);
    const QString records = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QStringLiteral("125000");
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    const app::ProbeLocation probe = testing::test_probe();
    if (!probe.usable()) {
        std::fprintf(stderr, "bench_live_app: %s\n", qPrintable(probe.error));
        return 1;
    }

    QTemporaryDir dir;
    app::MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.live()->setSessionDir(dir.filePath(QStringLiteral("session")));
    if (!window.live()->startListening(/*quiet=*/true)) {
        std::fprintf(stderr, "bench_live_app: %s\n", qPrintable(window.live()->session()->errorString()));
        return 1;
    }
    app::LiveSession* session = window.live()->session();
    testing::PythonTarget target(QStringLiteral(REFSCOPE_BENCH_DIR "/live_bench_target.py"), {records},
                                 session->address(), session->tokenFile());
    if (!QTest::qWaitFor([&] { return !session->processes().empty(); }, 300'000)) {
        std::fprintf(stderr, "bench_live_app: the target did not connect: %s\n", qPrintable(target.output()));
        return 1;
    }
    const uint64_t connection = session->processes().front().connection;
    std::printf("target connected: pid %lld, %s records\n", static_cast<long long>(target.pid()), qPrintable(records));

    app::SummaryPanel* summary = window.workspace()->summaryPanel();
    QElapsedTimer clock;
    double saved_at = -1, shown_at = -1;
    QString saved_path;
    QObject::connect(session, &app::LiveSession::snapshotSaved, [&](uint64_t, const QString& path) {
        saved_at = clock.nsecsElapsed() / 1e6;
        saved_path = path;
    });
    QObject::connect(summary, &app::SummaryPanel::modelReplaced, [&] {
        // The census shown as soon as the file is read counts (the window
        // shows it before the snapshot joins the timeline).
        const app::AnalysisPtr current = window.workspace()->analysis();
        if (saved_path.isEmpty() || !current || QString::fromStdString(current->path()) != saved_path) return;
        if (summary->model()->rowCount() == 0) return;
        summary->view()->viewport()->repaint();  // shown, not merely set
        if (shown_at < 0) shown_at = clock.nsecsElapsed() / 1e6;
    });

    std::vector<double> saved_ms, shown_ms, settled_ms;
    size_t objects = 0;
    std::printf("%5s %12s %16s %12s\n", "round", "saved", "summary shown", "settled");
    for (int round = 0; round <= rounds; ++round) {
        window.timeline()->clear();
        if (!testing::wait_settled(window)) return 1;
        saved_at = shown_at = -1;
        saved_path.clear();
        clock.start();
        if (session->takeSnapshot(connection, /*collect=*/false) == 0) {
            std::fprintf(stderr, "bench_live_app: the request was refused\n");
            return 1;
        }
        if (!QTest::qWaitFor([&] { return shown_at >= 0; }, 120'000) || !testing::wait_settled(window, 120'000)) {
            std::fprintf(stderr, "bench_live_app: the snapshot was not shown\n");
            return 1;
        }
        const double settled = clock.nsecsElapsed() / 1e6;
        objects = window.timeline()->current()->snapshot().node_count();
        QFile::remove(saved_path);
        std::printf("%5d %9.0f ms %13.0f ms %9.0f ms%s\n", round, saved_at, shown_at, settled,
                    round == 0 ? "  (warm-up)" : "");
        std::fflush(stdout);
        if (round == 0) continue;
        saved_ms.push_back(saved_at);
        shown_ms.push_back(shown_at);
        settled_ms.push_back(settled);
    }
    std::printf("\n%zu objects; medians of %d rounds:\n", objects, rounds);
    std::printf("  request -> saved           %6.0f ms\n", median(saved_ms));
    std::printf("  request -> summary shown   %6.0f ms (target <= 1500 ms)\n", median(shown_ms));
    std::printf("  request -> settled         %6.0f ms\n", median(settled_ms));
    window.live()->stopListening();
    return 0;
}
