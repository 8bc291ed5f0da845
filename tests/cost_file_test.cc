// Unit tests of the cost file (topology/cost_file.h; no MPI): a good file,
// each error with its position, the precedence defaults < file <
// MPIR_CVAR_TOPOA2A_COST, and the descriptions that carry them to the doors.
#include "topology/cost_file.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/bad_input.h"
#include "topology/descriptions.h"

namespace topoa2a {
namespace {

TEST(CostFile, GoodFile) {
  const std::string text =
      "# written by hand\n"
      "\n"
      "ts_intra 0.42us      # shared memory\n"
      "  tw_intra\t0.087ns/B\n"
      "ts_inter 1.5e-6\r\n"
      "o 120ns\n"
      "tw_inter 0.25ns";  // no newline at the end
  CostParams c;
  c.ts_hop = 7e-9;  // not in the file: kept
  std::vector<std::string> given;
  std::string err;
  ASSERT_TRUE(parse_cost_file(text, "cal.cost", &c, &given, &err)) << err;
  EXPECT_DOUBLE_EQ(c.ts_intra, 0.42e-6);
  EXPECT_DOUBLE_EQ(c.tw_intra, 0.087e-9);
  EXPECT_DOUBLE_EQ(c.ts_inter, 1.5e-6);
  EXPECT_DOUBLE_EQ(c.o, 120e-9);
  EXPECT_DOUBLE_EQ(c.tw_inter, 0.25e-9);
  EXPECT_DOUBLE_EQ(c.ts_hop, 7e-9);
  EXPECT_EQ(given, (std::vector<std::string>{"ts_intra", "tw_intra", "ts_inter", "o", "tw_inter"}));
  // Empty and comment-only files set nothing.
  CostParams d;
  given.clear();
  EXPECT_TRUE(parse_cost_file("", "e", &d, &given, &err));
  EXPECT_TRUE(parse_cost_file("# nothing\n\n", "e", &d, &given, &err));
  EXPECT_TRUE(given.empty());
  EXPECT_DOUBLE_EQ(d.ts_inter, CostParams{}.ts_inter);
}

TEST(CostFile, ErrorsNameLineAndColumn) {
  const BadInput cases[] = {
      {"ts_intra 1us\ntsintra 2us\n", "c.cost:2:1: ",
       "unknown key 'tsintra'; expected one of "
       "ts_intra, tw_intra, ts_inter, tw_inter, "
       "ts_hop, o"},
      {"o 1us\n\n  o 2us\n", "c.cost:3:3: ", "duplicate key 'o' (first at line 1)"},
      {"ts_inter\n", "c.cost:1:9: ", "expected a value after 'ts_inter'"},
      {"ts_inter # none\n", "c.cost:1:9: ", "expected a value after 'ts_inter'"},
      {"# c\ntw_inter   fast\n", "c.cost:2:12: ", "'fast' is not a non-negative number"},
      {"tw_inter -1ns\n", "c.cost:1:10: ", "'-1ns' is not a non-negative number"},
      {"tw_inter inf\n", "c.cost:1:10: ", "'inf' is not a non-negative number"},
      {"ts_hop 3 parsecs\n", "c.cost:1:10: ",
       "expected end of line after the value, got "
       "'parsecs'"},
      {"ts_hop 3parsecs\n", "c.cost:1:8: ", "unknown unit 'parsecs' in '3parsecs'"},
      {"ts_intra=1us\n", "c.cost:1:1: ", "unknown key 'ts_intra=1us'"},
  };
  for (const BadInput& c : cases) {
    CostParams p;
    p.ts_intra = 9;  // unchanged on error
    std::vector<std::string> given;
    std::string err;
    EXPECT_FALSE(parse_cost_file(c.text, "c.cost", &p, &given, &err)) << c.text;
    expect_error(c, err);
    EXPECT_DOUBLE_EQ(p.ts_intra, 9);
    EXPECT_TRUE(given.empty());
  }
}

TEST(CostFile, WrittenFileReadsBack) {
  CostParams c;
  c.ts_intra = 3.25e-7;
  c.tw_intra = 8.5e-11;
  c.o = 1.5e-7;
  const std::string text = write_cost_file(c, {"ts_intra", "tw_intra", "o"}, "one\n\ntwo");
  EXPECT_EQ(text.rfind("# one\n#\n# two\n", 0), 0u) << text;
  CostParams back;
  std::vector<std::string> given;
  std::string err;
  ASSERT_TRUE(parse_cost_file(text, "w", &back, &given, &err)) << err;
  EXPECT_EQ(given, (std::vector<std::string>{"ts_intra", "tw_intra", "o"}));
  EXPECT_NEAR(back.ts_intra, c.ts_intra, 1e-6 * c.ts_intra);
  EXPECT_NEAR(back.tw_intra, c.tw_intra, 1e-6 * c.tw_intra);
  EXPECT_NEAR(back.o, c.o, 1e-6 * c.o);
  EXPECT_DOUBLE_EQ(back.ts_inter, CostParams{}.ts_inter);  // not written
}

TEST(CostFile, CvarOverridesTheFileKeyByKey) {
  const std::string file = "ts_inter 3us\ntw_inter 0.2ns\no 1us\n";
  CostParams c;
  std::vector<std::string> from;
  std::string err;
  ASSERT_TRUE(resolve_cost("m.cost", file, "", "o=0.5us,ts_intra=0.25us", &c, &from, &err)) << err;
  EXPECT_DOUBLE_EQ(c.ts_inter, 3e-6);                   // file
  EXPECT_DOUBLE_EQ(c.tw_inter, 0.2e-9);                 // file
  EXPECT_DOUBLE_EQ(c.o, 0.5e-6);                        // the variable over the file
  EXPECT_DOUBLE_EQ(c.ts_intra, 0.25e-6);                // the variable
  EXPECT_DOUBLE_EQ(c.tw_intra, CostParams{}.tw_intra);  // default
  const std::vector<std::string> keys = cost_keys();
  ASSERT_EQ(from.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    const char* want = k == "o" || k == "ts_intra"          ? "MPIR_CVAR_TOPOA2A_COST"
                       : k == "ts_inter" || k == "tw_inter" ? "file:m.cost"
                                                            : "default";
    EXPECT_EQ(from[i], want) << k;
  }
  const std::string d = describe_cost(c, from);
  EXPECT_NE(d.find("ts_inter=3us (file:m.cost)"), std::string::npos) << d;
  EXPECT_NE(d.find("o=0.5us (MPIR_CVAR_TOPOA2A_COST)"), std::string::npos) << d;
  EXPECT_NE(d.find("ts_hop=0us (default)"), std::string::npos) << d;
  // No file: the variable over the defaults.
  ASSERT_TRUE(resolve_cost("", "", "", "ts_inter=4us", &c, &from, &err));
  EXPECT_DOUBLE_EQ(c.ts_inter, 4e-6);
  EXPECT_DOUBLE_EQ(c.o, CostParams{}.o);
}

TEST(CostFile, ProblemsNameTheVariable) {
  CostParams c;
  std::vector<std::string> from;
  std::string err;
  EXPECT_FALSE(resolve_cost("m.cost", "o 1us\nbogus 2\n", "", "", &c, &from, &err));
  EXPECT_EQ(err.rfind("MPIR_CVAR_TOPOA2A_COST_FILE: m.cost:2:1: unknown key 'bogus'", 0), 0u)
      << err;
  EXPECT_DOUBLE_EQ(c.o, CostParams{}.o);  // the defaults on error
  EXPECT_FALSE(resolve_cost("/nope", "", "/nope: cannot open: No such file", "", &c, &from, &err));
  EXPECT_EQ(err, "MPIR_CVAR_TOPOA2A_COST_FILE=/nope: /nope: cannot open: No such file");
  // A good file with a bad variable: the variable's error.
  EXPECT_FALSE(resolve_cost("m.cost", "o 1us\n", "", "o=fast", &c, &from, &err));
  EXPECT_NE(err.find("MPIR_CVAR_TOPOA2A_COST='o=fast'"), std::string::npos) << err;
}

TEST(CostFile, DescriptionsAndTopologyCarryIt) {
  UserDescriptions d;
  d.cost_path = "m.cost";
  d.cost_text = "ts_inter 3us\n";
  d.cost = "tw_inter=0.5ns";
  std::string err;
  ASSERT_TRUE(parse_user_descriptions(&d, &err)) << err;
  EXPECT_DOUBLE_EQ(d.cost_params.ts_inter, 3e-6);
  EXPECT_DOUBLE_EQ(d.cost_params.tw_inter, 0.5e-9);
  // The topology of a communicator carries the same, for topoa2a-info.
  Topology t = uniform_topology(2, 2);
  apply_user_descriptions(&t, d, [] { return std::vector<std::string>(4); });
  std::vector<std::string> from;
  const CostParams c = cost_params_for(t, &err, &from);
  EXPECT_DOUBLE_EQ(c.ts_inter, 3e-6);
  EXPECT_DOUBLE_EQ(c.tw_inter, 0.5e-9);
  EXPECT_NE(describe_cost(c, from).find("ts_inter=3us (file:m.cost)"), std::string::npos);
  d.cost_text = "ts_inter 3 us\n";
  EXPECT_FALSE(parse_user_descriptions(&d, &err));
  EXPECT_EQ(err.rfind("MPIR_CVAR_TOPOA2A_COST_FILE: m.cost:1:12: expected end of line", 0), 0u)
      << err;
}

}  // namespace
}  // namespace topoa2a
