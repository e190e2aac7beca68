// Shared by the window tests: the checked-in scenario files, waiting for the
// window to settle, and finding widgets by object name.
#pragma once

#include <vector>

#include <QSize>
#include <QString>
#include <QWidget>

#include "refscope/snapshot.h"

class QTemporaryDir;

class QTableView;

namespace refscope::app {
class MainWindow;
}

namespace refscope::testing {

// tests/data/NAME.
QString data_file(const char* name);
// Where tests write files worth keeping (the screenshot): the build folder.
QString output_file(const char* name);
// Saves `widget`'s picture as <name>.png in $REFSCOPE_GUIDE_IMAGES, the
// folder the user guide's pictures are assembled from (docs/guide, the
// `guide` target), so the guide shows what the tests saw and cannot go
// stale. Without the variable (a test run by hand) it warns and saves
// nothing. False only when saving failed.
bool save_guide_image(QWidget& widget, const QString& name);

// Writes `snapshot` to `dir`/`name`, shows `window` and opens the file in it;
// true when it opened without errors and the window settled.
bool open_snapshot(app::MainWindow& window, const QTemporaryDir& dir, const Snapshot& snapshot,
                   const char* name = "snapshot.rscope");

// The checked-in scenario's two snapshots (tests/data): after 50 and after
// 250 logins.
inline constexpr const char* kScenarioBaseline = "app-registry-1.rscope";
inline constexpr const char* kScenarioCurrent = "app-registry-2.rscope";

// Sizes and shows `window` and opens the checked-in scenario pair
// (app-registry-1/2.rscope, baseline and current); true when they opened
// without errors and the window settled.
bool open_scenario(app::MainWindow& window, QSize size = QSize(1280, 800));

// Runs the event loop until the window has no work in flight (load,
// comparison, graph layout), at most `ms`.
bool wait_settled(app::MainWindow& window, int ms = 60'000);

// Prepares the process for a window test: settings in a temporary folder
// (never the user's), application names. Call before creating QApplication.
void isolate_settings();

// True when each of `columns` of `view` is shown, at least 30 px wide and
// inside the viewport: read without scrolling sideways (issue 16, "Hidden
// columns").
bool columns_in_viewport(const QTableView& view, const std::vector<int>& columns);

template <typename T>
T* find(QWidget& root, const char* name) {
    return root.findChild<T*>(QString::fromLatin1(name));
}

}  // namespace refscope::testing
