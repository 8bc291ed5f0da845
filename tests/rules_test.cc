// Unit tests of topology/'s JSON reading (json-c, with the key index that
// says where each member is) and MPICH's JSON tuning rules. No MPI.
#include "topology/rules.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/bad_input.h"
#include "topology/json.h"
#include "topology/topology.h"  // read_text_file

namespace topoa2a {
namespace {

// ---------------------------------------------------------------------------
// JSON

// json-c reads; the key index says where each member is.
TEST(Json, IndexGivesEveryMemberItsPosition) {
  // Comments, a raw newline and braces inside a string, a single-quoted key
  // and an escaped one: all as json-c (and MPICH) reads them.
  const std::string text =
      "/* c { */ {\"a\": [1, {\"in\": {}}], // {\n"
      " 'b': \"x{\n}\\\"\",\n"
      "  \"k\\u0065y\": {\"c\": true}}";
  json::Document d;
  std::string err;
  ASSERT_TRUE(json::parse(text, "j", &d, &err)) << err;
  EXPECT_EQ(d.root_pos.line, 1);
  EXPECT_EQ(d.root_pos.column, 11);
  ASSERT_EQ(d.objects.size(), 4u);  // root, {"in"}, {} and {"c"}, in order of their '{'
  const json::Object& root = d.objects[0];
  ASSERT_EQ(root.members.size(), 3u);
  EXPECT_EQ(root.members[0].key, "a");
  EXPECT_EQ(root.members[0].key_pos.column, 12);
  EXPECT_EQ(root.members[0].value_pos.column, 17);
  EXPECT_EQ(root.members[0].object, -1);  // an array
  EXPECT_EQ(root.members[1].key, "b");
  EXPECT_EQ(root.members[1].key_pos.line, 2);
  EXPECT_EQ(root.members[1].key_pos.column, 2);
  EXPECT_EQ(root.members[1].value_pos.column, 7);
  EXPECT_EQ(root.members[2].key, "key");
  EXPECT_EQ(root.members[2].key_pos.line, 4);
  EXPECT_EQ(root.members[2].key_pos.column, 3);
  ASSERT_EQ(root.members[2].object, 3);
  EXPECT_EQ(d.objects[3].pos.column, 15);
  EXPECT_EQ(d.objects[3].members[0].key, "c");
  // The values are json-c's.
  json_object* b = json_object_object_get(d.root.get(), "b");
  EXPECT_STREQ(json_object_get_string(b), "x{\n}\"");
  EXPECT_STREQ(json::type_name(json_object_object_get(d.root.get(), "a")), "array");
}

TEST(Json, RepeatedKeyKeepsFirstPlaceAndLastValue) {
  // As json-c merges it (so as MPICH sees it).
  const std::string text = "{\"a\": {\"x\": 1},\n \"b\": 2,\n \"a\": {\"y\": 3}}";
  json::Document d;
  std::string err;
  ASSERT_TRUE(json::parse(text, "j", &d, &err)) << err;
  const json::Object& root = d.objects[0];
  ASSERT_EQ(root.members.size(), 2u);
  EXPECT_EQ(root.members[0].key, "a");
  EXPECT_EQ(root.members[0].key_pos.line, 1);
  EXPECT_EQ(root.members[0].value_pos.line, 3);  // the value json-c keeps
  ASSERT_EQ(root.members[0].object, 2);
  EXPECT_EQ(d.objects[2].members[0].key, "y");
  EXPECT_EQ(root.members[1].key, "b");
  ASSERT_EQ(root.repeats.size(), 1u);
  EXPECT_EQ(root.repeats[0].key, "a");
  EXPECT_EQ(root.repeats[0].pos.line, 3);
  EXPECT_EQ(root.repeats[0].first.line, 1);
  json_object* a = json_object_object_get(d.root.get(), "a");
  EXPECT_NE(json_object_object_get(a, "y"), nullptr);
}

TEST(Json, AcceptsWhatMpichsJsonCAccepts) {
  // json-c's non-strict mode, as MPICH's json_tokener_parse reads.
  for (const char* text : {"{\n\"a\": \"x\n\"}", "[1, 2,]", "{\"a\": 01}", "{'a': 1,}",
                           "{\"a\": TRUE, \"b\": NaN}", "{} // c", "{\"a\": {}} /* x */ "}) {
    json::Document d;
    std::string err;
    EXPECT_TRUE(json::parse(text, "j", &d, &err)) << text << ": " << err;
  }
}

TEST(Json, MalformedGivesLineColumn) {
  std::string deep;
  for (int i = 0; i < 32; ++i) deep += "{\"a\": ";
  deep += "{}" + std::string(32, '}');
  const BadInput cases[] = {
      {"{\n  \"a\": {}\n  \"b\": {}\n}", "r.json:3:3: ", "expected ',' or '}'"},
      {"{\"a\": {}", "r.json:1:9: ", "unexpected end of file"},
      {"{\"a\" {}}", "r.json:1:6: ", "expected ':'"},
      {"{\"a\": \"x", "r.json:1:7: ", "unterminated string"},
      {"{} x", "r.json:1:4: ", "expected end of file"},
      {"{\"a\": tru}", "r.json:1:10: ", "expected true or false, got '}'"},
      {"{a: 1}", "r.json:1:2: ", "expected a string key"},
      {"{\"a\": [1 2]}", "r.json:1:10: ", "expected ',' or ']'"},
      {"{\"a\": \"\\x\"}", "r.json:1:9: ", "expected an escape"},
      {"{} /", "r.json:1:5: ", "expected a comment"},
      {"/* open", "r.json:1:1: ", "unterminated /* comment"},
      // json-c alone reads this as the number 1.
      {"{\"a\": 1 /* x", "r.json:1:9: ", "unterminated /* comment"},
      {"{\"a\": 1 //", "r.json:1:11: ", "unexpected end of file"},
      {"", "r.json:1:1: ", "end of file"},
      {deep.c_str(), "r.json:1:", "nesting deeper than json-c reads (32 levels"},
  };
  for (const BadInput& c : cases) {
    json::Document d;
    std::string err;
    EXPECT_FALSE(json::parse(c.text, "r.json", &d, &err)) << c.text;
    expect_error(c, err);
  }
}

// ---------------------------------------------------------------------------
// Rules

const char* kSampleRules = R"({
    "collective=bcast": { "composition=MPIDI_Bcast_intra_composition_alpha": {} },
    "collective=alltoall":
    {
        "comm_type=intra":
        {
            "is_sendbuf_inplace=yes":
            {
                "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}
            },
            "comm_size<=2":
            {
                "algorithm=MPIR_Alltoall_intra_onefactor": {}
            },
            "comm_size < 8":
            {
                "avg_msg_size<=256": { "algorithm=MPIR_Alltoall_intra_brucks": {} },
                "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_ring_bidir": {} }
            },
            "comm_size=pow2":
            {
                "avg_msg_size<1024": { "algorithm=MPIR_Alltoall_intra_hypercube": {} },
                "total_msg_size<=1048576": { "algorithm=MPIR_Alltoall_intra_onefactor_xor": {} },
                "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_topo_auto": {} }
            },
            "comm_size=any":
            {
                "avg_msg_size<=32768": { "algorithm=MPIR_Alltoall_intra_mesh": {} },
                "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_pairwise": {} }
            }
        },
        "comm_type=inter": { "algorithm=MPIR_Alltoall_inter_pairwise_exchange": {} }
    }
})";

TEST(Rules, EachRuleApplies) {
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(kSampleRules, "sample.json", &rules, &err)) << err;
  auto at = [&](int p, size_t m) { return apply_rules(rules, p, m).value_or("<none>"); };
  EXPECT_EQ(at(2, 1), "onefactor");
  EXPECT_EQ(at(2, 1 << 20), "onefactor");
  EXPECT_EQ(at(4, 256), "brucks");
  EXPECT_EQ(at(7, 257), "ring_bidir");
  // MPICH 4.0.2's search (past the conditions pruned at communicator
  // creation, here after is_sendbuf_inplace) tests comm_size<8 as
  // comm_size<=8: p=8 takes that branch, as in MPICH.
  EXPECT_EQ(at(8, 1023), "ring_bidir");
  EXPECT_EQ(at(9, 1023), "mesh");
  EXPECT_EQ(at(16, 1023), "hypercube");
  EXPECT_EQ(at(16, 1024), "onefactor_xor");   // total 16 KiB
  EXPECT_EQ(at(16, 65536), "onefactor_xor");  // total exactly 1 MiB
  EXPECT_EQ(at(16, 65537), "topo_auto");
  EXPECT_EQ(at(12, 32768), "mesh");
  EXPECT_EQ(at(12, 32769), "pairwise");

  RuleQuery q;
  q.comm_size = 12;
  q.avg_msg_size = 64;
  q.inplace = true;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "pairwise_sendrecv_replace");
  q.inplace = false;
  q.intercomm = true;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "MPIR_Alltoall_inter_pairwise_exchange");
  q.intercomm = false;
  q.collective = "bcast";
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "MPIDI_Bcast_intra_composition_alpha");
  q.collective = "allreduce";
  EXPECT_FALSE(apply_rules(rules, q).has_value());

  const RuleNode* leaf = match_rules(rules, RuleQuery{});
  ASSERT_NE(leaf, nullptr);
  EXPECT_EQ(leaf->text, "MPIR_Alltoall_intra_onefactor");  // comm_size 1 <= 2
  EXPECT_EQ(leaf->line, 13);
}

TEST(Rules, OtherKeys) {
  const char* text = R"({"collective=alltoall": {
      "is_multi_threaded=yes": {"algorithm=MPIR_Alltoall_intra_scattered": {}},
      "comm_size=node_comm_size": {"algorithm=MPIR_Alltoall_intra_ring": {}},
      "comm_avg_ppn<=2": {"algorithm=MPIR_Alltoall_intra_onefactor": {}},
      "is_node_consecutive=no": {"algorithm=MPIR_Alltoall_intra_pairwise": {}},
      "count<=4": {"algorithm=MPIR_Alltoall_intra_brucks": {}},
      "comm_hierarchy=any": {"algorithm=MPIR_Alltoall_intra_mesh": {}}}})";
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(text, "o.json", &rules, &err)) << err;
  RuleQuery q;
  q.comm_size = 8;
  q.nodes = 2;
  q.node_comm_size = 4;
  q.multi_threaded = true;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "scattered");
  q.multi_threaded = false;
  q.nodes = 1;
  q.node_comm_size = 8;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "ring");
  q.node_comm_size = 2;
  q.nodes = 4;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "onefactor");
  q.nodes = 2;
  q.node_consecutive = false;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "pairwise");
  q.node_consecutive = true;
  q.count = 4;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "brucks");
  q.count = -1;
  EXPECT_EQ(apply_rules(rules, q).value_or(""), "mesh");
}

TEST(Rules, MpichShippedFilesParse) {
#ifndef TOPOA2A_MPICH_TUNING_DIR
  GTEST_SKIP() << "TOPOA2A_MPICH_TUNING_DIR not configured (ci/test.sh sets it from "
                  "ci/mpich-tuning.sh)";
#else
  const std::string dir = TOPOA2A_MPICH_TUNING_DIR;
  // Configured: the files must be there (a missing file fails, never skips).
  for (const char* name : {"/mpir/generic.json", "/ch4/generic.json", "/ch4/posix_generic.json"}) {
    Rules rules;
    std::string err;
    EXPECT_TRUE(load_rules_file(dir + name, &rules, &err)) << err;
  }
  Rules rules;
  std::string err;
  ASSERT_TRUE(load_rules_file(dir + "/mpir/generic.json", &rules, &err)) << err;
  EXPECT_EQ(apply_rules(rules, 4, 100).value_or(""), "scattered");
  EXPECT_EQ(apply_rules(rules, 4, 100000).value_or(""), "pairwise");
  EXPECT_EQ(apply_rules(rules, 16, 256).value_or(""), "brucks");
  EXPECT_EQ(apply_rules(rules, 16, 1000).value_or(""), "scattered");
  EXPECT_EQ(apply_rules(rules, 16, 100000).value_or(""), "pairwise");
  // MPICH's own file names none of ours: the copy for MPICH is the file.
  std::string text;
  ASSERT_TRUE(read_text_file(dir + "/mpir/generic.json", &text, &err)) << err;
  TuningForMpich copy;
  ASSERT_TRUE(filter_tuning_for_mpich(text, "generic.json", &copy, &err)) << err;
  EXPECT_EQ(copy.replaced, 0);
  EXPECT_GT(copy.other_collectives, 10);
#endif
}

TEST(Rules, ReadAsMpichsJsonCReadsThem) {
  // Comments, single quotes, trailing commas: json-c (so MPICH) reads them;
  // positions still point into the file as written.
  const std::string text =
      "{ // MPICH's json-c reads comments,\n"
      "  'collective=alltoall': { /* single quotes { */\n"
      "    \"comm_size<=4\": {\"algorithm=MPIR_Alltoall_intra_ring\": {},},\n"
      "    \"comm_size=any\": {\"algorithm=MPIR_Alltoall_intra_NAME\": {}},\n"
      "  },\n"
      "}\n";
  auto with = [&](const std::string& name) {
    std::string t = text;
    t.replace(t.find("NAME"), 4, name);
    return t;
  };
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(with("mesh"), "m.json", &rules, &err)) << err;
  EXPECT_EQ(apply_rules(rules, 4, 8).value_or(""), "ring");
  EXPECT_EQ(apply_rules(rules, 5, 8).value_or(""), "mesh");
  ASSERT_EQ(rules.top.size(), 1u);
  EXPECT_EQ(rules.top[0].line, 2);
  EXPECT_EQ(rules.top[0].column, 3);
  EXPECT_FALSE(parse_rules(with("rnig"), "m.json", &rules, &err));
  EXPECT_EQ(err.rfind("m.json:4:34: unknown alltoall algorithm 'MPIR_Alltoall_intra_rnig'", 0), 0u)
      << err;
}

TEST(Rules, MalformedGivesLineColumn) {
  const BadInput cases[] = {
      {"{\"collective=alltoall\": {\n  \"comm_size<=8\": {\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}}\n  \"comm_size=any\": {}}}",
       "x.json:3:3: ", "expected ',' or '}'"},
      {"{\"collective=alltoall\": {\n  \"comm_size<=8x\": {\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}},\n  \"comm_size=any\": {\"algorithm=MPIR_Alltoall_intra_ring\": {}}}}",
       "x.json:2:15: ", "expected a non-negative integer after 'comm_size<='"},
      {"{\"collective=alltoall\": {\n    \"comm_sise=any\": "
       "{\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}}}}",
       "x.json:2:5: ", "unknown key 'comm_sise=any'"},
      {"{\"collective=alltoall\": {\"comm_size=any\": {\"algorithm=MPIR_Alltoall_intra_rnig\": "
       "{}}}}",
       "x.json:1:55: ", "unknown alltoall algorithm 'MPIR_Alltoall_intra_rnig'"},
      {"{\"collective=alltoall\": {\"comm_size<=8\": {\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}}}}",
       "x.json:1:26: ", "needs a following key"},
      {"{\"collective=alltoall\": {\"comm_size=any\": {\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}},\n \"comm_size<=8\": {\"algorithm=MPIR_Alltoall_intra_ring\": {}}}}",
       "x.json:1:26: ", "must be the last key"},
      {"{\"collective=alltoall\": {\"comm_size=any\": []}}",
       "x.json:1:43: ", "expected an object as the value of 'comm_size=any', got array"},
      {"{\"collective=alltoall\": {}}", "x.json:1:25: ", "at least one rule"},
      {"{\"collective=alltoal\": {\"algorithm=MPIR_Alltoall_intra_ring\": {}}}",
       "x.json:1:14: ", "unknown collective 'alltoal'"},
      {"{\"collective=alltoall\": {\"algorithm=MPIR_Alltoall_intra_ring\": {}, \"comm_size=any\": "
       "{}}}",
       "x.json:1:26: ", "must be the only key"},
      {"{\"collective=alltoall\": {\"comm_type=intra\": {\"algorithm=MPIR_Alltoall_intra_ring\": "
       "{}},\n\"comm_type=intra\": {\"algorithm=MPIR_Alltoall_intra_ring\": {}}}}",
       "x.json:2:1: ", "duplicate key 'comm_type=intra'"},
      {"[1]", "x.json:1:1: ", "expected an object at the top level"},
  };
  for (const BadInput& c : cases) {
    Rules rules;
    std::string err;
    EXPECT_FALSE(parse_rules(c.text, "x.json", &rules, &err)) << c.text;
    expect_error(c, err);
  }
}

}  // namespace
}  // namespace topoa2a
