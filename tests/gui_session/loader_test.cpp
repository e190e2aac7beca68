// The snapshot loader on real files and built snapshots (SnapshotLoader):
// good, corrupt, truncated and missing files, the snapshot handed over before
// its analysis, queue order, progress, cancel, named pipes, destruction while
// loading.
#include <sys/stat.h>

#include <memory>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include "refscope/format/snapshot_io.h"
#include "session/snapshot_loader.h"
#include "session_fixtures.h"

using namespace refscope;
using namespace refscope::app;


namespace {

QString data_file(const char* name) { return QStringLiteral(REFSCOPE_TEST_DATA_DIR "/") + QLatin1String(name); }

// Every signal of a loader, in the order it was emitted, as "kind:path".
class LoaderRecorder {
public:
    explicit LoaderRecorder(SnapshotLoader& loader) {
        QObject::connect(&loader, &SnapshotLoader::started, [this](const QString& path, int) {
            events << QStringLiteral("started:") + path;
        });
        QObject::connect(&loader, &SnapshotLoader::progress, [this](const QString& path, const QString& stage, int percent) {
            progress << Progress{path, stage, percent, clock.elapsed()};
        });
        QObject::connect(&loader, &SnapshotLoader::read, [this](const AnalysisPtr& read) {
            reads.push_back(read);
        });
        QObject::connect(&loader, &SnapshotLoader::loaded, [this](const AnalysisPtr& analysis) {
            events << QStringLiteral("loaded:") + QString::fromStdString(analysis->path());
            analyses.push_back(analysis);
            // The snapshot alone came first, and this analysis shares it.
            read_first.push_back(!reads.empty() && &reads.back()->snapshot() == &analysis->snapshot());
        });
        QObject::connect(&loader, &SnapshotLoader::failed, [this](const QString& path, const QString& message) {
            events << QStringLiteral("failed:") + path;
            messages << message;
        });
        QObject::connect(&loader, &SnapshotLoader::cancelled, [this](const QString& path) {
            events << QStringLiteral("cancelled:") + path;
        });
        QObject::connect(&loader, &SnapshotLoader::idle, [this] { events << QStringLiteral("idle"); });
        clock.start();
    }
    // The events without "started:" (whose timing relative to cancel varies).
    QStringList ends() const {
        QStringList result;
        for (const QString& e : events) {
            if (!e.startsWith(QLatin1String("started:"))) result << e;
        }
        return result;
    }
    bool waitIdle(int ms = 60'000) {
        // qWaitFor sleeps between rounds of events: no core taken from the worker.
        return QTest::qWaitFor([this] { return events.contains(QStringLiteral("idle")); }, ms);
    }

    struct Progress {
        QString path, stage;
        int percent;
        qint64 at_ms;
    };
    QElapsedTimer clock;
    QStringList events;
    QStringList messages;
    QList<Progress> progress;
    std::vector<AnalysisPtr> analyses;
    std::vector<AnalysisPtr> reads;  // `read`: the snapshots alone
    std::vector<bool> read_first;    // per `loaded`: its `read` came before
};

// The message format::read_snapshot_file gives for `path`.
QString reader_message(const QString& path) {
    try {
        format::read_snapshot_file(path.toStdString());
    } catch (const format::ReadError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

}  // namespace

class LoaderTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();

    void loadsGoodFile_data();
    void loadsGoodFile();
    void reportsReaderErrors_data();
    void reportsReaderErrors();
    void queueKeepsOrderAndEndsIdleOnce();
    void progressIsMonotonicAndThrottled();
    void cancelMidQueue();
    void refusesNamedPipes();
    void cancelWhenIdleDoesNothing();
    void destroyWhileLoading();

private:
    QTemporaryDir dir_;
    QString big_file_;
};

void LoaderTest::initTestCase() {
    QVERIFY(dir_.isValid());
    big_file_ = dir_.filePath(QStringLiteral("big.rscope"));
    // Big enough that loading takes a while (several progress steps), small
    // enough for the ASan build.
    QVERIFY(testing::write_synthetic_heap(big_file_, 400'000));
}

// Both pinned formats (1.0 and 1.3, docs/format.md "Versioning") open.
void LoaderTest::loadsGoodFile_data() {
    QTest::addColumn<QString>("good");
    QTest::newRow("format 1.0") << data_file("good-v1.rscope");
    QTest::newRow("format 1.3") << data_file("good-v1.3.rscope");
}

void LoaderTest::loadsGoodFile() {
    QFETCH(QString, good);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    QVERIFY(!loader.isBusy());
    loader.load({good});
    QVERIFY(loader.isBusy());
    QVERIFY(record.waitIdle());
    QCOMPARE(record.events, (QStringList{"started:" + good, "loaded:" + good, "idle"}));
    QVERIFY(!loader.isBusy());
    QCOMPARE(record.analyses.size(), size_t{1});
    const AnalysisPtr& a = record.analyses.front();
    const Snapshot expected = format::read_snapshot_file(good.toStdString());
    QCOMPARE(a->snapshot().node_count(), expected.node_count());
    QCOMPARE(a->snapshot().edge_count(), expected.edge_count());
    // The snapshot was handed over alone first (the summary shows it while
    // the rest runs), then the analysis of that same snapshot in memory.
    QCOMPARE(record.reads.size(), size_t{1});
    QVERIFY(!record.reads.front()->has_graph());
    QCOMPARE(record.read_first, std::vector<bool>{true});
    // Every stage ran: the window shows retained sizes and suspects.
    QVERIFY(a->dominators() != nullptr);
    QVERIFY(a->cycles() != nullptr);
    QVERIFY(a->suspects() != nullptr);
}

void LoaderTest::reportsReaderErrors_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected_fragment");
    QTest::newRow("bad magic") << data_file("bad-magic.rscope") << "not a refscope snapshot";
    QTest::newRow("truncated") << data_file("truncated.rscope") << "the input ends after";
    QTest::newRow("bad checksum") << data_file("bad-checksum.rscope") << "checksum mismatch";
    QTest::newRow("corrupt ids") << data_file("corrupt-ids.rscope") << "out of range";
    QTest::newRow("newer version") << data_file("newer-version.rscope") << "open it with refscope 2.0.0 or later";
    QTest::newRow("absurd count") << data_file("absurd-count.rscope") << "exceeds the limit";
    QTest::newRow("missing") << dir_.filePath(QStringLiteral("no-such-file.rscope")) << "No such file";
    QTest::newRow("directory") << dir_.path() << "is a directory";
}

void LoaderTest::reportsReaderErrors() {
    QFETCH(QString, path);
    QFETCH(QString, expected_fragment);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({path});
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"failed:" + path, "idle"}));
    QCOMPARE(record.messages.size(), 1);
    // The reader's own message, unchanged.
    QCOMPARE(record.messages.front(), reader_message(path));
    QVERIFY2(record.messages.front().contains(expected_fragment), qPrintable(record.messages.front()));
    QVERIFY(record.reads.empty());  // nothing was read: nothing shown
}

void LoaderTest::queueKeepsOrderAndEndsIdleOnce() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    const QString good = data_file("good-v1.rscope");
    const QString bad = data_file("truncated.rscope");
    const QString missing = dir_.filePath(QStringLiteral("missing.rscope"));
    loader.load({good, bad});
    loader.load({missing, good});
    QVERIFY(record.waitIdle());
    // Let anything stray arrive.
    QTest::qWait(50);
    QCOMPARE(record.ends(),
             (QStringList{"loaded:" + good, "failed:" + bad, "failed:" + missing, "loaded:" + good, "idle"}));
    QCOMPARE(record.events.count(QStringLiteral("idle")), 1);
    // Each load is its own analysis.
    QCOMPARE(record.analyses.size(), size_t{2});
    QVERIFY(record.analyses[0] != record.analyses[1]);
}

void LoaderTest::progressIsMonotonicAndThrottled() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({big_file_});
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"loaded:" + big_file_, "idle"}));
    QVERIFY(!record.progress.isEmpty());
    int last = -1;
    for (const auto& p : record.progress) {
        QCOMPARE(p.path, big_file_);
        QVERIFY(!p.stage.isEmpty());
        QVERIFY2(p.percent >= last, "progress went backwards");
        QVERIFY(p.percent >= 0 && p.percent <= 100);
        last = p.percent;
    }
    // Throttled: at most one signal per interval (plus the first).
    const qint64 span = record.progress.back().at_ms - record.progress.front().at_ms;
    QVERIFY2(record.progress.size() <= span / SnapshotLoader::kProgressInterval.count() + 2,
             qPrintable(QStringLiteral("%1 signals in %2 ms").arg(record.progress.size()).arg(span)));
}

void LoaderTest::cancelMidQueue() {
    // A gate in front of the real pipeline holds the first load until the
    // test has cancelled: the cancel lands mid-load every time, whatever the
    // machine's speed. The pipeline then sees the cancel flag and stops.
    std::mutex gate_mutex;
    std::condition_variable gate_changed;
    bool gate_open = false;
    const QString good = data_file("good-v1.rscope");
    SnapshotLoader loader;
    loader.setReadFunction([&](const std::string& path, const analysis::AnalysisOptions& options) {
        if (path == big_file_.toStdString()) {
            std::unique_lock lock(gate_mutex);
            gate_changed.wait(lock, [&] { return gate_open; });
        }
        return analysis::SnapshotAnalysis::load(path, options);
    });
    LoaderRecorder record(loader);
    QSignalSpy started(&loader, &SnapshotLoader::started);
    loader.load({big_file_, good, big_file_});
    QVERIFY(started.wait(10'000));
    QCOMPARE(started.front().front().toString(), big_file_);
    QCOMPARE(loader.queuedCount(), 2);

    loader.cancel();
    // The queued ones are cancelled at once; the running one is not over yet.
    QCOMPARE(record.ends(), (QStringList{"cancelled:" + good, "cancelled:" + big_file_}));
    QCOMPARE(loader.queuedCount(), 0);
    QVERIFY(loader.isBusy());

    {
        std::lock_guard lock(gate_mutex);
        gate_open = true;
    }
    gate_changed.notify_all();
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(),
             (QStringList{"cancelled:" + good, "cancelled:" + big_file_, "cancelled:" + big_file_, "idle"}));
    QVERIFY(record.analyses.empty());
    QVERIFY(!loader.isBusy());

    // The loader works on after a cancel.
    loader.load({good});
    record.events.clear();
    QVERIFY(record.waitIdle());
    QCOMPARE(record.ends(), (QStringList{"loaded:" + good, "idle"}));
}

void LoaderTest::refusesNamedPipes() {
    // open() on a FIFO waits for a writer: the loader must not.
    const QString fifo = dir_.filePath(QStringLiteral("pipe.rscope"));
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.load({fifo});
    QVERIFY(record.waitIdle(10'000));
    QCOMPARE(record.ends(), (QStringList{"failed:" + fifo, "idle"}));
    QVERIFY2(record.messages.front().contains(QLatin1String("not a regular file")), qPrintable(record.messages.front()));
}

void LoaderTest::cancelWhenIdleDoesNothing() {
    SnapshotLoader loader;
    LoaderRecorder record(loader);
    loader.cancel();
    loader.load({});
    QTest::qWait(30);
    QVERIFY(record.events.isEmpty());
    QVERIFY(!loader.isBusy());
}

void LoaderTest::destroyWhileLoading() {
    bool destroying = false;
    int signals_while_destroying = 0;
    QElapsedTimer timer;
    auto loader = std::make_unique<SnapshotLoader>();
    QSignalSpy started(loader.get(), &SnapshotLoader::started);
    const auto count = [&] { signals_while_destroying += destroying ? 1 : 0; };
    QObject::connect(loader.get(), &SnapshotLoader::loaded, count);
    QObject::connect(loader.get(), &SnapshotLoader::failed, count);
    QObject::connect(loader.get(), &SnapshotLoader::cancelled, count);
    QObject::connect(loader.get(), &SnapshotLoader::idle, count);
    loader->load({big_file_, big_file_, big_file_});
    QVERIFY(started.wait(10'000));
    destroying = true;
    timer.start();
    loader.reset();  // cancels and joins
    // The worker stopped at the next stage boundary: well under a full load
    // of three files.
    QVERIFY2(timer.elapsed() < 20'000, qPrintable(QString::number(timer.elapsed())));
    // Events the worker posted before it stopped died with the loader: no
    // signal is emitted during or after destruction.
    QCoreApplication::processEvents();
    QCOMPARE(signals_while_destroying, 0);
}

QTEST_GUILESS_MAIN(LoaderTest)
#include "loader_test.moc"
