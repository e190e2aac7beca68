// What the graph view's tests do to a drawn scene, shared by its test files.
#pragma once

#include <QTest>

#include "graph/graph_scene.h"

namespace refscope::app::graphtest {

// What a user's double-click sends: press, release, double-click, release
// (QTest::mouseDClick alone leaves the button down and the item grabbing).
inline void double_click(QWidget* viewport, QPoint at) {
    QTest::mousePress(viewport, Qt::LeftButton, {}, at);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, at);
    QTest::mouseDClick(viewport, Qt::LeftButton, {}, at);
    QTest::mouseRelease(viewport, Qt::LeftButton, {}, at);
}

// A group node's item (the last one drawn), or null when there is none.
inline const GraphNodeItem* group_item(const GraphScene& scene) {
    const GraphNodeItem* group = nullptr;
    for (const GraphNodeItem* item : scene.nodeItems()) {
        if (item->isGroup()) group = item;
    }
    return group;
}

}  // namespace refscope::app::graphtest
