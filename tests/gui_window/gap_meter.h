// The largest gap between ticks of a 10 ms timer while it runs: how long the
// GUI thread's event loop went without turning. Shared by the
// responsiveness test and the open benchmark (bench_open_snapshot). It
// measures the machine too: under load a process that only sleeps 10 ms at
// a time sees gaps of 100 ms and more.
#pragma once

#include <algorithm>

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace refscope::testing {

class GapMeter : public QObject {
public:
    GapMeter() {
        timer_.setInterval(10);
        timer_.setTimerType(Qt::PreciseTimer);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.elapsed();
            largest_ = std::max(largest_, now - last_);
            last_ = now;
            ++ticks_;
        });
    }
    void start() {
        clock_.start();
        last_ = 0;
        largest_ = 0;
        ticks_ = 0;
        timer_.start();
    }
    void stop() { timer_.stop(); }
    qint64 largest() const { return largest_; }
    int ticks() const { return ticks_; }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0;
    qint64 largest_ = 0;
    int ticks_ = 0;
};

}  // namespace refscope::testing
