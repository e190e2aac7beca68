#include <gtest/gtest.h>

#include "refscope/analysis/filter_query.h"
#include "snapshot_builder.h"

namespace refscope {
namespace {

using analysis::FilterSyntaxError;
using analysis::parse_filter;

std::string tree(std::string_view text) { return parse_filter(text).to_string(); }

// The message and 1-based column of the syntax error `text` raises.
std::pair<std::string, size_t> error_of(std::string_view text) {
    try {
        parse_filter(text);
    } catch (const FilterSyntaxError& e) {
        return {e.what(), e.column()};
    }
    return {"(no error)", 0};
}

TEST(FilterParser, BlankMatchesEverything) {
    EXPECT_TRUE(parse_filter("").matches_everything());
    EXPECT_TRUE(parse_filter("   \t").matches_everything());
    EXPECT_EQ(tree(""), "(all)");
}

TEST(FilterParser, TextFields) {
    EXPECT_EQ(tree("type:app.Leaky"), "(type app.Leaky)");
    EXPECT_EQ(tree("type:app.*"), "(type app.*)");
    EXPECT_EQ(tree("module:app"), "(module app)");
    EXPECT_EQ(tree("preview:hello"), "(preview hello)");
    EXPECT_EQ(tree("preview:\"hello world\""), "(preview hello world)");
    EXPECT_EQ(tree("preview:\"say \\\"hi\\\"\""), "(preview say \"hi\")");
    EXPECT_EQ(tree("TYPE:dict"), "(type dict)");  // field names are case-insensitive
}

TEST(FilterParser, Addresses) {
    EXPECT_EQ(tree("0x7F3a5c001230"), "(address 0x7f3a5c001230)");
    EXPECT_EQ(tree("address:0x10"), "(address 0x10)");
    EXPECT_EQ(tree("address:7f00"), "(address 0x7f00)");
    EXPECT_EQ(tree("addr:0xff"), "(address 0xff)");
}

TEST(FilterParser, EveryNumericFieldAndOperator) {
    EXPECT_EQ(tree("size>1000"), "(size > 1000)");
    EXPECT_EQ(tree("size>=1000"), "(size >= 1000)");
    EXPECT_EQ(tree("size<1000"), "(size < 1000)");
    EXPECT_EQ(tree("size<=1000"), "(size <= 1000)");
    EXPECT_EQ(tree("size=1000"), "(size = 1000)");
    EXPECT_EQ(tree("size==1000"), "(size = 1000)");
    EXPECT_EQ(tree("size!=1000"), "(size != 1000)");
    EXPECT_EQ(tree("size:1000"), "(size = 1000)");
    EXPECT_EQ(tree("size:>=5"), "(size >= 5)");
    EXPECT_EQ(tree("retained>1"), "(retained > 1)");
    EXPECT_EQ(tree("refcount>1"), "(refcount > 1)");
    EXPECT_EQ(tree("surplus>0"), "(surplus > 0)");
    EXPECT_EQ(tree("surplus<-1"), "(surplus < -1)");
    EXPECT_EQ(tree("unexplained>0"), "(unexplained > 0)");
    EXPECT_EQ(tree("distance<3"), "(distance < 3)");
    EXPECT_EQ(tree("depth<3"), "(distance < 3)");
    EXPECT_EQ(tree("referrers>2"), "(referrers > 2)");
    EXPECT_EQ(tree("refs>2"), "(referrers > 2)");
    EXPECT_EQ(tree("referents>2"), "(referents > 2)");
}

TEST(FilterParser, Units) {
    EXPECT_EQ(tree("size>7B"), "(size > 7)");
    EXPECT_EQ(tree("size>1KB"), "(size > 1000)");
    EXPECT_EQ(tree("size>1kb"), "(size > 1000)");
    EXPECT_EQ(tree("size>1.5MB"), "(size > 1500000)");
    EXPECT_EQ(tree("size>2GB"), "(size > 2000000000)");
    EXPECT_EQ(tree("size>1TB"), "(size > 1000000000000)");
    EXPECT_EQ(tree("size>1KiB"), "(size > 1024)");
    EXPECT_EQ(tree("retained>1MiB"), "(retained > 1048576)");
    EXPECT_EQ(tree("size>1GiB"), "(size > 1073741824)");
    EXPECT_EQ(tree("size>1TiB"), "(size > 1099511627776)");
    EXPECT_EQ(tree("refcount>10k"), "(refcount > 10000)");
    EXPECT_EQ(tree("referrers>2M"), "(referrers > 2000000)");
    EXPECT_EQ(tree("size>0.5"), "(size > 0.5)");
}

TEST(FilterParser, EveryFlag) {
    for (const char* flag : {"new", "unreachable", "reachable", "cycle", "root", "immortal",
                             "tracked", "native", "typeobject", "suspect"}) {
        EXPECT_EQ(tree(flag), flag);
    }
}

TEST(FilterParser, AndBindsTighterThanOr) {
    EXPECT_EQ(tree("new root OR cycle"), "(or (and new root) cycle)");
    EXPECT_EQ(tree("new OR root cycle"), "(or new (and root cycle))");
    EXPECT_EQ(tree("new AND root or cycle"), "(or (and new root) cycle)");
    EXPECT_EQ(tree("new (root OR cycle)"), "(and new (or root cycle))");
    EXPECT_EQ(tree("new root native"), "(and (and new root) native)");
    EXPECT_EQ(tree("((new))"), "new");
}

TEST(FilterParser, Negation) {
    EXPECT_EQ(tree("-new"), "(not new)");
    EXPECT_EQ(tree("not new"), "(not new)");
    EXPECT_EQ(tree("NOT new root"), "(and (not new) root)");
    EXPECT_EQ(tree("-(new OR root)"), "(not (or new root))");
    EXPECT_EQ(tree("not(new)"), "(not new)");
    EXPECT_EQ(tree("--new"), "(not (not new))");
    EXPECT_EQ(tree("-type:dict size>10"), "(and (not (type dict)) (size > 10))");
}

TEST(FilterParser, TheExampleFromTheBrief) {
    EXPECT_EQ(
        tree("type:app.Leaky module:app size>1000 surplus>0 new retained>1MB unreachable cycle"),
        "(and (and (and (and (and (and (and (type app.Leaky) (module app)) (size > 1000)) "
        "(surplus > 0)) new) (retained > 1000000)) unreachable) cycle)");
}

TEST(FilterParser, ErrorsCarryColumns) {
    const std::vector<std::tuple<std::string, std::string, size_t>> cases = {
        {"sise>10", "unknown field 'sise' at column 1: did you mean 'size'?", 1},
        {"new sise>10", "unknown field 'sise' at column 5: did you mean 'size'?", 5},
        {"size>", "expected a number after 'size>' at column 6", 6},
        {"size>=x", "expected a number after 'size>=' at column 7", 7},
        {"new (root", "unclosed '(' at column 5", 5},
        {"((new) root", "unclosed '(' at column 1", 1},
        {"new)", "unexpected ')' at column 4", 4},
        {")", "unexpected ')' at column 1", 1},
        {"()", "empty parentheses at column 1", 1},
        {"new OR", "expected a term after 'OR' at column 7", 7},
        {"OR new", "expected a term before 'OR' at column 1", 1},
        {"(and new)", "expected a term before 'AND' at column 2", 2},
        {"new OR or", "expected a term after 'OR' at column 8", 8},
        {"new OR )", "expected a term after 'OR' at column 8", 8},
        {"new AND OR root", "expected a term after 'AND' at column 9", 9},
        {"not", "expected a term after 'not' at column 4", 4},
        {"- new", "expected a term after '-' at column 2", 2},
        {"type:", "expected a value after 'type:' at column 6", 6},
        {"preview:\"abc", "unterminated quote at column 9", 9},
        {"preview:\"abc\"x", "unexpected 'x' after the closing quote at column 14", 14},
        {"size>10XB",
         "unknown unit 'XB' at column 8 (bytes: B KB MB GB TB KiB MiB GiB TiB; counts: k M G)", 8},
        {"refcount>1MB", "'refcount' is not a size: unit 'MB' does not apply at column 11", 11},
        {"size>10,5", "unexpected ',' after the number at column 8", 8},
        {"size~10", "unknown term 'size~10' at column 1: to match a type name, write type:size~10",
         1},
        {"type>5", "'type' takes ':', not a comparison at column 5 (type:VALUE)", 5},
        {"unreachabel", "unknown flag 'unreachabel' at column 1: did you mean 'unreachable'?", 1},
        {"Leaky", "unknown flag 'Leaky' at column 1: to match a type name, write type:Leaky", 1},
        {"app.Leaky",
         "unknown term 'app.Leaky' at column 1: to match a type name, write type:app.Leaky", 1},
        {"size", "expected a comparison after 'size' at column 5 (e.g. size>100)", 5},
        {"type", "expected ':' after 'type' at column 5 (type:VALUE)", 5},
        {"0xzz", "expected hexadecimal digits after '0x' at column 3", 3},
        {"0x12g", "unexpected 'g' in address at column 5", 5},
        {"address:zz", "expected a hexadecimal address after 'address:' at column 9", 9},
        {"0x11112222333344445", "address too long at column 1", 1},
        {"size>1 >2", "unexpected '>' at column 8", 8},
        {"neww", "unknown flag 'neww' at column 1: did you mean 'new'?", 1},
        {"modul:app", "unknown field 'modul' at column 1: did you mean 'module'?", 1},
    };
    for (const auto& [text, message, column] : cases) {
        const auto [got, got_column] = error_of(text);
        EXPECT_EQ(got, message) << "query: " << text;
        EXPECT_EQ(got_column, column) << "query: " << text;
    }
}

TEST(FilterParser, NestingIsBounded) {
    const std::string deep = std::string(10000, '(') + "new" + std::string(10000, ')');
    EXPECT_THROW(parse_filter(deep), FilterSyntaxError);
    std::string negations;
    for (int i = 0; i < 10000; ++i) negations += "-";
    EXPECT_THROW(parse_filter(negations + "new"), FilterSyntaxError);
    const std::string fine = std::string(20, '(') + "new" + std::string(20, ')');
    EXPECT_EQ(tree(fine), "new");
}

TEST(FilterParser, NeedsNameTheAnalysesAQueryReads) {
    const auto none = analysis::filter_needs(parse_filter("type:app.* size>1MB root -immortal"));
    EXPECT_FALSE(none.index || none.roots || none.paths || none.retained || none.cycles ||
                 none.diff || none.suspects);
    const auto all = analysis::filter_needs(parse_filter(
        "referrers>1 OR surplus>0 OR -unreachable OR retained>1 OR cycle OR new OR suspect"));
    EXPECT_TRUE(all.index && all.roots && all.paths && all.retained && all.cycles && all.diff &&
                all.suspects);
    EXPECT_TRUE(analysis::filter_needs(parse_filter("depth<2")).paths);
    EXPECT_FALSE(analysis::filter_needs(parse_filter("depth<2")).roots);
    EXPECT_TRUE(analysis::filter_needs(parse_filter("unexplained>0")).roots);
    EXPECT_TRUE(analysis::filter_needs(parse_filter("referents>0")).index);
}

TEST(FilterCompletions, FieldsFlagsAndTypeNames) {
    testing::SnapshotBuilder b;
    b.node("app.Leaky", 1, {}, 32, format::kNodeGcTracked, "app");
    b.node("app.Holder", 1, {}, 32, format::kNodeGcTracked, "app");
    b.node("dict");
    const Snapshot s = b.build();
    using analysis::filter_completions;
    EXPECT_EQ(filter_completions("si", s), (std::vector<std::string>{"size>"}));
    EXPECT_EQ(filter_completions("new re", s),
              (std::vector<std::string>{"reachable", "refcount>", "referents>", "referrers>",
                                        "refs>", "retained>"}));
    EXPECT_EQ(filter_completions("ty", s), (std::vector<std::string>{"type:", "typeobject"}));
    EXPECT_EQ(filter_completions("size>1 type:app.", s),
              (std::vector<std::string>{"type:app.Holder", "type:app.Leaky"}));
    EXPECT_EQ(filter_completions("(-type:d", s), (std::vector<std::string>{"-type:dict"}));
    EXPECT_EQ(filter_completions("module:a", s), (std::vector<std::string>{"module:app"}));
    EXPECT_EQ(filter_completions("zzz", s), std::vector<std::string>{});
    EXPECT_EQ(filter_completions("", s, 3).size(), 3u);
}

}  // namespace
}  // namespace refscope
