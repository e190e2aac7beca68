// Runs the real refscope-cli binary on snapshot files written here (through
// write_snapshot_file) and checks each verb's text and JSON, and the errors.
// Usage: cli_tests PATH_TO_REFSCOPE_CLI [PATH_TO_PYTHON3]
// (python3, when given, checks that every --json output parses.)
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "demo_heap.h"
#include "refscope/analysis/descriptions.h"
#include "refscope/analysis/display_text.h"
#include "refscope/format/snapshot_io.h"
#include "test_support.h"

extern char** environ;

namespace refscope {
namespace {

namespace fs = std::filesystem;
using analysis::format_address;
using testing::DemoHeap;

std::string g_cli;
std::string g_python;

struct CliRun {
    int status = -1;
    std::string out;
    std::string err;
    double seconds = 0;      // wall time
    long peak_rss_kb = 0;    // the child's own peak resident set (wait4)
};

std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class CliTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        std::string pattern = (fs::temp_directory_path() / "refscope-cli-test.XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = new fs::path(pattern);
        heap_ = new DemoHeap(testing::make_demo_heap());
        demo_ = (*dir_ / "demo.rscope").string();
        format::write_snapshot_file(heap_->snapshot, demo_);

        const std::vector<uint8_t> bytes = format::encode_snapshot(heap_->snapshot);
        truncated_ = (*dir_ / "truncated.rscope").string();
        std::ofstream(truncated_, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() / 2));
        garbage_ = (*dir_ / "garbage.rscope").string();
        std::ofstream(garbage_) << "this is not a snapshot\n";

        // One process, three snapshots: 2, then 4, then 3 cached app.Leaky;
        // and a snapshot of another process.
        app_ = new testing::AppHeap(testing::make_app_heap(1, 2));
        const uint32_t counts[] = {2, 4, 3};
        for (int i = 0; i < 3; ++i) {
            app_files_[i] = (*dir_ / ("app" + std::to_string(i + 1) + ".rscope")).string();
            format::write_snapshot_file(testing::make_app_heap(static_cast<uint64_t>(i + 1), counts[i]).snapshot,
                                        app_files_[i]);
        }
        // Growth above the suspects' thresholds (10 objects): 2, 22, 12.
        for (int i = 0; i < 2; ++i) {
            grown_files_[i] = (*dir_ / ("grown" + std::to_string(i + 2) + ".rscope")).string();
            format::write_snapshot_file(
                testing::make_app_heap(static_cast<uint64_t>(i + 2), i == 0 ? 22 : 12).snapshot, grown_files_[i]);
        }
        other_ = (*dir_ / "other.rscope").string();
        format::write_snapshot_file(testing::make_app_heap(4, 5, 999).snapshot, other_);
    }
    static void TearDownTestSuite() {
        fs::remove_all(*dir_);
        delete dir_;
        delete heap_;
        delete app_;
    }

    static CliRun run(std::vector<std::string> args) {
        const fs::path out = *dir_ / "stdout";
        const fs::path err = *dir_ / "stderr";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        args.insert(args.begin(), g_cli);
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_t pid = 0;
        CliRun result;
        const auto start = std::chrono::steady_clock::now();
        if (posix_spawn(&pid, g_cli.c_str(), &actions, nullptr, argv.data(), environ) == 0) {
            int status = 0;
            struct rusage usage {};
            wait4(pid, &status, 0, &usage);
            result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            result.peak_rss_kb = usage.ru_maxrss;
        }
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        posix_spawn_file_actions_destroy(&actions);
        result.out = slurp(out);
        result.err = slurp(err);
        return result;
    }

    // Exit 0, nothing on stderr, and (with python3) output that parses as JSON.
    static CliRun run_json(std::vector<std::string> args) {
        args.push_back("--json");
        CliRun r = run(std::move(args));
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.err, "");
        if (!g_python.empty()) {
            const fs::path file = *dir_ / "output.json";
            std::ofstream(file) << r.out;
            const std::string command = g_python + " -c 'import json,sys; json.load(open(sys.argv[1]))' " + file.string();
            EXPECT_EQ(std::system(command.c_str()), 0) << r.out;
        }
        return r;
    }

    static std::string address(uint32_t node) {
        return format_address(heap_->snapshot.node_address[node]);
    }

    static void expect_one_error_line(const CliRun& r, int status, const std::string& contains) {
        EXPECT_EQ(r.status, status);
        EXPECT_EQ(r.out, "");
        EXPECT_TRUE(r.err.starts_with("refscope-cli: error: ")) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(contains), std::string::npos) << r.err;
    }

    // A python3 statement run on the parsed JSON output `r` (a dict), e.g.
    // "assert r['objects'] == 3, r" (skipped without python3).
    static void check_json(const CliRun& r, const std::string& statement) {
        if (g_python.empty()) return;
        const fs::path file = *dir_ / "checked.json";
        const fs::path script = *dir_ / "check.py";
        std::ofstream(file) << r.out;
        std::ofstream(script) << "import json, sys\nr = json.load(open(sys.argv[1]))\n" << statement << "\n";
        const std::string command = g_python + " " + script.string() + " " + file.string();
        EXPECT_EQ(std::system(command.c_str()), 0) << statement << "\n" << r.out;
    }

    static std::string app_address(uint32_t node) {
        return format_address(testing::SnapshotBuilder::address_of(node));
    }

    static fs::path* dir_;
    static DemoHeap* heap_;
    static testing::AppHeap* app_;  // as in app_files_[0]
    static std::string demo_, truncated_, garbage_, other_;
    static std::string app_files_[3];
    static std::string grown_files_[2];  // snapshots 2 and 3 after app_files_[0]
};

fs::path* CliTest::dir_ = nullptr;
DemoHeap* CliTest::heap_ = nullptr;
testing::AppHeap* CliTest::app_ = nullptr;
std::string CliTest::demo_, CliTest::truncated_, CliTest::garbage_, CliTest::other_;
std::string CliTest::app_files_[3];
std::string CliTest::grown_files_[2];

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(CliTest, InfoText) {
    const CliRun r = run({"info", demo_});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "pid 4242: /usr/bin/python3 app.py --serve")) << r.out;
    EXPECT_TRUE(has(r.out, "3.12.1")) << r.out;
    EXPECT_TRUE(has(r.out, "2023-11-14T22:13:20Z")) << r.out;
    EXPECT_TRUE(has(r.out, "objects     19 (")) << r.out;
    EXPECT_TRUE(has(r.out, "MainThread (main)")) << r.out;
}

TEST_F(CliTest, InfoJson) {
    const CliRun r = run_json({"info", demo_});
    EXPECT_TRUE(has(r.out, "\"verb\": \"info\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"pid\": 4242")) << r.out;
    EXPECT_TRUE(has(r.out, "\"objects\": 19")) << r.out;
    EXPECT_TRUE(has(r.out, "\"argv\": [\n      \"app.py\",\n      \"--serve\"\n    ]")) << r.out;
    EXPECT_TRUE(has(r.out, "\"collected_first\": true")) << r.out;
}

TEST_F(CliTest, SummaryByTypeAndModule) {
    CliRun r = run({"summary", demo_, "--top", "2"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "by type: 19 objects")) << r.out;
    EXPECT_TRUE(has(r.out, "largest 2 of")) << r.out;
    EXPECT_TRUE(has(r.out, "dict")) << r.out;

    r = run_json({"summary", demo_, "--by=module", "--top=0"});
    EXPECT_TRUE(has(r.out, "\"by\": \"module\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"name\": \"app\",\n      \"objects\": 5,")) << r.out;
    EXPECT_TRUE(has(r.out, "\"name\": \"weakref\"")) << r.out;
}

TEST_F(CliTest, RootsText) {
    const CliRun r = run({"roots", demo_});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "unexplained            3        2        -")) << r.out;
    EXPECT_TRUE(has(r.out, "objects with unexplained surplus")) << r.out;
    EXPECT_TRUE(has(r.out, "app.Holder @ " + address(heap_->holder))) << r.out;
    EXPECT_TRUE(has(r.out, "negative surplus")) << r.out;
    // The preview's control character and invalid byte are escaped.
    EXPECT_TRUE(has(r.out, "str 'neg\\x01\\xff'")) << r.out;
}

TEST_F(CliTest, RootsJson) {
    const CliRun r = run_json({"roots", demo_});
    EXPECT_TRUE(has(r.out, "\"kind\": \"thread stack\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"kind\": \"unexplained\",\n      \"records\": 0,\n      \"objects\": 2,\n"
                           "      \"references\": 3")) << r.out;
    EXPECT_TRUE(has(r.out, "\"unexplained_objects\": 2,\n  \"unexplained\": [\n    {\n      \"id\": " +
                           std::to_string(heap_->holder))) << r.out;
    EXPECT_TRUE(has(r.out, "\"negative_surplus_objects\": 1,")) << r.out;
    // Invalid UTF-8 in a preview becomes U+FFFD, control characters \u00XX.
    EXPECT_TRUE(has(r.out, "\"preview\": \"neg\\u0001\\ufffd\"")) << r.out;
}

TEST_F(CliTest, PathToReachableObject) {
    const CliRun r = run({"path", demo_, "--to", address(heap_->reachable_leaky)});
    EXPECT_EQ(r.status, 0) << r.err;
    const std::string chain = "sys.modules \u2192 dict (len=1) \u2192 ['app'] \u2192 module app \u2192 "
                              ".__dict__ \u2192 dict (len=3) \u2192 ['cache'] \u2192 dict (len=2) \u2192 "
                              "['k1'] \u2192 app.Leaky @ " + address(heap_->reachable_leaky);
    EXPECT_TRUE(r.out.starts_with(chain + "\n")) << r.out;
    EXPECT_TRUE(has(r.out, "root: interpreter: sys.modules")) << r.out;
    EXPECT_TRUE(has(r.out, "4 hops from the root")) << r.out;
}

TEST_F(CliTest, PathJson) {
    const CliRun r = run_json({"path", demo_, "--to", address(heap_->reachable_leaky)});
    EXPECT_TRUE(has(r.out, "\"found\": true")) << r.out;
    EXPECT_TRUE(has(r.out, "\"root\": {\n    \"kind\": \"interpreter\",\n    \"label\": \"sys.modules\",\n"
                           "    \"thread\": null,")) << r.out;
    EXPECT_TRUE(has(r.out, "\"edge\": \"['k1']\",\n      \"edge_kind\": \"dict value\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"explanation\": null,\n  \"reason\": null,\n  \"unexplained\": 0,\n"
                           "  \"holder\": null,\n  \"holder_hops\": [],\n  \"search_truncated\": false"))
        << r.out;
    EXPECT_TRUE(has(r.out, "\"instances\": null")) << r.out;
}

TEST_F(CliTest, PathByTypeCountsInstances) {
    CliRun r = run({"path", demo_, "--type", "app.Leaky"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("3 instances of app.Leaky, 1 reachable from roots; the nearest:\n")) << r.out;
    EXPECT_TRUE(has(r.out, "['k1'] \u2192 app.Leaky @ " + address(heap_->reachable_leaky))) << r.out;

    r = run_json({"path", demo_, "--type", "app.Leaky"});
    EXPECT_TRUE(has(r.out, "\"instances\": {\n    \"type\": \"app.Leaky\",\n    \"count\": 3,\n"
                           "    \"reachable\": 1\n  }")) << r.out;
}

TEST_F(CliTest, PathToLeakedObjectExplainsWhy) {
    CliRun r = run({"path", demo_, "--to", address(heap_->leaked_leaky)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "app.Leaky @ " + address(heap_->leaked_leaky) +
                         ": no path from GC roots: 1 reference that the GC cannot see (unexplained "
                         "refcount surplus) \u2014 a C/C++ holder or a leak\n");
    r = run_json({"path", demo_, "--to", address(heap_->leaked_leaky)});
    EXPECT_TRUE(has(r.out, "\"found\": false")) << r.out;
    EXPECT_TRUE(has(r.out, "\"explanation\": \"no path from GC roots: 1 reference that the GC cannot see"))
        << r.out;
    EXPECT_TRUE(has(r.out, "\"reason\": \"unexplained surplus\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"root\": null")) << r.out;
}

TEST_F(CliTest, PathToHeldObjectNamesTheHolder) {
    CliRun r = run({"path", demo_, "--to", address(heap_->held_leaky)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "no path from GC roots: retained by app.Holder @ " + address(heap_->holder) +
                               " (2 hops away), which has 2 references that the GC cannot see")) << r.out;
    EXPECT_TRUE(has(r.out, "held through: app.Holder @ " + address(heap_->holder) + " \u2192 .items \u2192 "
                           "list (len=1) \u2192 [0] \u2192 app.Leaky")) << r.out;
    r = run_json({"path", demo_, "--to", address(heap_->held_leaky)});
    EXPECT_TRUE(has(r.out, "\"reason\": \"held by unexplained\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"edge\": \".items\",\n      \"edge_kind\": \"slot\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"holder\": {\n    \"id\": " + std::to_string(heap_->holder))) << r.out;
}

TEST_F(CliTest, ReferrersText) {
    const CliRun r = run({"referrers", demo_, address(heap_->reachable_leaky)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "refcount 1 = 1 owned reference from objects + 0 surplus")) << r.out;
    EXPECT_TRUE(has(r.out, "referrers: 2")) << r.out;
    EXPECT_TRUE(has(r.out, "['k1']  dict value  owned")) << r.out;
    // A weak reference keeps nothing alive: borrowed, not "GC-invisible"
    // (GraphIndex::hidden_from_gc, the rule every view uses).
    EXPECT_TRUE(has(r.out, "(weak)  weak        borrowed  0x")) << r.out;
    EXPECT_FALSE(has(r.out, "GC-invisible")) << r.out;
    EXPECT_TRUE(has(r.out, "distance from the nearest root: 4 hops")) << r.out;
}

TEST_F(CliTest, ReferrersOfARootAndOfALeak) {
    CliRun r = run({"referrers", demo_, address(heap_->local_list)});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "thread stack (thread MainThread): frame app.py:12 in main, local items")) << r.out;
    r = run_json({"referrers", demo_, address(heap_->holder)});
    EXPECT_TRUE(has(r.out, "\"unexplained\": 2,\n  \"distance\": null")) << r.out;
    EXPECT_TRUE(has(r.out, "\"referrers\": []")) << r.out;
    EXPECT_TRUE(has(r.out, "\"explained\": {\n    \"interpreter\": 0,")) << r.out;
}

TEST_F(CliTest, UsageErrorsExitTwoWithOneLine) {
    expect_one_error_line(run({}), 2, "no verb given");
    expect_one_error_line(run({"frobnicate", demo_}), 2, "unknown verb 'frobnicate'");
    expect_one_error_line(run({"info"}), 2, "no snapshot file given");
    expect_one_error_line(run({"info", demo_, "extra"}), 2, "unexpected argument 'extra'");
    expect_one_error_line(run({"summary", demo_, "--by", "bogus"}), 2,
                          "--by takes 'type', 'module', 'cycle' or 'dominator', not 'bogus'");
    expect_one_error_line(run({"summary", demo_, "--top", "-1"}), 2, "--top takes a count");
    expect_one_error_line(run({"path", demo_}), 2, "path needs --to ADDRESS or --type NAME");
    expect_one_error_line(run({"path", demo_, "--to", "0x1", "--type", "x"}), 2, "not both");
    expect_one_error_line(run({"path", demo_, "--to", "zz"}), 2, "'zz' is not a hexadecimal address");
    expect_one_error_line(run({"path", demo_, "--to"}), 2, "option --to needs a value");
    expect_one_error_line(run({"referrers", demo_}), 2, "no address given");
    expect_one_error_line(run({"roots", demo_, "--by", "type"}), 2, "unknown option --by for 'roots'");
    expect_one_error_line(run({"--bogus"}), 2, "unknown option --bogus");
}

TEST_F(CliTest, HelpGoesToStdout) {
    CliRun r = run({"--help"});
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(r.out.starts_with("usage: refscope-cli")) << r.out;
    for (const char* verb : {"info", "summary", "roots", "path", "referrers", "retained", "cycles",
                             "diff", "query", "suspects", "export-path", "export-heapsnapshot"}) {
        r = run({verb, "--help"});
        EXPECT_EQ(r.status, 0);
        EXPECT_TRUE(r.out.starts_with(std::string("usage: refscope-cli ") + verb)) << r.out;
        EXPECT_EQ(run({"help", verb}).out, r.out);
    }
    EXPECT_EQ(run({"--version"}).status, 0);
}

TEST_F(CliTest, MissingFile) {
    const std::string missing = (*dir_ / "missing.rscope").string();
    const CliRun r = run({"info", missing});
    expect_one_error_line(r, 1, missing);
    EXPECT_TRUE(has(r.err, "No such file or directory")) << r.err;
}

// The reader's own message, word for word.
std::string reader_message(const std::string& path) {
    try {
        format::read_snapshot_file(path);
    } catch (const format::ReadError& e) {
        return e.what();
    }
    return "(read without error)";
}

TEST_F(CliTest, CorruptAndTruncatedFiles) {
    for (const std::string& file : {garbage_, truncated_}) {
        for (const char* verb : {"info", "roots"}) {
            const CliRun r = run({verb, file});
            expect_one_error_line(r, 1, reader_message(file));
            EXPECT_TRUE(has(r.err, file)) << r.err;
        }
    }
}

TEST_F(CliTest, UnknownAddressOrType) {
    expect_one_error_line(run({"path", demo_, "--to", "0xdead"}), 1, "no object at address 0xdead");
    expect_one_error_line(run({"referrers", demo_, "dead"}), 1, "no object at address 0xdead");
    expect_one_error_line(run({"path", demo_, "--type", "app.Missing"}), 1,
                          "no objects of type 'app.Missing'");
    expect_one_error_line(run({"path", demo_, "--type", "Leak"}), 1,
                          "no objects of type 'Leak'; did you mean app.Leaky?");
}

// People type the class name they see in their code.
TEST_F(CliTest, PathByBareClassName) {
    const CliRun r = run({"path", demo_, "--type", "Leaky"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("3 instances of app.Leaky, 1 reachable from roots; the nearest:\n")) << r.out;
}

#include "cli_analysis_tests.inc"
#include "cli_crafted_files_tests.inc"
#include "cli_info_tests.inc"

}  // namespace
}  // namespace refscope

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: cli_tests PATH_TO_REFSCOPE_CLI [PATH_TO_PYTHON3]\n");
        return 2;
    }
    refscope::g_cli = argv[1];
    if (argc > 2) refscope::g_python = argv[2];
    return RUN_ALL_TESTS();
}
