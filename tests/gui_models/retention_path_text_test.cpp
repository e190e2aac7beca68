// Path text: the exact chain the CLI's `path` prints for known paths (an
// interpreter root and a thread-stack root), the plain-words explanations
// when there is no path (unexplained surplus, held by such a holder, a cycle
// closed by a GC-invisible edge), the note on a path through a finalizer's
// state and the HTML form.
#include <QtTest>

#include "heap_fixture.h"
#include "models/retention_path_text.h"
#include "session/analysis_ptr.h"

using namespace refscope;
using namespace refscope::app;
using refscope::test_fixture::Heap;

class RetentionPathTextTest : public QObject {
    Q_OBJECT
private slots:
    void chainFromAnInterpreterRoot();
    void chainFromAThreadStackRoot();
    void noPathBecauseOfUnexplainedSurplus();
    void noPathHeldByAnUnexplainedHolder();
    void noPathInACycleTheCollectorCannotSee();
    void gcInvisibleEdgesOnAPathAreMarked();
    void aPathThroughAFinalizersStateIsNoted();
    void nothingForBadIds();
};

void RetentionPathTextTest::chainFromAnInterpreterRoot() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription path = describe_path(*a, h.cache);
    QVERIFY(path.hasPath);
    QCOMPARE(path.target, h.cache);
    QCOMPARE(path.rootLabel, QString("sys.modules"));
    QCOMPARE(path.rootClass, QString("interpreter"));
    QCOMPARE(path.hops.size(), size_t{4});
    QCOMPARE(path.hops.front().node, h.modules);
    QCOMPARE(path.hops.front().edge, analysis::kNoEdge);
    QCOMPARE(path.hops.back().node, h.cache);
    QCOMPARE(path_as_text(path),
             QString::fromUtf8("sys.modules \u2192 dict (len=1) \u2192 ['app'] \u2192 module app \u2192 .__dict__ \u2192 "
                               "dict (len=2) \u2192 ['cache'] \u2192 app.Cache @ 0x7f0000001140"));
    QVERIFY(path.explanation.isEmpty());
    QVERIFY(path.finalizerNote.isEmpty());
}

void RetentionPathTextTest::chainFromAThreadStackRoot() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription path = describe_path(*a, h.leaky[1]);
    QVERIFY(path.hasPath);
    QCOMPARE(path.rootClass, QString("thread stack (thread MainThread)"));
    QCOMPARE(path_as_text(path), QString::fromUtf8("frame app.py:12 in main, local items \u2192 list (len=3) \u2192 [1] "
                                                   "\u2192 app.Leaky @ 0x7f0000001240"));
    // A root itself: the chain is the root label and the object.
    QCOMPARE(path_as_text(describe_path(*a, h.items)),
             QString::fromUtf8("frame app.py:12 in main, local items \u2192 list (len=3)"));
}

void RetentionPathTextTest::noPathBecauseOfUnexplainedSurplus() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription path = describe_path(*a, h.leaked);
    QVERIFY(!path.hasPath);
    QVERIFY(path.hops.empty());
    const QString reason = QString::fromUtf8(
        "no path from GC roots: 2 references that the GC cannot see (unexplained refcount surplus) \u2014 a C/C++ "
        "holder or a leak");
    QCOMPARE(path.explanation, reason);
    QCOMPARE(path_as_text(path), "app.Leaky @ 0x7f00000012c0: " + reason);
}

void RetentionPathTextTest::noPathHeldByAnUnexplainedHolder() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription path = describe_path(*a, h.payload);
    QVERIFY(!path.hasPath);
    QVERIFY2(path.explanation.startsWith("no path from GC roots: retained by app.Leaky @ 0x7f00000012c0, which has 2 "
                                         "references that the GC cannot see"),
             qPrintable(path.explanation));
    QCOMPARE(path.hops.size(), size_t{2});
    QCOMPARE(path.hops.front().node, h.leaked);
    const QStringList lines = path_as_text(path).split('\n');
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], "list (len=0) @ 0x7f0000001300: " + path.explanation);
    QCOMPARE(lines[1], QString());
    QCOMPARE(lines[2], QString::fromUtf8("held through: app.Leaky @ 0x7f00000012c0 \u2192 .payload \u2192 list (len=0)"));
}

void RetentionPathTextTest::noPathInACycleTheCollectorCannotSee() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription path = describe_path(*a, h.closure);
    QVERIFY(!path.hasPath);
    QVERIFY(path.hops.empty());
    // The reason names the type whose reference the collector cannot see,
    // and the cycle the object sits in.
    QVERIFY2(path.explanation.startsWith("no path from GC roots: held through a reference the garbage collector "
                                         "cannot see: fixture.Wrapper holds .value without reporting it in "
                                         "tp_traverse, so the collector can never free it"),
             qPrintable(path.explanation));
    QVERIFY2(path.explanation.contains("It is in cycle #0 (2 objects, 176 B): uncollectable: fixture.Wrapper holds "
                                       ".value without tp_traverse, so the garbage collector cannot see this cycle"),
             qPrintable(path.explanation));
    QVERIFY(path_as_text(path).startsWith("function fixture.make.<locals>.f @ 0x7f00000013c0: no path"));
}

void RetentionPathTextTest::gcInvisibleEdgesOnAPathAreMarked() {
    // root → holder ─(owned, unreported)→ native-held object: still a path
    // (the reference is owned), but one the collector cannot see.
    testing::SnapshotBuilder b;
    const uint32_t holder = b.node("ext.Holder", 1, {}, 32, format::kNodeGcTracked, "ext");
    const uint32_t held = b.node("app.Thing", 1, {}, 32, format::kNodeGcTracked, "app");
    b.edge(holder, held, format::EdgeKind::Native, b.string_id("std::shared_ptr<Thing>"), format::kEdgeOwned);
    b.root(holder, format::RootKind::Extension, "ext module state");
    const AnalysisPtr a = test_fixture::analyse(b.build());
    const PathDescription path = describe_path(*a, held);
    QVERIFY(path.hasPath);
    QCOMPARE(path.rootClass, QString("extension"));
    QCOMPARE(path.hops.size(), size_t{2});
    QVERIFY(path.hops[1].gcInvisible);
    QVERIFY(!path.hops[1].weak);
    QCOMPARE(path_as_text(path), QString::fromUtf8("ext module state \u2192 ext.Holder @ 0x7f0000001000 \u2192 "
                                                   "<native: std::shared_ptr<Thing>> \u2192 app.Thing @ 0x7f0000001040"));
    const QString html = path_as_html(path);
    QVERIFY2(html.contains("<b>ext module state</b>"), qPrintable(html));
    QVERIFY2(html.contains("(GC-invisible)"), qPrintable(html));
    QVERIFY2(html.contains("&lt;native: std::shared_ptr&lt;Thing&gt;&gt;"), qPrintable(html));
    QVERIFY2(html.contains(QString("href=\"refscope:node/%1\"").arg(held)), qPrintable(html));
}

// weakref.finalize(model, f, graph): finalize._registry[F] = info, info holds
// the weakref (callback F) and, through .args, the model it waits for.
void RetentionPathTextTest::aPathThroughAFinalizersStateIsNoted() {
    testing::SnapshotBuilder b;
    const uint32_t registry = b.node("dict", 1);
    b.root(registry, format::RootKind::Interpreter, "finalize._registry");
    const uint32_t finalizer = b.node("weakref.finalize", 2, {}, 32, format::kNodeGcTracked, "weakref");
    const uint32_t info = b.node("weakref.finalize._Info", 1, {}, 80, format::kNodeGcTracked, "weakref");
    b.dict_item(registry, finalizer, info);
    const uint32_t weakref = b.node("weakref.ReferenceType");
    b.edge(info, weakref, format::EdgeKind::Slot, b.string_id("weakref"));
    b.edge(weakref, finalizer, format::EdgeKind::Field, b.string_id("__callback__"));
    const uint32_t args = b.node("tuple");
    b.edge(info, args, format::EdgeKind::Slot, b.string_id("args"));
    const uint32_t model = b.node("app.Model", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(args, model, format::EdgeKind::Index, 0);
    b.edge(weakref, model, format::EdgeKind::Weak, 0, 0);
    const AnalysisPtr a = test_fixture::analyse(b.build());
    const PathDescription path = describe_path(*a, model);
    QVERIFY(path.hasPath);
    QVERIFY2(path.finalizerNote.startsWith("finalizer trap: this path runs through weakref.finalize._Info @ "),
             qPrintable(path.finalizerNote));
    QVERIFY(path.finalizerNote.contains("waiting for app.Model @ "));
    QVERIFY(path_as_text(path).endsWith("\n\n" + path.finalizerNote));
    QVERIFY(path_as_html(path).contains(path.finalizerNote.toHtmlEscaped()));
}

void RetentionPathTextTest::nothingForBadIds() {
    Heap h;
    const AnalysisPtr a = test_fixture::analysed_heap(h);
    const PathDescription none = describe_path(*a, kNoNode);
    QCOMPARE(none.target, kNoNode);
    QVERIFY(!none.hasPath);
    QVERIFY(none.explanation.isEmpty());
    QVERIFY(path_as_text(none).isEmpty());
    QVERIFY(path_as_html(none).isEmpty());
    QVERIFY(path_as_text(describe_path(*a, 100000)).isEmpty());
}

QTEST_MAIN(RetentionPathTextTest)
#include "retention_path_text_test.moc"
