#include "window/growth_panel.h"

#include <algorithm>
#include <exception>
#include <map>

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

namespace {

// The chart's point for a snapshot: time, sequence and label travel with the
// totals, so the x axis and tooltips stay right once the analysis is gone.
GrowthSample sample_of(const analysis::SnapshotAnalysis& analysis, TypeTotalsPtr totals) {
    GrowthSample sample;
    const SnapshotHeader& header = analysis.snapshot().header;
    sample.sequence = header.sequence;
    sample.time_unix_ns = header.time_unix_ns;
    sample.label = SnapshotTimeline::snapshotLabel(analysis);
    sample.totals = std::move(totals);
    if (!analysis.path().empty()) sample.path = SnapshotTimeline::canonicalPath(QString::fromStdString(analysis.path()));
    return sample;
}

// The same analysis, even when one of them has expired.
bool same_analysis(const std::weak_ptr<const analysis::SnapshotAnalysis>& a,
                   const std::weak_ptr<const analysis::SnapshotAnalysis>& b) {
    return !a.owner_before(b) && !b.owner_before(a);
}

}  // namespace

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

    fit_button_ = new QToolButton(this);
    fit_button_->setObjectName(QStringLiteral("growthFitChosen"));
    fit_button_->setText(tr("Fit Chosen"));
    fit_button_->setToolTip(tr("Scale the axis to the chosen type (the selected suspect's, or the one clicked in "
                               "the legend), so a small leak next to big types is readable; larger types run off "
                               "the top. Off: the axis fits every type."));
    fit_button_->setCheckable(true);
    fit_button_->setChecked(chart_->fitChosen());
    fit_button_->setAutoRaise(true);
    connect(fit_button_, &QToolButton::toggled, chart_, &GrowthChart::setFitChosen);

    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(0, 0, 0, 0);
    bar->addWidget(new QLabel(tr("Show:"), this));
    bar->addWidget(objects_button_);
    bar->addWidget(bytes_button_);
    bar->addSpacing(12);
    bar->addWidget(fit_button_);
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
        connect(timeline_, &SnapshotTimeline::snapshotClosed, this, &GrowthPanel::onSnapshotClosed);
        connect(timeline_, &SnapshotTimeline::snapshotsChanged, this, &GrowthPanel::refresh);
        // The timeline says snapshotsChanged before currentChanged when a
        // snapshot is added: counting starts on the first; the second only
        // redraws (a second refresh would count the new heap again).
        connect(timeline_, &SnapshotTimeline::currentChanged, this, &GrowthPanel::rebuild);
    }
    refresh();
}

// Neither the chosen type nor the measure changes a point: the series is
// drawn again from the samples already gathered.
void GrowthPanel::setChosenType(const QString& type) {
    if (type == chosen_) return;
    chosen_ = type;
    redraw();
}

void GrowthPanel::setMeasure(GrowthMeasure measure) {
    (measure == GrowthMeasure::Objects ? objects_button_ : bytes_button_)->setChecked(true);
    if (measure == measure_) return;
    measure_ = measure;
    redraw();
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
        if (analysis && timeline_ && timeline_->indexOf(analysis) >= 0) {
            counted_[analysis.get()] = {analysis, totals};
            continue;
        }
        // Closed by the app while it was being counted: its point is kept.
        const auto pending = std::find_if(pending_.begin(), pending_.end(),
                                          [&](const Pending& p) { return same_analysis(p.analysis, weak); });
        if (pending != pending_.end()) {
            pending->sample.totals = totals;
            history_.retain(pending->process, std::move(pending->sample));
            pending_.erase(pending);
        }
    }
    finished_->totals.clear();
    // Under the lock: a count holds its analysis until it has handed its
    // totals over, so one nobody holds any more has none coming.
    std::erase_if(pending_, [](const Pending& p) { return p.analysis.expired(); });
}

void GrowthPanel::onSnapshotClosed(const AnalysisPtr& analysis, SnapshotTimeline::CloseReason reason) {
    if (!analysis || !timeline_) return;
    const QString process = SnapshotTimeline::processKey(analysis->snapshot());
    TypeTotalsPtr totals = totalsOf(analysis);
    counted_.erase(analysis.get());
    GrowthSample sample = sample_of(*analysis, totals);
    if (reason != SnapshotTimeline::CloseReason::Closed) {
        // Closed by the live limit or read again: the point stays, now or
        // when its count finishes (refresh keeps it queued).
        if (totals) {
            history_.retain(process, std::move(sample));
        } else {
            pending_.push_back({analysis, process, std::move(sample)});
        }
        return;
    }
    // A person closed it: its point goes; with the process's last open
    // snapshot, everything of the process goes.
    std::erase_if(pending_, [&](const Pending& p) { return same_analysis(p.analysis, analysis); });
    history_.forget(process, sample.path);
    if (timeline_->sameProcess(analysis).empty()) {
        history_.forget(process);
        std::erase_if(pending_, [&](const Pending& p) { return p.process == process; });
    }
}

std::vector<AnalysisPtr> GrowthPanel::toCount() const {
    std::vector<AnalysisPtr> missing;
    for (const Pending& pending : pending_) {
        if (AnalysisPtr analysis = pending.analysis.lock()) missing.push_back(std::move(analysis));
    }
    if (!timeline_) return missing;
    const AnalysisPtr current = timeline_->current();
    const QString current_process = current ? SnapshotTimeline::processKey(current->snapshot()) : QString();
    // Open, retained, and closed while waiting for their count, per process.
    std::map<QString, size_t> snapshots_of;
    for (const AnalysisPtr& analysis : timeline_->snapshots()) ++snapshots_of[SnapshotTimeline::processKey(analysis->snapshot())];
    for (const Pending& pending : pending_) ++snapshots_of[pending.process];
    std::vector<AnalysisPtr> others;
    for (const AnalysisPtr& analysis : timeline_->snapshots()) {
        const QString process = SnapshotTimeline::processKey(analysis->snapshot());
        // One snapshot draws no chart: nothing is counted until a second arrives.
        if (snapshots_of[process] + history_.count(process) < 2 || totalsOf(analysis)) continue;
        (process == current_process ? missing : others).push_back(analysis);
    }
    // Every process, not only the one shown: a live session's snapshots of
    // another process are counted before its limit closes them.
    missing.insert(missing.end(), others.begin(), others.end());
    return missing;
}

void GrowthPanel::refresh() {
    takeFinished();
    std::erase_if(counted_, [this](const auto& entry) {
        const AnalysisPtr analysis = entry.second.analysis.lock();
        return !analysis || !timeline_ || timeline_->indexOf(analysis) < 0;
    });
    const std::vector<AnalysisPtr> missing = toCount();
    if (!missing.empty()) {
        // One pass over each new snapshot's objects, off the GUI thread. A
        // newer request (the next live snapshot) supersedes this one; what
        // was counted so far is kept in `finished` for it, and the request
        // holds each analysis until counted, even once closed.
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
    const QString process = current ? SnapshotTimeline::processKey(current->snapshot()) : QString();
    std::vector<GrowthSample> open_samples;
    current_totals_.reset();
    size_t open = 0;
    if (current) {
        for (const AnalysisPtr& analysis : timeline_->sameProcess(current)) {
            ++open;
            TypeTotalsPtr totals = totalsOf(analysis);
            if (!totals) continue;
            if (analysis == current) current_totals_ = totals;
            open_samples.push_back(sample_of(*analysis, std::move(totals)));
        }
    }
    // The closed snapshots' points and the open ones', in one series (no
    // process has the key "", so nothing is retained without a current one).
    const std::vector<GrowthSample>& retained = history_.samples(process);
    const size_t points = open + retained.size();
    samples_ = merge_samples(retained, std::move(open_samples));
    subject_ = current ? SnapshotTimeline::processLabel(current->snapshot()) : QString();
    if (!current) {
        empty_ = tr("Open snapshots of a process to see how its types grow");
    } else if (points < 2) {
        empty_ = tr("Open or take a second snapshot of this process to see growth");
    } else {
        empty_ = tr("Counting the objects of each snapshot…");
    }
    redraw();
}

void GrowthPanel::redraw() {
    GrowthSeries series = build_growth_series(samples_, measure_, chosen_.toStdString());
    for (size_t i = 0; i < series.samples.size() && current_totals_; ++i) {
        if (series.samples[i].totals == current_totals_) series.current = static_cast<int>(i);
    }
    chart_->setSeries(std::move(series), subject_, empty_);
    fit_button_->setEnabled(chart_->series().chosenLine() != nullptr);
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
