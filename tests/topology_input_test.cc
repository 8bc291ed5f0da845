// Unit tests of what topology/ reads from the user (no MPI): file limits,
// out-of-range numbers, the descriptions parsed once, rules files at scale,
// the rules query as MPICH fills it, and the tuning file copy handed to
// MPICH.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "topology/descriptions.h"
#include "topology/json.h"
#include "topology/rules.h"
#include "topology/topology.h"

namespace topoa2a {
namespace {

// A private scratch directory, removed with its files.
class Scratch {
 public:
  Scratch() {
    const char* tmp = std::getenv("TMPDIR");
    std::string t = std::string(tmp && *tmp ? tmp : "/tmp") + "/topoa2a-test-XXXXXX";
    dir_ = mkdtemp(t.data()) ? t : "";
  }
  ~Scratch() {
    if (!dir_.empty()) std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = path(name);
    FILE* f = std::fopen(p.c_str(), "wb");
    if (f) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
    return p;
  }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// ---------------------------------------------------------------------------
// Input files: regular files of bounded size.

TEST(InputFile, DeviceIsRejectedNotReadForever) {
  std::string text, err;
  EXPECT_FALSE(read_text_file("/dev/zero", &text, &err));
  EXPECT_TRUE(contains(err, "/dev/zero: is a device, expected a regular file")) << err;
}

TEST(InputFile, DirectoryIsRejected) {
  Scratch s;
  ASSERT_FALSE(s.dir().empty());
  std::string text, err;
  EXPECT_FALSE(read_text_file(s.dir(), &text, &err));
  EXPECT_TRUE(contains(err, "is a directory, expected a regular file")) << err;
}

TEST(InputFile, FifoIsRejectedWithoutWaitingForAWriter) {
  Scratch s;
  const std::string fifo = s.path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string text, err;
  EXPECT_FALSE(read_text_file(fifo, &text, &err));
  EXPECT_TRUE(contains(err, "is a pipe")) << err;
}

TEST(InputFile, LargerThanTheLimitIsRejected) {
  Scratch s;
  const std::string big = s.path("big.json");
  const int fd = ::open(big.c_str(), O_CREAT | O_WRONLY, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, kMaxInputFileBytes + 1), 0);  // sparse: no disk used
  ::close(fd);
  std::string text, err;
  EXPECT_FALSE(read_text_file(big, &text, &err));
  EXPECT_TRUE(contains(err, "too large; the limit is 67108864 bytes (64 MiB)")) << err;
  // A small file is read; a smaller limit rejects it.
  std::string small = s.write("small.net", "network ring 4\n");
  EXPECT_TRUE(read_text_file(small, &text, &err)) << err;
  EXPECT_EQ(text, "network ring 4\n");
  EXPECT_FALSE(read_text_file(small, &text, &err, 4));  // a smaller limit
  EXPECT_TRUE(contains(err, "too large")) << err;
  EXPECT_FALSE(read_text_file(s.path("missing"), &text, &err));
  EXPECT_TRUE(contains(err, "cannot open")) << err;
}

TEST(InputFile, RulesFileMustBeRegular) {
  Rules rules;
  std::string err;
  EXPECT_FALSE(load_rules_file("/dev/zero", &rules, &err));
  EXPECT_TRUE(contains(err, "is a device")) << err;
}

// ---------------------------------------------------------------------------
// Out-of-range numbers: checked, never wrapped.

TEST(Ranges, ForcedTopologyDimsOutOfRange) {
  const struct {
    const char* text;
    const char* words;
  } cases[] = {
      {"torus:4294967298x1",
       "torus:4294967298x1: extent 4294967298 is out of range; each extent "
       "must be 1..1048576"},
      {"mesh:99999999999999999999x2", "extent 99999999999999999999 is out of range"},
      {"ring:0", "extent 0 is out of range"},
      {"torus:1048576x1048576", "multiply to more than 1073741823 endpoints"},
      {"dragonfly:4294967296x2", "out of range"},
      {"nodes:2x4294967298", "nodes:2x4294967298: extent 4294967298 is out of range"},
      {"nodes:65536x65536", "multiply to more than"},
  };
  for (const auto& c : cases) {
    NetworkDesc d;
    std::string err;
    EXPECT_FALSE(parse_forced_topology(c.text, &d, &err)) << c.text;
    EXPECT_TRUE(contains(err, std::string("MPIR_CVAR_TOPOA2A_TOPOLOGY='") + c.text + "'")) << err;
    EXPECT_TRUE(contains(err, c.words)) << c.text << "\n" << err;
  }
  NetworkDesc d;
  std::string err;
  ASSERT_TRUE(parse_forced_topology("torus:1048576x1,nodes:1024x1024", &d, &err)) << err;
  EXPECT_EQ(d.dims, (std::vector<int>{1048576, 1}));
  EXPECT_EQ(d.layout_nodes * d.layout_ranks_per_node, 1 << 20);
}

TEST(Ranges, NetworkFileNumbersOutOfRange) {
  const struct {
    const char* text;
    const char* words;
  } cases[] = {
      {"network torus 4294967298x1\n",
       "f:1:15: dimensions 4294967298x1: extent 4294967298 is out "
       "of range; each extent must be 1..1048576"},
      {"nodes 4294967298x1\n", "f:1:7: nodes 4294967298x1: extent 4294967298 is out of range"},
      {"network ring 8\nrank 99999999999 0\n", "f:2:6: rank 99999999999 is out of range"},
      {"network ring 8\nrank 4294967296 0\n", "rank 4294967296 is out of range"},
      {"network ring 8\nrank 0 4294967296\n", "f:2:8: coordinate 4294967296 is out of range"},
  };
  for (const auto& c : cases) {
    NetworkDesc d;
    std::string err;
    EXPECT_FALSE(parse_network_file(c.text, "f", &d, &err)) << c.text;
    EXPECT_TRUE(contains(err, c.words)) << c.text << "\n" << err;
  }
}

// ---------------------------------------------------------------------------
// The user's descriptions: parsed once, every problem an error.

TEST(Descriptions, ParsedOnceAndKept) {
  UserDescriptions d;
  d.forced = "nodes:2x2,torus:2x2";
  d.cost = "ts_inter=5us";
  d.path = "ring4.net";
  d.text = "network ring 4\n";
  std::string err;
  ASSERT_TRUE(parse_user_descriptions(&d, &err)) << err;
  EXPECT_TRUE(d.parsed);
  ASSERT_TRUE(d.forced_desc.has_value());
  EXPECT_EQ(d.forced_desc->kind, NetKind::kTorus);
  EXPECT_EQ(d.forced_desc->layout_nodes, 2);
  ASSERT_TRUE(d.file_desc.has_value());
  EXPECT_EQ(d.file_desc->kind, NetKind::kRing);
  EXPECT_DOUBLE_EQ(d.cost_params.ts_inter, 5e-6);

  // Applied from the parsed form, with the text gone: nothing is parsed again.
  d.forced = "garbage that would not parse";
  d.text = "garbage";
  Topology t = uniform_topology(1, 4);
  apply_user_descriptions(&t, d, [] { return std::vector<std::string>(); });
  EXPECT_TRUE(t.errors.empty()) << describe(t);
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.network.kind, NetKind::kTorus);
}

// The torus and mesh grids reach every communicator's Topology (for the
// cost model); malformed ones (the front door's config refuses them at
// MPI_Init) are left empty.
TEST(Descriptions, UserGridsReachTheTopology) {
  UserDescriptions d;
  d.torus_dims = "2x4x2";
  d.mesh_grid = "4x4";
  Topology t = uniform_topology(1, 16);
  apply_user_descriptions(&t, d, [] { return std::vector<std::string>(); });
  EXPECT_EQ(t.torus_dims, (std::vector<int>{2, 4, 2}));
  EXPECT_EQ(t.mesh_grid, (std::vector<int>{4, 4}));
  d.torus_dims = "2y8";
  d.mesh_grid = "four";
  apply_user_descriptions(&t, d, [] { return std::vector<std::string>(); });
  EXPECT_TRUE(t.torus_dims.empty());
  EXPECT_TRUE(t.mesh_grid.empty());
}

TEST(Descriptions, EachMalformedOneIsAnError) {
  const struct {
    const char* forced;
    const char* cost;
    const char* path;
    const char* text;
    const char* words;
  } cases[] = {
      {"bogus", "", "", "", "MPIR_CVAR_TOPOA2A_TOPOLOGY='bogus': column 1: unknown item"},
      {"", "ts_inter=fast", "", "", "MPIR_CVAR_TOPOA2A_COST='ts_inter=fast'"},
      {"", "", "x.net", "network tours 4\n", "MPIR_CVAR_TOPOA2A_NETWORK_FILE: x.net:1:9: expected"},
      {"torus:3x1431655766", "", "", "", "out of range"},
  };
  for (const auto& c : cases) {
    UserDescriptions d;
    d.forced = c.forced;
    d.cost = c.cost;
    d.path = c.path;
    d.text = c.text;
    std::string err;
    EXPECT_FALSE(parse_user_descriptions(&d, &err)) << c.words;
    EXPECT_FALSE(d.parsed);
    EXPECT_TRUE(contains(err, c.words)) << err;
  }
  UserDescriptions d;
  d.path = "/dev/zero";
  d.read_error = "/dev/zero: is a device, expected a regular file";
  std::string err;
  EXPECT_FALSE(parse_user_descriptions(&d, &err));
  EXPECT_EQ(err,
            "MPIR_CVAR_TOPOA2A_NETWORK_FILE=/dev/zero: /dev/zero: is a device, expected a regular "
            "file");
}

TEST(Descriptions, LoadReadsTheEnvironmentAndTheFile) {
  Scratch s;
  const std::string net = s.write("ring4.net", "network ring 4\n");
  setenv(kEnvNetworkFile, net.c_str(), 1);
  setenv(kEnvTopology, "nodes:4x1", 1);
  unsetenv(kEnvCost);
  UserDescriptions d;
  std::string err;
  EXPECT_TRUE(load_user_descriptions(&d, &err)) << err;
  EXPECT_TRUE(d.file_desc.has_value());
  EXPECT_EQ(d.forced_desc->layout_nodes, 4);
  setenv(kEnvNetworkFile, s.dir().c_str(), 1);
  EXPECT_FALSE(load_user_descriptions(&d, &err));
  EXPECT_TRUE(contains(
      err, "MPIR_CVAR_TOPOA2A_NETWORK_FILE=" + s.dir() + ": " + s.dir() + ": is a directory"))
      << err;
  unsetenv(kEnvNetworkFile);
  unsetenv(kEnvTopology);
}

// ---------------------------------------------------------------------------
// Rules files at scale: every check linear (or n log n).

std::string many_siblings(int n, bool duplicate_last) {
  std::string text = "{\"collective=alltoall\": {\"comm_type=intra\": {\n";
  for (int i = 1; i <= n; ++i) {
    const int v = duplicate_last && i == n ? 1 : i;
    const char* alg = i % 2 ? "ring" : "brucks";
    text += "\"comm_size<=" + std::to_string(v) + "\": {\"algorithm=MPIR_Alltoall_intra_" + alg +
            "\": {}},\n";
  }
  return text + "\"comm_size=any\": {\"algorithm=MPIR_Alltoall_intra_pairwise\": {}}}}}\n";
}

TEST(RulesScale, FortyThousandSiblings) {
  // With the old pairwise duplicate check this took seconds (n^2/2 key
  // comparisons); its result is what is checked here.
  constexpr int kN = 40000;
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(many_siblings(kN, false), "big.json", &rules, &err)) << err;
  ASSERT_EQ(rules.top.size(), 1u);
  ASSERT_EQ(rules.top[0].children.size(), 1u);
  EXPECT_EQ(rules.top[0].children[0].children.size(), static_cast<size_t>(kN + 1));
  EXPECT_EQ(apply_rules(rules, 1, 8).value_or(""), "ring");
  EXPECT_EQ(apply_rules(rules, 2, 8).value_or(""), "brucks");
  EXPECT_EQ(apply_rules(rules, kN - 1, 8).value_or(""), "ring");
  EXPECT_EQ(apply_rules(rules, kN, 8).value_or(""), "brucks");
  EXPECT_EQ(apply_rules(rules, kN + 1, 8).value_or(""), "pairwise");
}

TEST(RulesScale, DuplicateAmongManyIsFoundWithItsFirstLine) {
  constexpr int kN = 40000;
  Rules rules;
  std::string err;
  EXPECT_FALSE(parse_rules(many_siblings(kN, true), "big.json", &rules, &err));
  EXPECT_TRUE(contains(err, "big.json:" + std::to_string(kN + 1) +
                                ":1: duplicate key 'comm_size<=1' (first at line 2)"))
      << err;
}

// ---------------------------------------------------------------------------
// The rules query, filled as MPICH 4.0.2 fills it.

TEST(RuleQueryFor, HierarchyNodeCommAndConsecutive) {
  {  // one node of 4: a parent with a node communicator of all 4 ranks
    Topology t = uniform_topology(1, 4);
    t.rank = 2;
    const RuleQuery q = rule_query_for(t);
    EXPECT_EQ(q.comm_size, 4);
    EXPECT_EQ(q.nodes, 1);
    EXPECT_EQ(q.hierarchy, "parent");
    EXPECT_EQ(q.node_comm_size, 4);
    EXPECT_TRUE(q.node_consecutive);
  }
  {  // 2 nodes of 2, round robin: parent, node comm of 2, not consecutive
    Topology t = uniform_topology(2, 2, Placement::kRoundRobin);
    const RuleQuery q = rule_query_for(t);
    EXPECT_EQ(q.hierarchy, "parent");
    EXPECT_EQ(q.nodes, 2);
    EXPECT_EQ(q.node_comm_size, 2);
    EXPECT_FALSE(q.node_consecutive);
  }
  {  // every rank alone on its node: flat, no node communicator
    Topology t = uniform_topology(4, 1);
    const RuleQuery q = rule_query_for(t);
    EXPECT_EQ(q.hierarchy, "flat");
    EXPECT_EQ(q.node_comm_size, 0);
    EXPECT_FALSE(q.node_consecutive);
  }
  {  // one rank: flat
    Topology t = uniform_topology(1, 1);
    const RuleQuery q = rule_query_for(t);
    EXPECT_EQ(q.hierarchy, "flat");
    EXPECT_EQ(q.node_comm_size, 0);
  }
  {  // nodes of 1 and 3 ranks: rank 0 has no node communicator, rank 1 has one of 3
    Topology t = topology_from_layout({0, 1, 1, 1});
    t.rank = 0;
    EXPECT_EQ(rule_query_for(t).node_comm_size, 0);
    t.rank = 1;
    EXPECT_EQ(rule_query_for(t).node_comm_size, 3);
    EXPECT_TRUE(rule_query_for(t).node_consecutive);
  }
}

constexpr const char* kQueryRules = R"({
  "collective=alltoall": {
    "comm_type=intra": {
      "is_multi_threaded=yes": { "algorithm=MPIR_Alltoall_intra_onefactor": {} },
      "comm_hierarchy=flat": { "algorithm=MPIR_Alltoall_intra_hypercube": {} },
      "comm_size=node_comm_size": {
        "count<=4": { "algorithm=MPIR_Alltoall_intra_ring": {} },
        "count=any": { "algorithm=MPIR_Alltoall_intra_mesh": {} }
      },
      "is_node_consecutive=yes": { "algorithm=MPIR_Alltoall_intra_brucks": {} },
      "comm_size=any": { "algorithm=MPIR_Alltoall_intra_pairwise": {} }
    }
  }
})";

TEST(RuleQueryFor, EveryKeyIsFilled) {
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(kQueryRules, "q.json", &rules, &err)) << err;
  auto pick = [&](const Topology& t, long long count, bool threads) {
    RuleQuery q = rule_query_for(t);
    q.avg_msg_size = 64;
    q.count = count;
    q.multi_threaded = threads;
    return apply_rules(rules, q).value_or("<none>");
  };
  const Topology one_node = uniform_topology(1, 4);
  EXPECT_EQ(pick(one_node, 2, true), "onefactor");
  EXPECT_EQ(pick(one_node, 2, false), "ring");
  EXPECT_EQ(pick(one_node, 100, false), "mesh");
  EXPECT_EQ(pick(one_node, -1, false), "mesh");  // unknown count: count<=4 fails
  EXPECT_EQ(pick(uniform_topology(4, 1), 2, false), "hypercube");
  EXPECT_EQ(pick(uniform_topology(2, 2), 2, false), "brucks");
  EXPECT_EQ(pick(uniform_topology(2, 2, Placement::kRoundRobin), 2, false), "pairwise");
}

TEST(RuleQueryFor, CommSizeLessThanAsMpichPrunesAndSearches) {
  // Right below collective=alltoall the condition is decided when MPICH
  // prunes the tree for the communicator (comm_size < 4); past a per-call
  // condition MPICH 4.0.2's search tests comm_size <= 4.
  constexpr const char* kText = R"({"collective=alltoall": {
      "comm_size<4": {"algorithm=MPIR_Alltoall_intra_ring": {}},
      "avg_msg_size<=8": {
        "comm_size<4": {"algorithm=MPIR_Alltoall_intra_mesh": {}},
        "comm_size=any": {"algorithm=MPIR_Alltoall_intra_brucks": {}}},
      "comm_size=any": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}}})";
  Rules rules;
  std::string err;
  ASSERT_TRUE(parse_rules(kText, "lt.json", &rules, &err)) << err;
  EXPECT_EQ(apply_rules(rules, 3, 100).value_or(""), "ring");
  EXPECT_EQ(apply_rules(rules, 4, 100).value_or(""), "pairwise");  // pruned: 4 < 4 fails
  EXPECT_EQ(apply_rules(rules, 4, 8).value_or(""), "mesh");        // searched: 4 <= 4
  EXPECT_EQ(apply_rules(rules, 5, 8).value_or(""), "brucks");
}

// ---------------------------------------------------------------------------
// The tuning file as stock MPICH gets it.

constexpr const char* kMixedTuning = R"({
  /* the user's rules for MPICH's collectives and topoa2a's alltoall */
  "collective=bcast": {
    "comm_size<=8": { "algorithm=MPIR_Bcast_intra_binomial": {} },
    "comm_size=any": { "algorithm=MPIR_Bcast_intra_scatter_recursive_doubling_allgather": {} }
  },
  "collective=alltoall": {
    "comm_type=intra": {
      "avg_msg_size<=16": { "algorithm=MPIR_Alltoall_intra_ring": {} },
      "avg_msg_size<=1024": { "algorithm=MPIR_Alltoall_intra_brucks": {} },
      "comm_size=pow2": { "algorithm=MPIR_Alltoall_intra_onefactor_xor": {} },
      "comm_size=any": { "algorithm=MPIR_Alltoall_intra_topo_auto": {} }
    },
    "comm_type=inter": { "algorithm=MPIR_Alltoall_inter_pairwise_exchange": {} }
  },
  "collective=allreduce": {
    "avg_msg_size<=2048": { "algorithm=MPIR_Allreduce_intra_recursive_doubling": {} },
    "avg_msg_size=any": { "algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather": {} }
  }
})";

TEST(TuningForMpich, OursReplacedOthersKept) {
  TuningForMpich out;
  std::string err;
  ASSERT_TRUE(filter_tuning_for_mpich(kMixedTuning, "t.json", &out, &err)) << err;
  EXPECT_EQ(out.replaced, 3);
  EXPECT_EQ(out.other_collectives, 2);
  EXPECT_FALSE(contains(out.text, "intra_ring"));
  EXPECT_FALSE(contains(out.text, "topo_auto"));
  EXPECT_FALSE(contains(out.text, "onefactor"));

  // What MPICH gets parses, and every rule still answers as the user wrote
  // it, except that MPICH's algorithms stand in for ours.
  Rules mine, theirs;
  ASSERT_TRUE(parse_rules(kMixedTuning, "t.json", &mine, &err)) << err;
  ASSERT_TRUE(parse_rules(out.text, "copy.json", &theirs, &err)) << err << "\n" << out.text;
  for (const char* coll : {"bcast", "allreduce", "alltoall"}) {
    for (int p : {2, 4, 8, 12, 16}) {
      for (size_t m : {8, 512, 4096, 1 << 20}) {
        RuleQuery q;
        q.collective = coll;
        q.comm_size = p;
        q.avg_msg_size = m;
        const std::string a = apply_rules(mine, q).value_or("<none>");
        const std::string b = apply_rules(theirs, q).value_or("<none>");
        if (std::string(coll) != "alltoall") {
          EXPECT_EQ(a, b) << coll << " p=" << p << " m=" << m;
        } else {
          const std::string stand_in = mpich_stand_in(a);
          EXPECT_EQ(b, stand_in.empty() ? a : stand_in) << "p=" << p << " m=" << m;
        }
      }
    }
  }
  RuleQuery q;
  q.collective = "bcast";
  q.comm_size = 16;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""),
            "MPIR_Bcast_intra_scatter_recursive_doubling_allgather");
  q.collective = "alltoall";
  q.avg_msg_size = 8;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""), "brucks");  // ring's stand-in
  q.avg_msg_size = 1 << 20;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""), "pairwise");  // onefactor_xor's
  q.comm_size = 12;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""), "scattered");  // topo_auto's
  q.intercomm = true;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""), "MPIR_Alltoall_inter_pairwise_exchange");
}

TEST(TuningForMpich, NothingOfOursIsLeftAsItIs) {
  const std::string text =
      "{\"collective=alltoall\": {\"algorithm=MPIR_Alltoall_intra_brucks\": {}},\n"
      " \"collective=bcast\": {\"algorithm=MPIR_Bcast_intra_binomial\": {}}}";
  TuningForMpich out;
  std::string err;
  ASSERT_TRUE(filter_tuning_for_mpich(text, "t.json", &out, &err)) << err;
  EXPECT_EQ(out.replaced, 0);
  EXPECT_EQ(out.other_collectives, 1);
  EXPECT_EQ(out.text, text);
  EXPECT_FALSE(filter_tuning_for_mpich("{\"a\": ", "t.json", &out, &err));
  EXPECT_TRUE(contains(err, "t.json:1:")) << err;
}

TEST(TuningForMpich, CopyIsTheFileAsJsonCReadsIt) {
  // Comments, a repeated key, container parameters of every JSON type: the
  // copy holds json-c's values, unchanged but for the renamed leaf.
  const std::string text = R"({
    /* MPICH's json-c reads this file too */
    "collective=bcast": {
      "algorithm=MPIR_Bcast_intra_tree": {"tree_type": "knomial", "k": 4, "w": 2.50,
                                          "x": -3e-7, "l": [1, "a\"b/c", null, true],
                                          "u": "\u00e9\n"}
    },
    "collective=alltoall": {
      "comm_size<=4": {"algorithm=MPIR_Alltoall_intra_ring": {}},
      "comm_size<=4": {"algorithm=MPIR_Alltoall_intra_mesh": {}},  // json-c keeps this one
      "comm_size=any": {"algorithm=MPIR_Alltoall_intra_brucks": {}}
    }
  })";
  TuningForMpich out;
  std::string err;
  ASSERT_TRUE(filter_tuning_for_mpich(text, "t.json", &out, &err)) << err;
  EXPECT_EQ(out.replaced, 1);  // mesh; the first comm_size<=4 (ring) is gone, as in json-c
  EXPECT_EQ(out.other_collectives, 1);
  json::Document in, copy;
  ASSERT_TRUE(json::parse(text, "t.json", &in, &err)) << err;
  ASSERT_TRUE(json::parse(out.text, "copy.json", &copy, &err)) << err << "\n" << out.text;
  json_object* bcast = json_object_object_get(in.root.get(), "collective=bcast");
  EXPECT_TRUE(json_object_equal(bcast, json_object_object_get(copy.root.get(), "collective=bcast")))
      << out.text;
  json_object* a2a = json_object_object_get(copy.root.get(), "collective=alltoall");
  ASSERT_EQ(json_object_object_length(a2a), 2);
  json_object* small = json_object_object_get(a2a, "comm_size<=4");
  EXPECT_NE(json_object_object_get(small, "algorithm=MPIR_Alltoall_intra_brucks"), nullptr)
      << out.text;
  // The keys keep their order.
  ASSERT_EQ(copy.objects[0].members.size(), 2u);
  EXPECT_EQ(copy.objects[0].members[0].key, "collective=bcast");
}

}  // namespace
}  // namespace topoa2a
