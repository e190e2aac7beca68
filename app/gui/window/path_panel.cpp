#include "window/path_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "refscope/analysis/edge_labels.h"

namespace refscope::app {

namespace {

QString text_of(const std::string& s) { return QString::fromStdString(s); }

// A node in the HTML, as a link that selects it: "node:123".
QString node_link(const Snapshot& s, uint32_t node) {
    return QStringLiteral("<a href=\"node:%1\">%2</a>")
        .arg(node)
        .arg(text_of(analysis::describe_node_at(s, node)).toHtmlEscaped());
}

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
        if (url.scheme() == QLatin1String("node")) emit objectActivated(url.path().toUInt());
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
    const Snapshot& s = analysis_->snapshot();
    const analysis::RetentionPaths& paths = analysis_->paths();
    const QString target = text_of(analysis::describe_node_at(s, node_));
    title_->setText(tr("Why is <b>%1</b> alive?").arg(target.toHtmlEscaped()));

    QStringList lines;  // plain text
    QString html;
    if (const auto path = paths.path_to(node_)) {
        const RootRef& root = s.roots[path->root_record];
        const QString root_label = text_of(analysis::describe_root(s, root));
        const QString root_class = QString::fromUtf8(
            analysis::root_class_name(analysis::root_class_of(root.kind)).data());
        QString chain = root_label + QStringLiteral(" → ") + text_of(analysis::describe_node(s, path->root_node));
        for (uint32_t edge : path->edges) {
            chain += QStringLiteral(" → ") + text_of(analysis::describe_edge(s, edge)) + QLatin1Char(' ') +
                     text_of(analysis::describe_node(s, analysis_->index().target(edge)));
        }
        lines << chain << QString() << tr("root: %1 (%2)").arg(root_label, root_class)
              << hops_text(path->edges.size()) + tr(" from the root:");
        lines << QStringLiteral("  (root) ") + text_of(analysis::describe_node_at(s, path->root_node));
        html += tr("<p>Held by the <b>%1</b> root <i>%2</i>, %3:</p><ol start=\"0\">")
                    .arg(root_class.toHtmlEscaped(), root_label.toHtmlEscaped(), hops_text(path->edges.size()));
        html += QStringLiteral("<li>%1</li>").arg(node_link(s, path->root_node));
        for (uint32_t edge : path->edges) {
            const uint32_t next = analysis_->index().target(edge);
            const QString label = text_of(analysis::describe_edge(s, edge));
            lines << QStringLiteral("  ") + label + QStringLiteral(" → ") + text_of(analysis::describe_node_at(s, next));
            html += QStringLiteral("<li><code>%1</code> → %2</li>").arg(label.toHtmlEscaped(), node_link(s, next));
        }
        html += QStringLiteral("</ol>");
    } else {
        const analysis::NoPathExplanation why = paths.explain_unreachable(node_);
        lines << target + QStringLiteral(": ") + text_of(why.text);
        html += QStringLiteral("<p><b>%1</b></p>").arg(text_of(why.text).toHtmlEscaped());
        if (why.holder != kNoNode && !why.holder_edges.empty()) {
            lines << QString() << tr("held through:");
            lines << QStringLiteral("  (holder) ") + text_of(analysis::describe_node_at(s, why.holder));
            html += tr("<p>Held through:</p><ol start=\"0\"><li>%1 (holder)</li>").arg(node_link(s, why.holder));
            for (uint32_t edge : why.holder_edges) {
                const uint32_t next = analysis_->index().target(edge);
                const QString label = text_of(analysis::describe_edge(s, edge));
                lines << QStringLiteral("  ") + label + QStringLiteral(" → ") +
                             text_of(analysis::describe_node_at(s, next));
                html += QStringLiteral("<li><code>%1</code> → %2</li>").arg(label.toHtmlEscaped(), node_link(s, next));
            }
            html += QStringLiteral("</ol>");
        }
        if (const analysis::Cycles* cycles = analysis_->cycles()) {
            const uint32_t cycle = cycles->cycle_of(node_);
            if (cycle != analysis::kNoCycle) {
                const QString fate = text_of(cycles->explain(cycle));
                lines << QString() << tr("in cycle #%1 of %2 objects: %3").arg(cycle).arg(cycles->info(cycle).members).arg(fate);
                html += tr("<p>In cycle #%1 of %2 objects: %3</p>")
                            .arg(cycle)
                            .arg(cycles->info(cycle).members)
                            .arg(fate.toHtmlEscaped());
            }
        }
    }
    plain_ = lines.join(QLatin1Char('\n'));
    browser_->setHtml(html);
    copy_button_->setEnabled(true);
}

}  // namespace refscope::app
