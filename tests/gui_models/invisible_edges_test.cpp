// One rule for "a reference the garbage collector cannot see"
// (GraphIndex::hidden_from_gc): the same snapshot through the CLI's JSON
// (`referrers`), the app's retainers model and path text, the retention-path
// graph (the subgraph both the app's graph and `export-path` draw, and the
// DOT text `export-path` writes) and the Chrome .heapsnapshot export, which
// must all mark exactly the same edges.
//
// The snapshot holds every case the rule tells apart: a Wrapper type without
// GC support holding itself (hidden: untracked, but it holds references), a
// dict's unreported str key (not: atomic), a Python object's edge into a
// native C++ node (not: the native → Python edge is the one that matters),
// that native node's edge back into a Python object (hidden), a weak
// reference (not), an ordinary traversed reference (not) and a code
// object's unreported edge to a tuple the collector untracked (not).
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <set>
#include <utility>

#include "heap_fixture.h"
#include "models/model_roles.h"
#include "models/retainers_tree_model.h"
#include "models/retention_path_text.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/subgraph.h"
#include "refscope/format/snapshot_io.h"
#include "session/analysis_ptr.h"

using namespace refscope;
using namespace refscope::app;
using format::EdgeKind;

namespace {

using Pair = std::pair<uint64_t, uint64_t>;  // (source address, target address)

struct Heap {
    uint32_t module_dict, wrapper, key, tensor, impl, preserved, weakref, item;
};

Snapshot build(Heap& h) {
    testing::SnapshotBuilder b;
    constexpr uint8_t kOwnedOnly = format::kEdgeOwned;
    h.module_dict = b.node("dict", 1, "app");
    b.root(h.module_dict, format::RootKind::Interpreter, "sys.modules['app']");
    h.wrapper = b.node("app.Wrapper", 2, {}, 48, 0, "app");  // no Py_TPFLAGS_HAVE_GC
    h.key = b.str("w");
    b.edge(h.module_dict, h.key, EdgeKind::DictKey, 0, kOwnedOnly);  // str key: unreported
    b.edge(h.module_dict, h.wrapper, EdgeKind::DictValue, h.key);
    b.edge(h.wrapper, h.wrapper, EdgeKind::Slot, b.string_id("value"), kOwnedOnly);
    h.tensor = b.node("torch.Tensor", 1, {}, 80, format::kNodeGcTracked, "torch");
    b.dict_item(h.module_dict, b.str("t"), h.tensor);
    h.impl = b.node("c10::TensorImpl", 1, {}, 200, format::kNodeNative, "torch");
    b.edge(h.tensor, h.impl, EdgeKind::Native, b.string_id("cdata"), kOwnedOnly);
    h.preserved = b.node("app.Grad", 1, {}, 64, format::kNodeGcTracked, "app");
    b.edge(h.impl, h.preserved, EdgeKind::Native, b.string_id("pyobj_slot_"), kOwnedOnly);
    h.weakref = b.node("weakref.ReferenceType", 1, {}, 80, format::kNodeGcTracked, "weakref");
    b.dict_item(h.module_dict, b.str("r"), h.weakref);
    b.edge(h.weakref, h.preserved, EdgeKind::Weak, 0, 0);
    h.item = b.node("list", 1, {}, 64);
    b.dict_item(h.module_dict, b.str("l"), h.item);
    b.edge(h.item, h.tensor, EdgeKind::Index, 0);
    // A code object (no GC) holding a tuple of names the collector untracked:
    // tuples have tracked instances too, so this one holds only atomic
    // objects and can close no cycle.
    const uint32_t code = b.node("code", 1, "f", 160, 0);
    b.dict_item(h.module_dict, b.str("code"), code);
    const uint32_t names = b.node("tuple", 1, {}, 48, 0);
    b.edge(code, names, EdgeKind::Field, b.string_id("co_names"), kOwnedOnly);
    b.edge(names, b.str("x"), EdgeKind::Index, 0);
    const uint32_t tracked_tuple = b.node("tuple", 1, {}, 48, format::kNodeGcTracked);
    b.dict_item(h.module_dict, b.str("pair"), tracked_tuple);
    b.edge(tracked_tuple, h.item, EdgeKind::Index, 0);
    Snapshot s = b.build();
    // Refcounts: exactly the owned references, plus the module dict's root.
    for (size_t n = 0; n < s.node_count(); ++n) s.node_refcount[n] = 0;
    for (size_t e = 0; e < s.edge_count(); ++e)
        if (s.edge_flags[e] & format::kEdgeOwned) ++s.node_refcount[s.edge_target[e]];
    s.node_refcount[h.module_dict] += 1;
    return s;
}

QString run_cli(const QStringList& arguments) {
    QProcess cli;
    cli.start(QString::fromUtf8(REFSCOPE_CLI), arguments);
    if (!cli.waitForFinished(60000) || cli.exitCode() != 0) {
        qWarning("refscope-cli %s: %s", qPrintable(arguments.join(' ')), cli.readAllStandardError().constData());
        return {};
    }
    return QString::fromUtf8(cli.readAllStandardOutput());
}

uint64_t address_of(const QString& hex) { return hex.toULongLong(nullptr, 16); }

}  // namespace

class InvisibleEdgesTest : public QObject {
    Q_OBJECT
private slots:
    void everyConsumerMarksTheSameEdges();
};

void InvisibleEdgesTest::everyConsumerMarksTheSameEdges() {
    Heap h;
    Snapshot snapshot = build(h);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath("heap.rscope");
    format::write_snapshot_file(snapshot, file.toStdString());
    const AnalysisPtr a = test_fixture::analyse(std::move(snapshot));
    const Snapshot& s = a->snapshot();
    const analysis::GraphIndex& index = a->index();
    const auto pair = [&](uint32_t from, uint32_t to) { return Pair{s.node_address[from], s.node_address[to]}; };

    // The rule itself, case by case.
    std::set<Pair> expected;
    for (uint32_t e = 0; e < index.edge_count(); ++e)
        if (index.hidden_from_gc(e)) expected.insert(pair(index.source(e), index.target(e)));
    QCOMPARE(expected, (std::set<Pair>{pair(h.wrapper, h.wrapper), pair(h.impl, h.preserved)}));

    // The CLI: `referrers --json` of every object.
    std::set<Pair> cli;
    for (uint32_t n = 0; n < s.node_count(); ++n) {
        const QString out = run_cli({"--json", "referrers", file,
                                     QString::fromStdString(analysis::format_address(s.node_address[n])),
                                     "--top", "0"});
        QVERIFY(!out.isEmpty());
        for (const QJsonValue hop : QJsonDocument::fromJson(out.toUtf8()).object()["referrers"].toArray())
            if (hop["gc_invisible"].toBool())
                cli.insert({address_of(hop["node"]["address"].toString()), s.node_address[n]});
    }
    QCOMPARE(cli, expected);

    // The app: the retainers of every object, and the path to the preserved one.
    std::set<Pair> retainers;
    RetainersTreeModel model;
    model.setAnalysis(a);
    for (uint32_t n = 0; n < s.node_count(); ++n) {
        model.setTarget(n);
        const QModelIndex top = model.index(0, 0);
        if (model.canFetchMore(top)) model.fetchMore(top);
        for (int row = 0; row < model.rowCount(top); ++row) {
            const QModelIndex child = model.index(row, RetainersTreeModel::NotesColumn, top);
            if (model.data(child).toString().contains("GC-invisible"))
                retainers.insert(pair(model.data(child, NodeIdRole).toUInt(), n));
        }
    }
    QCOMPARE(retainers, expected);
    const PathDescription path = describe_path(*a, h.preserved);
    QVERIFY(path.hasPath);
    QVERIFY(path.hops.back().gcInvisible);                // impl → preserved
    QVERIFY(!path.hops[path.hops.size() - 2].gcInvisible);  // tensor → impl

    // The retention-path graph, in-process and as `export-path`'s DOT text.
    const uint32_t targets[] = {h.preserved, h.wrapper};
    analysis::SubgraphOptions options;
    options.hops = 2;
    const analysis::Subgraph graph = analysis::extract_subgraph(index, a->roots(), a->paths(), targets, options);
    std::set<Pair> drawn;
    size_t drawn_edges = 0;
    for (const analysis::SubgraphEdge& e : graph.edges) {
        if (!e.gc_invisible) continue;
        ++drawn_edges;
        drawn.insert(pair(graph.nodes[e.from].node, graph.nodes[e.to].node));
    }
    QCOMPARE(drawn, expected);
    size_t dot_edges = 0;
    for (const uint32_t target : targets) {
        const QString dot = dir.filePath(QStringLiteral("path-%1.dot").arg(target));
        run_cli({"export-path", file, "--to", QString::fromStdString(analysis::format_address(s.node_address[target])),
                 "--format", "dot", "--hops", "2", "-o", dot});
        QFile in(dot);
        QVERIFY(in.open(QIODevice::ReadOnly));
        dot_edges += QString::fromUtf8(in.readAll()).count("GC cannot see: an owned reference");
    }
    QCOMPARE(dot_edges, std::size(targets));  // one invisible edge on each drawing
    QCOMPARE(drawn_edges, size_t{2});

    // The Chrome .heapsnapshot export: edge names end in " [GC-invisible]".
    const QString heapsnapshot = dir.filePath("heap.heapsnapshot");
    run_cli({"export-heapsnapshot", file, "-o", heapsnapshot});
    QFile in(heapsnapshot);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QJsonObject chrome = QJsonDocument::fromJson(in.readAll()).object();
    const QJsonArray nodes = chrome["nodes"].toArray(), edges = chrome["edges"].toArray(),
                     strings = chrome["strings"].toArray();
    const QJsonArray node_fields = chrome["snapshot"]["meta"]["node_fields"].toArray();
    const QJsonArray edge_fields = chrome["snapshot"]["meta"]["edge_fields"].toArray();
    const int nf = node_fields.size(), ef = edge_fields.size();
    const int id_at = node_fields.toVariantList().indexOf("id");
    const int count_at = node_fields.toVariantList().indexOf("edge_count");
    const int type_at = edge_fields.toVariantList().indexOf("type");
    const int property = chrome["snapshot"]["meta"]["edge_types"][0].toArray().toVariantList().indexOf("property");
    const int name_at = edge_fields.toVariantList().indexOf("name_or_index");
    const int to_at = edge_fields.toVariantList().indexOf("to_node");
    // Object ids are 2 * node + 3 (docs/heapsnapshot.md); synthetic nodes have others.
    const auto snapshot_node = [&](int position) {
        const qint64 id = nodes[position * nf + id_at].toInteger();
        return (id - 3) % 2 == 0 && id >= 3 && (id - 3) / 2 < qint64(s.node_count()) ? uint32_t((id - 3) / 2) : kNoNode;
    };
    std::set<Pair> exported;
    int edge = 0;
    for (int position = 0; position * nf < nodes.size(); ++position) {
        const int count = nodes[position * nf + count_at].toInt();
        for (int i = 0; i < count; ++i, ++edge) {
            if (edges[edge * ef + type_at].toInt() != property) continue;
            const QString name = strings[edges[edge * ef + name_at].toInt()].toString();
            if (!name.endsWith(" [GC-invisible]")) continue;
            const uint32_t from = snapshot_node(position);
            const uint32_t to = snapshot_node(edges[edge * ef + to_at].toInt() / nf);
            QVERIFY(from != kNoNode && to != kNoNode);
            exported.insert(pair(from, to));
        }
    }
    QCOMPARE(exported, expected);
}

QTEST_GUILESS_MAIN(InvisibleEdgesTest)
#include "invisible_edges_test.moc"
