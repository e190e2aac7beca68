#include "window/object_menu.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>

#include "models/cell_text.h"
#include "models/model_roles.h"
#include "models/retention_path_text.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/display_text.h"
#include "refscope/analysis/filter_query.h"
#include "window/filter_bar.h"
#include "window/workspace.h"

namespace refscope::app {

MenuSubject menu_subject(const QModelIndex& index) {
    MenuSubject subject;
    if (!index.isValid()) return subject;
    const QVariant node = index.data(NodeIdRole);
    if (node.isValid()) subject.node = node.value<quint32>();
    subject.filterTerm = index.data(FilterTermRole).toString();
    return subject;
}

namespace {

QAction* add_action(QMenu& menu, const QString& object_name, const QString& text) {
    QAction* action = menu.addAction(text);
    action->setObjectName(object_name);
    return action;
}

// "type:app.Leaky" → "Filter by type app.Leaky": the term read back by the
// filter language's own parser, so the value shows unquoted and unescaped
// (the term itself is what goes into the filter field).
QString filter_action_text(const QString& term) {
    try {
        const analysis::FilterQuery query = analysis::parse_filter(term.toStdString());
        if (query.program.size() == 1 && query.program[0].kind == analysis::FilterTerm::Kind::Text) {
            const analysis::FilterTerm& t = query.program[0];
            return QObject::tr("Filter by %1 %2")
                .arg(to_qstring(analysis::filter_field_name(t.field)), to_qstring(t.text));
        }
    } catch (const analysis::FilterSyntaxError&) {
    }
    return QObject::tr("Filter: %1").arg(term);
}

}  // namespace

void fill_object_menu(QMenu& menu, Workspace& workspace, const MenuSubject& subject, bool in_graph) {
    const AnalysisPtr analysis = workspace.analysis();
    // While the graph is analysed (workspace.h) its actions have nothing to act on.
    if (!analysis || !analysis->has_graph()) return;
    const Snapshot& snapshot = analysis->snapshot();
    const bool has_node = subject.node < snapshot.node_count();
    QString term = subject.filterTerm;
    if (term.isEmpty() && has_node) {
        term = filter_term(QStringLiteral("type"), to_qstring(analysis::type_name(snapshot, subject.node)));
    }
    // Actions capture the workspace through a QPointer, the node by value and
    // the snapshot it belongs to: the menu may outlive a snapshot change.
    const QPointer<Workspace> ws(&workspace);
    const uint32_t node = subject.node;
    if (has_node) {
        if (!subject.filterTerm.isEmpty()) {
            // A group row: say which of its objects the object actions are about.
            QAction* header = menu.addAction(QObject::tr("Representative: %1")
                                                 .arg(to_qstring(analysis::describe_node_at(snapshot, node))));
            header->setEnabled(false);
        }
        // A snapshot arriving while the menu is open (a live session) makes
        // `node` another object's id: then the menu does nothing.
        const auto show_in = [ws, node, analysis](Workspace::Panel panel) {
            if (!ws || ws->analysis() != analysis) return;
            ws->selectObject(node);
            ws->showPanel(panel);
        };
        if (!in_graph) {
            QObject::connect(add_action(menu, QStringLiteral("showInGraph"), QObject::tr("Show in &Graph")),
                             &QAction::triggered, [show_in] { show_in(Workspace::Panel::Graph); });
        }
        QObject::connect(add_action(menu, QStringLiteral("showReferrers"), QObject::tr("Show &Referrers")),
                         &QAction::triggered, [show_in] { show_in(Workspace::Panel::Retainers); });
        QObject::connect(add_action(menu, QStringLiteral("showRetained"), QObject::tr("Show What It R&etains")),
                         &QAction::triggered, [show_in] { show_in(Workspace::Panel::Retained); });
        menu.addSeparator();
        const QString address = QString::fromStdString(analysis::format_address(snapshot.node_address[node]));
        QObject::connect(add_action(menu, QStringLiteral("copyAddress"), QObject::tr("Copy &Address")),
                         &QAction::triggered, [address] { QApplication::clipboard()->setText(address); });
        // The path is described when chosen, not when the menu opens: it
        // walks the retention tree, and most menus are closed without it.
        QObject::connect(add_action(menu, QStringLiteral("copyPath"), QObject::tr("Copy &Path")),
                         &QAction::triggered, [analysis, node] {
                             QApplication::clipboard()->setText(path_as_text(describe_path(*analysis, node)));
                         });
    }
    if (!term.isEmpty()) {
        menu.addSeparator();
        QObject::connect(add_action(menu, QStringLiteral("filterByTerm"), filter_action_text(term)),
                         &QAction::triggered, [ws, term] {
                             if (!ws) return;
                             ws->filterBar()->lineEdit()->setText(term);
                             ws->filterBar()->apply();
                         });
    }
}

void attach_object_menu(QAbstractItemView* view, Workspace& workspace) {
    view->setContextMenuPolicy(Qt::CustomContextMenu);
    const QPointer<Workspace> ws(&workspace);
    QObject::connect(view, &QWidget::customContextMenuRequested, view, [view, ws](const QPoint& pos) {
        const QModelIndex index = view->indexAt(pos);
        if (!ws || !index.isValid()) return;
        auto* menu = new QMenu(view);
        menu->setObjectName(QStringLiteral("objectMenu"));
        menu->setAttribute(Qt::WA_DeleteOnClose);
        fill_object_menu(*menu, *ws, menu_subject(index));
        if (menu->isEmpty()) {
            delete menu;
            return;
        }
        menu->popup(view->viewport()->mapToGlobal(pos));
    });
}

}  // namespace refscope::app
