#include "window/inspector_panel.h"

#include <QLabel>
#include <QStyle>
#include <QTextDocumentFragment>
#include <QTreeView>
#include <QVBoxLayout>

#include "models/cell_text.h"
#include "models/inspector_model.h"
#include "refscope/analysis/allocation_sites.h"
#include "refscope/analysis/descriptions.h"
#include "window/row_table_view.h"

namespace refscope::app {

namespace {

// "type app.Session · size 48 B · retained 1.2 KiB · refcount 1".
QString facts_line(const analysis::SnapshotAnalysis& a, uint32_t node) {
    const Snapshot& s = a.snapshot();
    QStringList facts;
    facts << InspectorPanel::tr("type %1").arg(to_qstring(analysis::type_name(s, node)));
    if (s.node_flags[node] & format::kNodeNative) facts << InspectorPanel::tr("native C/C++ object");
    facts << InspectorPanel::tr("size %1").arg(bytes_text(s.node_size[node]));
    if (const analysis::DominatorTree* tree = a.dominators()) {
        facts << InspectorPanel::tr("retained %1").arg(retained_text(*tree, node));
    }
    if (s.node_flags[node] & format::kNodeImmortal) {
        facts << InspectorPanel::tr("immortal");
    } else if (!(s.node_flags[node] & format::kNodeNative)) {
        facts << InspectorPanel::tr("refcount %1").arg(to_qstring(analysis::with_thousands_signed(s.node_refcount[node])));
    }
    return facts.join(QStringLiteral(" \u00b7 "));
}

// Where the object was allocated, as the path panel says it (the same
// analysis::allocation_site and frame_text), its frame a link
// "refscope:source/<frame id>"; "" when the snapshot has no tracebacks.
QString allocation_line(const Snapshot& s, uint32_t node) {
    if (!s.allocations.recorded()) return {};
    const uint32_t site = analysis::allocation_site(s, node);
    if (site == analysis::kNoFrame) return InspectorPanel::tr("Allocated: not traced");
    return InspectorPanel::tr("Allocated at <a href=\"refscope:source/%1\">%2</a>")
        .arg(site)
        .arg(QString::fromStdString(analysis::frame_text(s, site)).toHtmlEscaped());
}

}  // namespace

InspectorPanel::InspectorPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("inspectorPanel"));
    model_ = new InspectorModel(this);
    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("inspectorHeader"));
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse);
    connect(header_, &QLabel::linkActivated, this, [this](const QString& link) {
        const QString prefix = QStringLiteral("refscope:source/");
        bool ok = false;
        const uint32_t frame = link.startsWith(prefix) ? link.mid(prefix.size()).toUInt(&ok) : 0;
        if (ok) emit allocationFrameActivated(frame);
    });

    view_ = make_object_tree(this, QStringLiteral("inspectorView"), model_, InspectorModel::ValueColumn,
                             {InspectorModel::FieldColumn, InspectorModel::ValueColumn, InspectorModel::NotesColumn});
    view_->setMouseTracking(true);  // the hand cursor over values
    connect(view_, &QTreeView::activated, this, &InspectorPanel::onActivated);
    connect(view_, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        // Where a single click already activates (the style says so), the
        // activated signal follows this one and selects the value.
        if (view_->style()->styleHint(QStyle::SH_ItemView_ActivateItemOnSingleClick, nullptr, view_)) return;
        if (index.column() == InspectorModel::ValueColumn) onActivated(index);
    });
    connect(view_, &QTreeView::entered, this, [this](const QModelIndex& index) {
        const bool link = index.column() == InspectorModel::ValueColumn && model_->nodeAt(index) != kNoNode;
        if (link) {
            view_->viewport()->setCursor(Qt::PointingHandCursor);
        } else {
            view_->viewport()->unsetCursor();
        }
    });
    connect(view_, &QTreeView::viewportEntered, view_->viewport(), [this] { view_->viewport()->unsetCursor(); });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(header_);
    layout->addWidget(view_, 1);
    setFocusProxy(view_);
    showObject(kNoNode);
}

void InspectorPanel::setAnalysis(AnalysisPtr analysis) {
    model_->setAnalysis(std::move(analysis));
    showObject(kNoNode);
}

void InspectorPanel::showObject(uint32_t node) {
    model_->setTarget(node);
    renderHeader();
    if (model_->target() == kNoNode) return;
    // Every group open at its first batch, except the dict's keys: each is
    // already the name of a dict item above.
    for (int row = 0; row < model_->rowCount(); ++row) {
        const QModelIndex group = model_->index(row, 0);
        if (group == model_->groupIndex(InspectorModel::DictKeys)) continue;
        if (model_->canFetchMore(group)) model_->fetchMore(group);
        view_->expand(group);
    }
    view_->scrollToTop();
}

QString InspectorPanel::headerText() const {
    return QTextDocumentFragment::fromHtml(header_->text()).toPlainText();
}

void InspectorPanel::renderHeader() {
    const uint32_t node = model_->target();
    if (node == kNoNode) {
        header_->setText(tr("Select an object to see what it holds: its attributes, dict items, slots, elements, "
                            "frame locals and native children, each a link to its value."));
        return;
    }
    const analysis::SnapshotAnalysis& a = *model_->analysis();
    const Snapshot& s = a.snapshot();
    QStringList lines;
    lines << QStringLiteral("<b>%1</b>").arg(to_qstring(analysis::describe_node_at(s, node)).toHtmlEscaped());
    lines << facts_line(a, node).toHtmlEscaped();
    const QString preview = preview_text(s, node, 200);
    if (!preview.isEmpty()) lines << tr("Preview: %1").arg(preview.toHtmlEscaped());
    const QString frame = model_->frameLocation();
    if (!frame.isEmpty()) lines << tr("Frame: %1").arg(frame.toHtmlEscaped());
    const QString allocated = allocation_line(s, node);
    if (!allocated.isEmpty()) lines << allocated;
    const analysis::RunningFrame& running = model_->runningFrame();
    if (!running.locals.empty() || running.ambiguous) {
        lines << tr("It is running: its locals are held by its thread's stack, not by the frame object.");
    }
    const uint32_t fields = a.index().out_degree(node);
    lines << (fields == 0 ? tr("It holds no references.")
                          : tr("It holds %1 %2; click a value to select it.")
                                .arg(count_text(fields), fields == 1 ? tr("reference") : tr("references")));
    header_->setText(lines.join(QStringLiteral("<br>")));
}

void InspectorPanel::onActivated(const QModelIndex& index) {
    if (model_->isMoreItem(index)) {
        model_->showMore(index);
        return;
    }
    const uint32_t node = model_->nodeAt(index);
    if (node != kNoNode) emit objectActivated(node);
}

}  // namespace refscope::app
