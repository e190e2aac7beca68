#include "session/snapshot_loader.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <system_error>
#include <new>
#include <utility>

#include <QMetaObject>

#include "session/background_priority.h"

#include "refscope/format/snapshot_io.h"

namespace refscope::app {

SnapshotLoader::SnapshotLoader(QObject* parent) : QObject(parent) {
    worker_ = std::thread([this] { runWorker(); });
}

SnapshotLoader::~SnapshotLoader() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        queue_.clear();
        if (running_) running_->store(true);
    }
    wake_.notify_all();
    worker_.join();
}

void SnapshotLoader::setOptions(const analysis::AnalysisOptions& options) {
    std::lock_guard lock(mutex_);
    options_ = options;
    // The loader owns these two hooks.
    options_.progress = nullptr;
    options_.cancel = nullptr;
}

void SnapshotLoader::setReadFunction(ReadFunction read) {
    std::lock_guard lock(mutex_);
    read_function_ = std::move(read);
}

void SnapshotLoader::setAnalyseFunction(AnalyseFunction analyse) {
    std::lock_guard lock(mutex_);
    analyse_function_ = std::move(analyse);
}

void SnapshotLoader::load(const QStringList& paths) {
    if (paths.isEmpty()) return;
    {
        std::lock_guard lock(mutex_);
        for (const QString& path : paths) {
            queue_.push_back(Job{path, std::make_shared<std::atomic<bool>>(false)});
        }
    }
    busy_ = true;
    wake_.notify_one();
}

void SnapshotLoader::cancel() {
    std::deque<Job> dropped;
    {
        std::lock_guard lock(mutex_);
        dropped.swap(queue_);
        if (running_) running_->store(true);
    }
    for (const Job& job : dropped) emit cancelled(job.path);
    deliverEnd();
}

bool SnapshotLoader::isBusy() const { return busy_; }

int SnapshotLoader::queuedCount() const {
    std::lock_guard lock(mutex_);
    return static_cast<int>(queue_.size());
}

void SnapshotLoader::runWorker() {
    lower_current_thread_priority();
    for (;;) {
        Job job;
        int remaining = 0;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            job = std::move(queue_.front());
            queue_.pop_front();
            running_ = job.cancel;
            remaining = static_cast<int>(queue_.size());
        }
        QMetaObject::invokeMethod(this, [this, path = job.path, remaining] {
            emit started(path, remaining);
        }, Qt::QueuedConnection);
        runJob(job);
    }
}

void SnapshotLoader::runJob(const Job& job) {
    analysis::AnalysisOptions options;
    ReadFunction read_function;
    AnalyseFunction analyse_function;
    {
        std::lock_guard lock(mutex_);
        options = options_;
        read_function = read_function_;
        analyse_function = analyse_function_;
    }
    if (!read_function) read_function = [](const std::string& path, const analysis::AnalysisOptions& o) {
        return analysis::SnapshotAnalysis::load(path, o);
    };
    if (!analyse_function) analyse_function = [](const analysis::SnapshotAnalysis& read, const analysis::AnalysisOptions& o) {
        return analysis::SnapshotAnalysis::analyse_read(read, o);
    };
    int last_percent = -1;
    options.cancel = job.cancel.get();
    options.progress = [&](analysis::AnalysisStage stage, double fraction) {
        const int percent = std::max(last_percent, static_cast<int>(fraction * 100.0));
        const auto now = std::chrono::steady_clock::now();
        if (percent == last_percent || now - last_progress_ < kProgressInterval) return;
        last_percent = percent;
        last_progress_ = now;
        const QString stage_text = QString::fromUtf8(analysis::analysis_stage_name(stage));
        QMetaObject::invokeMethod(this, [this, cancel = job.cancel, path = job.path, stage_text, percent] {
            deliverProgress(cancel, path, stage_text, percent);
        }, Qt::QueuedConnection);
    };
    // The read step's own "done" is not the file's: only its start is shown.
    analysis::AnalysisOptions read_options = analysis::AnalysisOptions::snapshot_only();
    read_options.cancel = options.cancel;
    read_options.progress = [&](analysis::AnalysisStage stage, double fraction) {
        if (stage != analysis::AnalysisStage::Done) options.progress(stage, fraction);
    };
    // Hands the snapshot read to the loader's thread before the analysis.
    const auto deliver_read = [&](const AnalysisPtr& read) {
        QMetaObject::invokeMethod(this, [this, cancel = job.cancel, read] {
            if (!cancel->load()) emit this->read(read);
        }, Qt::QueuedConnection);
    };

    // Exactly one of these three ends the job.
    AnalysisPtr result;
    QString error;
    bool was_cancelled = false;
    try {
        const std::string path = job.path.toStdString();
        std::error_code ignored;
        const auto type = std::filesystem::status(path, ignored).type();
        if (type == std::filesystem::file_type::fifo || type == std::filesystem::file_type::socket) {
            // Refused before open(), which would wait for a writer forever.
            throw format::ReadError(format::ReadErrorCode::Io,
                                    "cannot read " + path + ": not a regular file (a named pipe or socket)");
        }
        AnalysisPtr read = read_function(path, read_options);
        deliver_read(read);
        result = analyse_function(*read, options);
    } catch (const analysis::AnalysisCancelled&) {
        was_cancelled = true;
    } catch (const format::ReadError& e) {
        error = QString::fromUtf8(e.what());
    } catch (const std::bad_alloc&) {
        error = tr("not enough memory to load and analyse this snapshot");
    } catch (const std::exception& e) {
        error = tr("the analysis failed: %1").arg(QString::fromUtf8(e.what()));
    }
    // A load that ended after cancel() (finished, or failed because it was
    // torn down) counts as cancelled: the user asked not to have it.
    if (job.cancel->load()) {
        result.reset();
        was_cancelled = true;
    }
    {
        std::lock_guard lock(mutex_);
        running_.reset();
        ++undelivered_ends_;
    }
    QMetaObject::invokeMethod(this, [this, path = job.path, result, error, was_cancelled] {
        if (result) {
            emit loaded(result);
        } else if (was_cancelled) {
            emit cancelled(path);
        } else {
            emit failed(path, error);
        }
        {
            std::lock_guard lock(mutex_);
            --undelivered_ends_;
        }
        deliverEnd();
    }, Qt::QueuedConnection);
}

void SnapshotLoader::deliverProgress(const std::shared_ptr<std::atomic<bool>>& cancel, const QString& path,
                                     const QString& stage, int percent) {
    if (cancel->load()) return;  // cancelled since: its bar is gone
    emit progress(path, stage, percent);
}

void SnapshotLoader::deliverEnd() {
    bool now_idle = false;
    {
        std::lock_guard lock(mutex_);
        now_idle = busy_ && queue_.empty() && !running_ && undelivered_ends_ == 0;
    }
    if (now_idle) {
        busy_ = false;
        emit idle();
    }
}

}  // namespace refscope::app
