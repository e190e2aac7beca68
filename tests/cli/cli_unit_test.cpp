// In-process tests of the CLI's argument parsing and JSON writer.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "arguments.h"
#include "json_writer.h"

namespace refscope::cli {
namespace {

CliOptions parse(std::vector<std::string_view> args) { return parse_arguments(args); }

TEST(Arguments, VerbsAndOptions) {
    CliOptions o = parse({"--json", "summary", "f.rscope", "--by", "module", "--top=5"});
    EXPECT_EQ(o.verb, Verb::Summary);
    EXPECT_TRUE(o.json);
    EXPECT_EQ(o.file, "f.rscope");
    EXPECT_EQ(o.group_by, analysis::GroupBy::Module);
    EXPECT_EQ(o.top, 5u);
    EXPECT_EQ(parse({"summary", "f", "--by=cycle"}).group_by, analysis::GroupBy::Cycle);
    EXPECT_EQ(parse({"summary", "f", "--by", "dominator"}).group_by, analysis::GroupBy::Dominator);
    EXPECT_THROW(parse({"summary", "f", "--by", "bogus"}), UsageError);

    o = parse({"path", "--to=0x7F00ab", "f"});
    EXPECT_EQ(o.address, 0x7f00abu);
    o = parse({"referrers", "f", "7f00ab", "--json"});
    EXPECT_EQ(o.address, 0x7f00abu);
    EXPECT_TRUE(o.json);
    o = parse({"info", "--", "--odd-name"});
    EXPECT_EQ(o.file, "--odd-name");
    EXPECT_TRUE(parse({"path", "-h"}).help);
    EXPECT_EQ(parse({"help", "roots"}).verb, Verb::Roots);
}

TEST(Arguments, UsageErrorsNameTheVerb) {
    try {
        parse({"roots", "f", "--to", "1"});
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_EQ(e.verb(), Verb::Roots);
    }
    EXPECT_THROW(parse({"summary", "f", "--json=yes"}), UsageError);
    EXPECT_THROW(parse({"info", "-x", "f"}), UsageError);
    EXPECT_THROW(parse({"help", "nope"}), UsageError);
}

TEST(Arguments, AnalysisAndExportVerbs) {
    CliOptions o = parse({"dominators", "f", "--top", "3"});
    EXPECT_EQ(o.verb, Verb::Retained);
    EXPECT_EQ(o.top, 3u);
    o = parse({"diff", "a", "b", "--third=c", "--force", "--filter", "type:x new"});
    EXPECT_EQ(o.verb, Verb::Diff);
    EXPECT_EQ(o.file, "a");
    EXPECT_EQ(o.second_file, "b");
    EXPECT_EQ(o.third_file, "c");
    EXPECT_TRUE(o.force);
    EXPECT_EQ(o.filter, "type:x new");
    // query's expression may look like an option when it is a negated term.
    o = parse({"query", "f", "-tracked", "--top", "2"});
    EXPECT_EQ(o.filter, "-tracked");
    EXPECT_EQ(o.top, 2u);
    o = parse({"export-path", "f", "--type", "app.Leaky", "-o", "g.svg", "--paths", "3", "--hops=0",
               "--max-nodes", "40", "--cluster", "cycle"});
    EXPECT_EQ(o.output, "g.svg");
    EXPECT_EQ(o.paths, 3u);
    EXPECT_EQ(o.hops, 0u);
    EXPECT_EQ(o.max_nodes, 40u);
    EXPECT_EQ(o.cluster, "cycle");
    o = parse({"export-heapsnapshot", "f", "--output", "h.heapsnapshot", "--python-types"});
    EXPECT_TRUE(o.python_types);

    EXPECT_THROW(parse({"export-heapsnapshot", "f"}), UsageError);             // no -o
    EXPECT_THROW(parse({"export-path", "f", "--type", "t", "--max-nodes", "0"}), UsageError);
    EXPECT_THROW(parse({"export-path", "f", "--type", "t", "--cluster", "x"}), UsageError);
    EXPECT_THROW(parse({"diff", "a"}), UsageError);
    EXPECT_THROW(parse({"diff", "a", "b", "c"}), UsageError);
    EXPECT_THROW(parse({"retained", "f", "--filter", "x"}), UsageError);
    EXPECT_THROW(parse({"diff", "a", "b", "--force=yes"}), UsageError);
}

TEST(Arguments, Addresses) {
    EXPECT_EQ(parse_address("0x0"), 0u);
    EXPECT_EQ(parse_address("ffffffffffffffff"), 0xffffffffffffffffull);
    EXPECT_FALSE(parse_address("0x"));
    EXPECT_FALSE(parse_address("1ffffffffffffffff"));
    EXPECT_FALSE(parse_address("12g"));
    EXPECT_FALSE(parse_address("-1"));
}

TEST(JsonWriter, EscapesStrings) {
    EXPECT_EQ(json_quote("plain"), "\"plain\"");
    EXPECT_EQ(json_quote("q\"b\\"), "\"q\\\"b\\\\\"");
    EXPECT_EQ(json_quote("\n\t\x01\x7f"), "\"\\n\\t\\u0001\\u007f\"");
    EXPECT_EQ(json_quote("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
    EXPECT_EQ(json_quote("a\xff" "b\xc3"), "\"a\\ufffdb\\ufffd\"");
    EXPECT_EQ(json_quote(std::string_view("nul\0", 4)), "\"nul\\u0000\"");
}

TEST(JsonWriter, NestsAndIndents) {
    std::ostringstream out;
    {
        JsonWriter json(out);
        json.begin_object();
        json.field("n", uint8_t{7});
        json.field("neg", int64_t{-3});
        json.key("empty");
        json.begin_array();
        json.end_array();
        json.key("list");
        json.begin_array();
        json.value(true);
        json.null();
        json.value(std::optional<int>{});
        json.end_array();
        json.end_object();
    }
    EXPECT_EQ(out.str(),
              "{\n  \"n\": 7,\n  \"neg\": -3,\n  \"empty\": [],\n  \"list\": [\n    true,\n    null,\n"
              "    null\n  ]\n}\n");
}

// listen --json's events: one line each, byte for byte what the CLI printed
// when it built them by hand (std::to_string's integers and six decimals).
TEST(JsonWriter, CompactIsOneLine) {
    std::ostringstream out;
    {
        JsonWriter json(out, JsonStyle::Compact);
        json.begin_object();
        json.field("event", "saved");
        json.field("connection", uint64_t{3});
        json.field("pid", int64_t{-1});
        json.key("argv");
        json.begin_array();
        json.value("a b");
        json.value("line\nbreak");
        json.end_array();
        json.key("none");
        json.begin_array();
        json.end_array();
        json.key("empty");
        json.begin_object();
        json.end_object();
        json.field("collected", false);
        json.key("seconds").value_fixed(0.25, 6);
        json.key("nan").value_fixed(std::numeric_limits<double>::quiet_NaN(), 6);
        json.field("ratio", 0.5);
        json.end_object();
    }
    EXPECT_EQ(out.str(),
              "{\"event\":\"saved\",\"connection\":3,\"pid\":-1,\"argv\":[\"a b\",\"line\\nbreak\"],\"none\":[],"
              "\"empty\":{},\"collected\":false,\"seconds\":0.250000,\"nan\":null,\"ratio\":0.5}\n");
}

TEST(JsonWriter, IntegersAsToString) {
    std::ostringstream out;
    {
        JsonWriter json(out, JsonStyle::Compact);
        json.begin_array();
        json.value(std::numeric_limits<uint64_t>::max());
        json.value(std::numeric_limits<int64_t>::min());
        json.value(uint8_t{200});
        json.end_array();
    }
    EXPECT_EQ(out.str(), "[" + std::to_string(std::numeric_limits<uint64_t>::max()) + "," +
                             std::to_string(std::numeric_limits<int64_t>::min()) + ",200]\n");
}

}  // namespace
}  // namespace refscope::cli
