#include "window/path_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "models/retention_path_text.h"
#include "refscope/analysis/allocation_sites.h"
#include "window/source_opener.h"

namespace refscope::app {

namespace {

// "1 hop", "3 hops" (as the CLI's path output says it).
QString hops_text(size_t hops) {
    return hops == 1 ? PathPanel::tr("1 hop") : PathPanel::tr("%1 hops").arg(hops);
}

// Where the object was allocated, when the snapshot has tracebacks: the
// site and the traceback, each frame a link "refscope:source/<frame id>"
// that opens the line in the user's editor; and the same as the CLI's
// `path` prints it, for the clipboard.
void allocation_section(const Snapshot& s, uint32_t node, QString& html, QString& plain) {
    if (!s.allocations.recorded()) return;
    const std::vector<uint32_t> frames = analysis::allocation_frames(s, node);
    if (frames.empty()) {
        const QString text = PathPanel::tr("allocated: not traced (allocated before tracemalloc started, or static)");
        html += QStringLiteral("<p style=\"color:gray\">%1</p>").arg(text.toHtmlEscaped());
        plain += QStringLiteral("\n\n") + text;
        return;
    }
    const auto link = [&](uint32_t frame) {
        return QStringLiteral("<a href=\"refscope:source/%1\">%2</a>")
            .arg(frame)
            .arg(QString::fromStdString(analysis::frame_text(s, frame)).toHtmlEscaped());
    };
    const uint32_t site = analysis::allocation_site(s, node);
    html += PathPanel::tr("<p><b>Allocated at</b> %1</p>").arg(link(site));
    plain += QStringLiteral("\n\nallocated at ") + QString::fromStdString(analysis::frame_text(s, site));
    if (frames.size() == 1 && frames.front() == site) return;
    html += PathPanel::tr("<p style=\"color:gray\">Traceback, most recent call first:</p><ol>");
    plain += QStringLiteral("\n  traceback, most recent call first:");
    for (const uint32_t frame : frames) {
        html += QStringLiteral("<li>") + link(frame) + QStringLiteral("</li>");
        plain += QStringLiteral("\n    ") + QString::fromStdString(analysis::frame_text(s, frame));
    }
    html += QStringLiteral("</ol>");
}

}  // namespace

PathPanel::PathPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("pathPanel"));
    title_ = new QLabel(this);
    title_->setWordWrap(true);
    title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    browser_ = new QTextBrowser(this);
    browser_->setObjectName(QStringLiteral("pathText"));
    browser_->setOpenLinks(false);
    connect(browser_, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        // path_as_html links objects as "refscope:node/<id>".
        const QString target = url.toString();
        const QString prefix = QStringLiteral("refscope:node/");
        const QString source = QStringLiteral("refscope:source/");
        bool ok = false;
        if (target.startsWith(prefix)) {
            const uint32_t node = target.mid(prefix.size()).toUInt(&ok);
            if (ok) emit objectActivated(node);
        } else if (target.startsWith(source)) {
            const uint32_t frame = target.mid(source.size()).toUInt(&ok);
            if (ok) openFrame(frame);
        }
    });
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("pathStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    copy_button_ = new QPushButton(tr("Copy Path as Text"), this);
    copy_button_->setObjectName(QStringLiteral("copyPath"));
    connect(copy_button_, &QPushButton::clicked, this, &PathPanel::copyToClipboard);

    // The box is a few lines tall at 1280×800 (it shares its column with
    // the graph): the button sits beside the title and the status line shows
    // only when there is something to say, so the path, its root and where
    // the object was allocated get those lines. A path is one long word:
    // it wraps anywhere rather than run past the box.
    browser_->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    status_->hide();
    auto* top = new QHBoxLayout;
    top->addWidget(title_, 1);
    top->addWidget(copy_button_, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(browser_, 1);
    layout->addWidget(status_);
    setFocusProxy(browser_);
    render();
}

void PathPanel::setAnalysis(AnalysisPtr analysis) {
    analysis_ = std::move(analysis);
    node_ = kNoNode;
    render();
}

void PathPanel::showObject(uint32_t node) {
    node_ = analysis_ && node < analysis_->snapshot().node_count() ? node : kNoNode;
    render();
}

void PathPanel::copyToClipboard() const {
    if (!plain_.isEmpty()) QApplication::clipboard()->setText(plain_);
}

void PathPanel::openFrame(uint32_t frame) {
    if (!analysis_) return;
    const Snapshot& s = analysis_->snapshot();
    if (frame >= s.allocations.frames.size()) return;
    const AllocationFrame& f = s.allocations.frames[frame];
    const QString file = QString::fromStdString(std::string(s.strings.view(f.file)));
    const QString error = open_source(file, static_cast<int>(f.line));
    status_->setText(error.isEmpty() ? tr("Opened %1:%2").arg(file).arg(f.line) : error);
    status_->show();
    emit sourceOpened(file, static_cast<int>(f.line), error);
}

void PathPanel::render() {
    copy_button_->setEnabled(false);
    plain_.clear();
    status_->clear();
    status_->hide();
    if (!analysis_ || node_ == kNoNode) {
        title_->setText(tr("Select an object (a leak suspect, a row of the objects table or a node of the "
                           "graph) to see why it is alive."));
        browser_->clear();
        return;
    }
    // The text is the models' (retention_path_text.h): word for word what
    // `refscope-cli path` prints, so the app and the CLI agree.
    const PathDescription path = describe_path(*analysis_, node_);
    title_->setText(tr("Why is <b>%1</b> alive?").arg(path.targetText.toHtmlEscaped()));
    plain_ = path_as_text(path);
    QString html = path_as_html(path);
    if (path.hasPath) {
        html += tr("<p>Root: <b>%1</b> (%2), %3.</p>")
                    .arg(path.rootLabel.toHtmlEscaped(), path.rootClass.toHtmlEscaped(),
                         hops_text(path.hops.empty() ? 0 : path.hops.size() - 1));
    }
    allocation_section(analysis_->snapshot(), node_, html, plain_);
    browser_->setHtml(html);
    copy_button_->setEnabled(true);
}

}  // namespace refscope::app
