#include "graph/graph_export.h"

#include <QFile>
#include <QMetaObject>
#include <exception>
#include <filesystem>

#include "refscope/analysis/descriptions.h"

namespace refscope::app {

graphviz::RenderOptions graph_export_options(const GraphData& graph) {
    graphviz::RenderOptions options;
    options.rankdir = graph.rankDir;
    if (!graph.analysis || graph.targets.empty()) return options;
    const Snapshot& s = graph.analysis->snapshot();
    const size_t count = graph.targets.size();
    for (uint32_t t : graph.targets) {
        if (t >= s.node_count()) return options;
    }
    if (count == 1) {
        options.title = "why is " + analysis::describe_node_at(s, graph.targets[0]) + " alive?";
        return options;
    }
    const std::string_view type = analysis::type_name(s, graph.targets[0]);
    bool one_type = true;
    for (uint32_t t : graph.targets) one_type = one_type && analysis::type_name(s, t) == type;
    options.title = "why are " + std::to_string(count) + " \u00d7 " +
                    (one_type ? std::string(type) : std::string("objects")) + " alive?";
    return options;
}

bool export_graph(const GraphData& graph, const QString& path, graphviz::OutputFormat format,
                  QString* error) {
    const auto fail = [&](const QString& message) {
        if (error) *error = message;
        return false;
    };
    if (graph.subgraph.nodes.empty()) {
        return fail(QObject::tr("Nothing to export: the graph is empty."));
    }
    if (path.isEmpty()) return fail(QObject::tr("Cannot export the graph: no file name given."));
    try {
        graphviz::render_to_file(graph.subgraph, format,
                                 std::filesystem::path(QFile::encodeName(path).toStdString()),
                                 graph_export_options(graph));
    } catch (const std::exception& e) {
        return fail(
            QObject::tr("Cannot export the graph: %1").arg(QString::fromStdString(e.what())));
    }
    return true;
}

QString graph_export_filter(graphviz::OutputFormat format) {
    switch (format) {
        case graphviz::OutputFormat::Png:
            return QObject::tr("PNG image (*.png)");
        case graphviz::OutputFormat::Svg:
            return QObject::tr("SVG drawing (*.svg)");
        case graphviz::OutputFormat::Pdf:
            return QObject::tr("PDF document (*.pdf)");
        case graphviz::OutputFormat::Dot:
            return QObject::tr("Graphviz DOT (*.dot *.gv)");
    }
    return {};
}

QString graph_export_extension(graphviz::OutputFormat format) {
    return QStringLiteral(".") +
           QString::fromLatin1(graphviz::output_format_name(format).data(),
                               static_cast<qsizetype>(graphviz::output_format_name(format).size()));
}

GraphExportJob::GraphExportJob(QObject* parent) : QObject(parent) {}

GraphExportJob::~GraphExportJob() {
    if (worker_.joinable()) worker_.join();
    // A result posted before the join is a queued event for this object;
    // ~QObject discards it.
}

bool GraphExportJob::start(GraphDataPtr graph, const QString& path, graphviz::OutputFormat format) {
    if (busy_ || !graph) return false;
    if (worker_.joinable()) worker_.join();  // the previous export, already done
    busy_ = true;
    emit busyChanged(true);
    worker_ = std::thread([this, graph = std::move(graph), path, format] {
        QString error;
        const bool ok = export_graph(*graph, path, format, &error);
        QMetaObject::invokeMethod(
            this, [this, path, ok, error] { deliver(path, ok, error); }, Qt::QueuedConnection);
    });
    return true;
}

void GraphExportJob::deliver(const QString& path, bool ok, const QString& message) {
    if (worker_.joinable()) worker_.join();  // it posted this as its last act
    busy_ = false;
    emit busyChanged(false);
    if (ok) {
        emit finished(path);
    } else {
        emit failed(path, message);
    }
}

}  // namespace refscope::app
