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

namespace refscope::app {

namespace {

// "1 hop", "3 hops" (as the CLI's path output says it).
QString hops_text(size_t hops) {
    return hops == 1 ? PathPanel::tr("1 hop") : PathPanel::tr("%1 hops").arg(hops);
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
        if (target.startsWith(prefix)) {
            bool ok = false;
            const uint32_t node = target.mid(prefix.size()).toUInt(&ok);
            if (ok) emit objectActivated(node);
        }
    });
    copy_button_ = new QPushButton(tr("Copy Path as Text"), this);
    copy_button_->setObjectName(QStringLiteral("copyPath"));
    connect(copy_button_, &QPushButton::clicked, this, &PathPanel::copyToClipboard);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(copy_button_);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title_);
    layout->addWidget(browser_, 1);
    layout->addLayout(buttons);
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

void PathPanel::render() {
    copy_button_->setEnabled(false);
    plain_.clear();
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
    browser_->setHtml(html);
    copy_button_->setEnabled(true);
}

}  // namespace refscope::app
