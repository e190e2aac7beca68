// Extracting and laying out a subgraph takes from milliseconds to about a
// second (Graphviz's dot on a few hundred nodes), so it never runs on the GUI
// thread: GraphLayoutJob extracts the subgraph (core extract_subgraph) and
// lays it out (graphviz::compute_layout, which holds the process-wide
// Graphviz lock) on the app's newest-request-wins worker
// (session/LatestRequestWorker, shared with the comparison, filter and model
// jobs).
//
// Only the newest request counts. A request made while another is waiting
// replaces it; one made while another runs makes the running one stale: its
// layout is skipped if it has not started, and its result is dropped on
// arrival. finished()/failed() are emitted on the job's (GUI) thread, only
// ever for the newest request.
#pragma once

#include <QObject>
#include <QString>
#include <functional>

#include "graph/graph_data.h"
#include "session/latest_request_worker.h"

namespace refscope::app {

class GraphLayoutJob : public QObject {
    Q_OBJECT

public:
    explicit GraphLayoutJob(QObject* parent = nullptr);
    // Makes every outstanding request stale and joins the worker (the
    // LatestRequestWorker's destructor): no thread outlives the job. Waits for a layout already inside Graphviz (which
    // cannot be interrupted; ≤ about a second for the sizes the view asks for).
    ~GraphLayoutJob() override;

    GraphLayoutJob(const GraphLayoutJob&) = delete;
    GraphLayoutJob& operator=(const GraphLayoutJob&) = delete;

    // Queues `request`, superseding every earlier one. Returns its id (the
    // GraphData::requestId of its result).
    quint64 request(GraphRequest request);
    // Drops every outstanding request (e.g. the snapshot was closed): nothing
    // requested so far will be delivered.
    void cancel();
    // True from a request until its result (or failure) is delivered.
    bool busy() const { return busy_; }
    quint64 latestRequestId() const { return latest_; }

    // Does the work of one request on the calling thread: what the worker
    // runs, exposed for benchmarks. Throws std::exception with a clear message.
    // `superseded`, when given, is polled between the stages; when it returns
    // true the layout is skipped and nullptr returned.
    static GraphDataPtr build(GraphRequest request, quint64 requestId,
                              const std::function<bool()>& superseded = {});

signals:
    void finished(refscope::app::GraphDataPtr graph);
    void failed(QString message);
    void busyChanged(bool busy);

private:
    void setBusy(bool busy);

    quint64 latest_ = 0;  // the id of the newest request (or cancel); GUI thread
    bool busy_ = false;   // GUI thread
    // Last: destroyed, and joined, before the members its tasks' deliveries use.
    LatestRequestWorker worker_{LatestRequestWorker::Priority::Normal};
};

}  // namespace refscope::app
