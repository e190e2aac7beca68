// The path panel: why the selected object is alive — the shortest chain of
// references from a GC root to it, hop by hop with edge labels and the
// root's class, or, when there is none, the plain-words reason (references
// the collector cannot see, the holder with unexplained surplus) and the
// cycle the object sits in. Below it, when the snapshot has allocation
// tracebacks, where the object was allocated: each frame a link that opens
// the line in the user's editor (source_opener.h). "Copy Path as Text" puts
// the same text on the clipboard.
#pragma once

#include <cstdint>

#include <QWidget>

#include "refscope/snapshot.h"
#include "session/analysis_ptr.h"

class QLabel;
class QPushButton;
class QTextBrowser;

namespace refscope::app {

class PathPanel : public QWidget {
    Q_OBJECT

public:
    explicit PathPanel(QWidget* parent = nullptr);

    void setAnalysis(AnalysisPtr analysis);
    // kNoNode clears the panel.
    void showObject(uint32_t node);
    uint32_t object() const { return node_; }

    // The path as plain text (what Copy puts on the clipboard); "" when empty.
    QString plainText() const { return plain_; }
    QTextBrowser* browser() const { return browser_; }

public slots:
    void copyToClipboard() const;
    // Opens the allocation frame's file at its line (what its link does).
    void openFrame(uint32_t frame);

signals:
    // A node named in the path was clicked (its link): select it everywhere.
    void objectActivated(uint32_t node);
    // An allocation frame's line was opened (error empty) or could not be.
    void sourceOpened(const QString& file, int line, const QString& error);

private:
    void render();

    AnalysisPtr analysis_;
    uint32_t node_ = kNoNode;
    QString plain_;
    QLabel* title_;
    QLabel* status_;
    QTextBrowser* browser_;
    QPushButton* copy_button_;
};

}  // namespace refscope::app
