// Exporting the drawn graph as PNG, SVG, PDF or DOT.
//
// The file is rendered by core's Graphviz renderer (graphviz::render_to_file)
// from the same Subgraph the view shows, not painted from the Qt scene:
//  - it looks exactly like `refscope-cli export-path` output (one look for
//    every picture of a heap refscope makes, and DOT is only possible this way);
//  - SVG and PDF come out as real vector documents with Graphviz's text, links
//    and tooltips, PNG is resolution-capped for big graphs;
//  - render_to_file writes atomically (temporary file + rename): a failed or
//    interrupted export never leaves half a file, and an existing file is
//    untouched on error.
// The drawing carries a title ("why is app.Leaky @ 0x… alive?") and the
// subgraph's notes, as the CLI's does.
#pragma once

#include <QObject>
#include <QString>
#include <thread>

#include "graph/graph_data.h"

namespace refscope::app {

// The title and options the export uses for `graph`.
graphviz::RenderOptions graph_export_options(const GraphData& graph);

// Renders `graph` to `path` on the calling thread (under the Graphviz lock;
// up to about a second for a few hundred nodes). On failure returns false and
// sets `*error` (when given) to one clear sentence; nothing is left at `path`.
bool export_graph(const GraphData& graph, const QString& path, graphviz::OutputFormat format,
                  QString* error);

// "PNG image (*.png)" etc., and the extension (".png") of a format.
QString graph_export_filter(graphviz::OutputFormat format);
QString graph_export_extension(graphviz::OutputFormat format);

// Exports on a worker thread, one at a time, so the window stays responsive
// while Graphviz renders. Results are signalled on the job's thread.
class GraphExportJob : public QObject {
    Q_OBJECT

public:
    explicit GraphExportJob(QObject* parent = nullptr);
    // Waits for a running export to finish (rendering cannot be interrupted;
    // the file is then complete or absent, never half-written).
    ~GraphExportJob() override;

    // False (and nothing started) when an export is already running or there
    // is no graph.
    bool start(GraphDataPtr graph, const QString& path, graphviz::OutputFormat format);
    bool busy() const { return busy_; }

signals:
    void finished(QString path);
    void failed(QString path, QString message);
    void busyChanged(bool busy);

private:
    void deliver(const QString& path, bool ok, const QString& message);

    bool busy_ = false;
    std::thread worker_;
};

}  // namespace refscope::app
