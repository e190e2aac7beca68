// The window follows the desktop (issue 16 item 7): the palette, dark themes
// included, and a text-size setting, driven through the real window headless.
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTableView>
#include <QtTest>

#include "graph/graph_scene.h"
#include "graph/graph_widget.h"
#include "models/suspects_model.h"
#include "models/text_colours.h"
#include "window/filter_bar.h"
#include "window/main_window.h"
#include "window/suspects_panel.h"
#include "window/text_size.h"
#include "window/workspace.h"
#include "window_test_support.h"

using namespace refscope;
using namespace refscope::app;

namespace {

// WCAG 2's contrast ratio of two colours, 1 (none) to 21 (black on white).
double contrast(const QColor& a, const QColor& b) {
    const auto luminance = [](const QColor& c) {
        const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

QPalette dark_palette() {
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
    p.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, QColor(0xe6, 0xe6, 0xe6));
    p.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    p.setColor(QPalette::Link, QColor(0x5d, 0xad, 0xf5));  // as dark themes set it (Breeze Dark: #1d99f3)
    return p;
}

}  // namespace

class AppearanceWindowTest : public QObject {
    Q_OBJECT
private slots:
    void meaningfulColoursReadOnLightAndDarkBases();
    void theWindowFollowsADarkPalette();
    void textSizeIsASettingEveryPanelFollows();
};

// A fixed dark red (#b00020) was the error and GC-invisible colour: on a dark
// base it has a contrast of about 2.2, below the 3 large text needs.
void AppearanceWindowTest::meaningfulColoursReadOnLightAndDarkBases() {
    const QPalette dark = dark_palette();
    QVERIFY(contrast(QColor(0xb0, 0x00, 0x20), dark.color(QPalette::Base)) < 3.0);  // the defect
    QPalette light;
    light.setColor(QPalette::Base, Qt::white);
    light.setColor(QPalette::Text, Qt::black);
    QVERIFY(!is_dark_palette(light));
    QVERIFY(is_dark_palette(dark));
    for (const QPalette& palette : {light, dark}) {
        const QColor base = palette.color(QPalette::Base);
        for (const TextRole role : {TextRole::Error, TextRole::GcInvisible, TextRole::Muted}) {
            const double ratio = contrast(text_colour(role, palette), base);
            QVERIFY2(ratio >= 3.0, qPrintable(QStringLiteral("role %1 on %2: %3")
                                                  .arg(int(role)).arg(base.name()).arg(ratio)));
        }
        // Muted is quieter than the text, not a second text colour.
        QVERIFY(contrast(text_colour(TextRole::Muted, palette), base) < contrast(palette.color(QPalette::Text), base));
    }
}

// With a dark palette the graph is drawn dark, a low-confidence suspect and a
// filter error use the dark theme's shades; a screenshot is kept to look at.
void AppearanceWindowTest::theWindowFollowsADarkPalette() {
    const QPalette before = QApplication::palette();
    QApplication::setPalette(dark_palette());
    {
        MainWindow window;
        QVERIFY(testing::open_scenario(window));
        QVERIFY(window.selectTopSuspect());
        QVERIFY(testing::wait_settled(window));
        Workspace* w = window.workspace();
        QVERIFY(w->graphWidget()->scene()->colours().dark);
        SuspectsModel* suspects = w->suspectsPanel()->model();
        bool found_low = false;
        for (int r = 0; r < suspects->rowCount() && !found_low; ++r) {
            if (suspects->groupAt(r)->confidence != analysis::SuspectConfidence::Low) continue;
            found_low = true;
            const QColor muted = suspects->index(r, 0).data(Qt::ForegroundRole).value<QColor>();
            // Dimmed light text on the dark base, not the light theme's grey.
            QVERIFY(muted.lightness() > dark_palette().color(QPalette::Base).lightness());
            QVERIFY(contrast(muted, dark_palette().color(QPalette::Base)) >= 3.0);
        }
        QVERIFY(found_low);
        w->filterBar()->lineEdit()->setText(QStringLiteral("size>>"));
        w->filterBar()->apply();
        QVERIFY(testing::wait_settled(window));
        QLabel* error = w->filterBar()->errorLabel();
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->styleSheet().contains(text_colour_name(TextRole::Error)), qPrintable(error->styleSheet()));
        QVERIFY(window.grab().save(testing::output_file("appearance-dark.png"), "PNG"));
        // The desktop switches back to light while the window is open.
        QApplication::setPalette(before);
        QTRY_VERIFY2(error->styleSheet().contains(text_colour_name(TextRole::Error, before)),
                     qPrintable(error->styleSheet()));
    }
    QApplication::setPalette(before);
}

// View ▸ Larger Text grows every panel's text and rows, is kept for the next
// window (and run), and Default Text Size goes back to the desktop's font.
void AppearanceWindowTest::textSizeIsASettingEveryPanelFollows() {
    const int desktop = QApplication::font().pointSize();
    QVERIFY(desktop > 0);
    {
        MainWindow window;
        QVERIFY(testing::open_scenario(window));
        QTableView* table = window.workspace()->suspectsPanel()->view();
        const int rows = table->verticalHeader()->defaultSectionSize();
        QAction* larger = window.findChild<QAction*>(QStringLiteral("largerText"));
        QVERIFY(larger);
        for (int i = 0; i < 4; ++i) larger->trigger();
        QCOMPARE(QApplication::font().pointSize(), desktop + 4);
        QCOMPARE(window.textSize()->pointSize(), desktop + 4);
        QTRY_COMPARE(table->font().pointSize(), desktop + 4);
        // The font reaches the widgets through posted events.
        QTRY_VERIFY2(table->verticalHeader()->defaultSectionSize() > rows,
                     qPrintable(QStringLiteral("%1 rows").arg(table->verticalHeader()->defaultSectionSize())));
        QCOMPARE(QSettings().value(QStringLiteral("appearance/textPointSize")).toInt(), desktop + 4);
        // Bounded: never below 6 pt or above 32 pt, whatever is pressed.
        for (int i = 0; i < 40; ++i) larger->trigger();
        QCOMPARE(QApplication::font().pointSize(), TextSize::kMaxPoints);
        QVERIFY(!larger->isEnabled());
        window.textSize()->setPointSize(desktop + 4);
    }
    // A new window (as at the next start, the font reset first) applies the saved size.
    QFont reset = QApplication::font();
    reset.setPointSize(desktop);
    QApplication::setFont(reset);
    MainWindow again;
    QCOMPARE(QApplication::font().pointSize(), desktop + 4);
    QAction* standard = again.findChild<QAction*>(QStringLiteral("defaultText"));
    QVERIFY(standard && standard->isEnabled());
    standard->trigger();
    QCOMPARE(QApplication::font().pointSize(), desktop);
    QVERIFY(!QSettings().contains(QStringLiteral("appearance/textPointSize")));
    QVERIFY(!standard->isEnabled());
}

int main(int argc, char** argv) {
    testing::isolate_settings();
    QApplication app(argc, argv);
    AppearanceWindowTest test;
    return QTest::qExec(&test, argc, argv);
}

#include "appearance_window_test.moc"
