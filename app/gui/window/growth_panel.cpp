#include "window/growth_panel.h"

#include <exception>

#include <QAction>
#include <QButtonGroup>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

#include "session/snapshot_timeline.h"
#include "window/growth_chart.h"

namespace refscope::app {

GrowthPanel::GrowthPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("growthPanel"));
    chart_ = new GrowthChart(this);

    objects_button_ = new QToolButton(this);
    objects_button_->setObjectName(QStringLiteral("growthObjects"));
    objects_button_->setText(tr("Objects"));
    objects_button_->setToolTip(tr("Draw the number of objects of each type"));
    bytes_button_ = new QToolButton(this);
    bytes_button_->setObjectName(QStringLiteral("growthBytes"));
    bytes_button_->setText(tr("Bytes"));
    bytes_button_->setToolTip(tr("Draw the shallow bytes of each type (the objects' own sizes)"));
    auto* measures = new QButtonGroup(this);
    for (QToolButton* button : {objects_button_, bytes_button_}) {
        button->setCheckable(true);
        button->setAutoRaise(true);
        measures->addButton(button);
    }
    bytes_button_->setChecked(true);
    connect(objects_button_, &QToolButton::toggled, this, [this](bool on) {
        if (on) setMeasure(GrowthMeasure::Objects);
    });
    connect(bytes_button_, &QToolButton::toggled, this, [this](bool on) {
        if (on) setMeasure(GrowthMeasure::Bytes);
    });

    export_action_ = new QAction(QIcon::fromTheme(QStringLiteral("document-export")), tr("Export Growth C&hart…"), this);
    export_action_->setStatusTip(tr("Save the growth chart as PNG or SVG"));
    export_action_->setEnabled(false);
    connect(export_action_, &QAction::triggered, this, &GrowthPanel::exportWithDialog);
    auto* export_button = new QToolButton(this);
    export_button->setObjectName(QStringLiteral("growthExport"));
    export_button->setDefaultAction(export_action_);
    export_button->setText(tr("Export…"));
    export_button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    export_button->setAutoRaise(true);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(objects_button_);
    bar->addWidget(bytes_button_);
    bar->addStretch(1);
    bar->addWidget(export_button);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(chart_, 1);

    connect(chart_, &GrowthChart::typeClicked, this, &GrowthPanel::setChosenType);
    setFocusProxy(bytes_button_);
    rebuild();
}

GrowthPanel::~GrowthPanel() = default;

void GrowthPanel::setTimeline(SnapshotTimeline* timeline) {
    if (timeline_) disconnect(timeline_, nullptr, this, nullptr);
    timeline_ = timeline;
    if (timeline_) {
        connect(timeline_, &SnapshotTimeline::snapshotsChanged, this, &GrowthPanel::refresh);
        connect(timeline_, &SnapshotTimeline::currentChanged, this, &GrowthPanel::refresh);
    }
    refresh();
}

void GrowthPanel::setChosenType(const QString& type) {
    if (type == chosen_) return;
    chosen_ = type;
    rebuild();
}

void GrowthPanel::setMeasure(GrowthMeasure measure) {
    (measure == GrowthMeasure::Objects ? objects_button_ : bytes_button_)->setChecked(true);
    if (measure == measure_) return;
    measure_ = measure;
    rebuild();
}

const GrowthSeries& GrowthPanel::series() const { return chart_->series(); }

TypeTotalsPtr GrowthPanel::totalsOf(const AnalysisPtr& analysis) const {
    const auto found = counted_.find(analysis.get());
    if (found == counted_.end() || found->second.analysis.lock() != analysis) return nullptr;
    return found->second.totals;
}

void GrowthPanel::takeFinished() {
    std::lock_guard lock(finished_->mutex);
    for (auto& [weak, totals] : finished_->totals) {
        const AnalysisPtr analysis = weak.lock();
        if (analysis && timeline_ && timeline_->indexOf(analysis) >= 0) counted_[analysis.get()] = {analysis, totals};
    }
    finished_->totals.clear();
}

void GrowthPanel::refresh() {
    takeFinished();
    // Closed snapshots' totals go with them.
    std::erase_if(counted_, [this](const auto& entry) {
        const AnalysisPtr analysis = entry.second.analysis.lock();
        return !analysis || !timeline_ || timeline_->indexOf(analysis) < 0;
    });
    std::vector<AnalysisPtr> missing;
    const std::vector<AnalysisPtr> process = timeline_ ? timeline_->sameProcess(timeline_->current())
                                                       : std::vector<AnalysisPtr>{};
    // One snapshot draws no chart: nothing is counted until a second arrives.
    for (size_t i = 0; i < process.size() && process.size() >= 2; ++i) {
        if (!totalsOf(process[i])) missing.push_back(process[i]);
    }
    if (!missing.empty()) {
        // One pass over each new snapshot's objects, off the GUI thread. A
        // newer request (the next live snapshot) supersedes this one; what
        // was counted so far is kept in `finished` for it.
        worker_.start([this, missing, finished = finished_](const std::atomic<bool>& stale) -> LatestRequestWorker::Delivery {
            for (const AnalysisPtr& analysis : missing) {
                if (stale) return {};
                try {
                    TypeTotalsPtr totals = count_types(analysis->snapshot());
                    std::lock_guard lock(finished->mutex);
                    finished->totals.emplace_back(analysis, std::move(totals));
                } catch (const std::exception&) {
                    // Out of memory counting one snapshot: it is left out of the chart.
                }
            }
            return [this] {
                takeFinished();
                rebuild();
            };
        });
    }
    rebuild();
}

void GrowthPanel::rebuild() {
    const AnalysisPtr current = timeline_ ? timeline_->current() : nullptr;
    std::vector<GrowthSample> samples;
    int current_sample = -1;
    size_t open = 0;
    if (timeline_) {
        for (const AnalysisPtr& analysis : timeline_->sameProcess(current)) {
            ++open;
            TypeTotalsPtr totals = totalsOf(analysis);
            if (!totals) continue;
            if (analysis == current) current_sample = static_cast<int>(samples.size());
            const SnapshotHeader& header = analysis->snapshot().header;
            samples.push_back({header.sequence, header.time_unix_ns, SnapshotTimeline::snapshotLabel(*analysis),
                               std::move(totals)});
        }
    }
    GrowthSeries series = build_growth_series(std::move(samples), measure_, chosen_.toStdString());
    series.current = current_sample;
    QString empty;
    if (!current) {
        empty = tr("Open snapshots of a process to see how its types grow");
    } else if (open < 2) {
        empty = tr("Open or take a second snapshot of this process to see growth");
    } else {
        empty = tr("Counting the objects of each snapshot…");
    }
    chart_->setSeries(std::move(series), current ? SnapshotTimeline::processLabel(current->snapshot()) : QString(),
                      empty);
    export_action_->setEnabled(chart_->hasChart());
}

bool GrowthPanel::exportTo(const QString& path, QString* error) const { return chart_->exportTo(path, error); }

void GrowthPanel::exportWithDialog() {
    if (!chart_->hasChart()) {
        emit message(tr("Nothing to export yet: open or take a second snapshot of this process"));
        return;
    }
    const QStringList filters{tr("PNG image (*.png)"), tr("SVG drawing (*.svg)")};
    const QString key = QStringLiteral("files/lastDirectory");  // the window's export folder too
    QSettings settings;
    QString chosen_filter = filters.front();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Growth Chart"), QDir(settings.value(key).toString()).filePath(QStringLiteral("refscope-growth.png")),
        filters.join(QStringLiteral(";;")), &chosen_filter);
    if (path.isEmpty()) return;
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg")) {
        path += chosen_filter == filters.back() ? QStringLiteral(".svg") : QStringLiteral(".png");
    }
    settings.setValue(key, QFileInfo(path).absolutePath());
    QString error;
    emit message(exportTo(path, &error) ? tr("Exported %1").arg(path) : error);
}

}  // namespace refscope::app
