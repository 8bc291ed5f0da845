// Unit tests of plugin/config*.cc (no MPI): every variable checked at load,
// the tuning file's copy for MPICH, and clearing MPICH's variables after an
// error.
#include "plugin/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "topology/rules.h"

namespace topoa2a {
namespace {

const char* const kVars[] = {"MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM",
                             "MPIR_CVAR_ALLTOALLV_INTRA_ALGORITHM",
                             "MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM",
                             "MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM",
                             "MPICH_IALLTOALL_INTRA_ALGORITHM",
                             "MPIR_CVAR_COLLECTIVE_FALLBACK",
                             "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
                             "MPICH_COLL_SELECTION_TUNING_JSON_FILE",
                             "MPIR_CVAR_TOPOA2A_AUTO",
                             "MPIR_CVAR_TOPOA2A_VERBOSE",
                             "MPIR_CVAR_TOPOA2A_STATS",
                             "MPIR_CVAR_TOPOA2A_MESH_GRID",
                             "MPIR_CVAR_TOPOA2A_LEADERS",
                             "MPIR_CVAR_TOPOA2A_WINDOW",
                             "MPIR_CVAR_TOPOA2A_TORUS_DIMS",
                             "MPIR_CVAR_TOPOA2A_TOPOLOGY",
                             "MPIR_CVAR_TOPOA2A_NETWORK_FILE",
                             "MPIR_CVAR_TOPOA2A_COST"};

class ConfigLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) unsetenv(v);
    char t[] = "/tmp/topoa2a-config-test-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    setenv("TMPDIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    for (const char* v : kVars) unsetenv(v);
    unsetenv("TMPDIR");
    std::system(("rm -rf '" + dir_ + "'").c_str());
  }
  std::string write(const std::string& name, const std::string& text) {
    const std::string p = dir_ + "/" + name;
    FILE* f = std::fopen(p.c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
    return p;
  }
  static std::string env(const char* v) {
    const char* s = std::getenv(v);
    return s ? s : "<unset>";
  }
  // load_config's error, or "" when it succeeds.
  std::string load(Config* c) {
    std::string error;
    return load_config(c, &error) ? "" : error;
  }
  std::string dir_;
};

TEST_F(ConfigLoad, MeshGridOutOfRangeNamesVariableValueAndRange) {
  Config c;
  setenv("MPIR_CVAR_TOPOA2A_MESH_GRID", "3x1431655766", 1);
  EXPECT_EQ(load(&c),
            "MPIR_CVAR_TOPOA2A_MESH_GRID=3x1431655766 is not a valid value: out of range: ROWS "
            "and COLS must be positive and ROWS*COLS at most 2147483647 (a communicator size)");
  setenv("MPIR_CVAR_TOPOA2A_MESH_GRID", "4294967298x1", 1);
  EXPECT_NE(load(&c).find("4294967298x1 is not a valid value: out of range"), std::string::npos);
  setenv("MPIR_CVAR_TOPOA2A_MESH_GRID", "4x2", 1);
  Config ok;
  EXPECT_EQ(load(&ok), "");
  EXPECT_EQ(ok.mesh_grid.rows, 4);
}

TEST_F(ConfigLoad, LeadersAreACountNamingTheValidValues) {
  for (const char* bad : {"-1", "two", "1.5", "65537", "99999999999999999999", " 4"}) {
    Config c;
    setenv("MPIR_CVAR_TOPOA2A_LEADERS", bad, 1);
    EXPECT_EQ(load(&c), std::string("MPIR_CVAR_TOPOA2A_LEADERS=") + bad +
                            " is not a valid value; valid values: 0 (every rank of a node "
                            "leads) or 1..65536 leaders per node");
  }
  for (auto [text, want] :
       std::vector<std::pair<const char*, int>>{{"0", 0}, {"4", 4}, {"65536", 65536}}) {
    Config c;
    setenv("MPIR_CVAR_TOPOA2A_LEADERS", text, 1);
    EXPECT_EQ(load(&c), "");
    EXPECT_EQ(c.leaders, want);
  }
  Config unset;
  unsetenv("MPIR_CVAR_TOPOA2A_LEADERS");
  EXPECT_EQ(load(&unset), "");
  EXPECT_EQ(unset.leaders, 0);
}

TEST_F(ConfigLoad, WindowIsACountOfMessagesOrTheDefault) {
  Config unset;
  EXPECT_EQ(load(&unset), "");
  EXPECT_EQ(unset.window, 0);
  for (const char* bad : {"-1", "x", "4k", "1048577", "99999999999"}) {
    setenv("MPIR_CVAR_TOPOA2A_WINDOW", bad, 1);
    Config c;
    EXPECT_EQ(load(&c), std::string("MPIR_CVAR_TOPOA2A_WINDOW=") + bad +
                            " is not a valid value: valid values are 0 (the default for the "
                            "algorithm) and 1 to 1048576 (messages in flight per rank; 1: round "
                            "by round)");
  }
  for (int ok : {0, 1, 32, 1048576}) {
    setenv("MPIR_CVAR_TOPOA2A_WINDOW", std::to_string(ok).c_str(), 1);
    Config c;
    EXPECT_EQ(load(&c), "");
    EXPECT_EQ(c.window, ok);
  }
}

// No algorithm of ours is selected: each malformed variable of ours is still
// an error.
TEST_F(ConfigLoad, UnusedVariablesAreCheckedToo) {
  const struct {
    const char* var;
    const char* value;
    const char* words;
  } cases[] = {
      {"MPIR_CVAR_TOPOA2A_TOPOLOGY", "torus:4xq", "MPIR_CVAR_TOPOA2A_TOPOLOGY='torus:4xq'"},
      {"MPIR_CVAR_TOPOA2A_COST", "ts_inter=2", ""},  // valid: seconds
      {"MPIR_CVAR_TOPOA2A_COST", "ts_inter=quick", "MPIR_CVAR_TOPOA2A_COST='ts_inter=quick'"},
      {"MPIR_CVAR_TOPOA2A_NETWORK_FILE", "/dev/zero",
       "MPIR_CVAR_TOPOA2A_NETWORK_FILE=/dev/zero: /dev/zero: is a device, expected a regular "
       "file"},
      {"MPIR_CVAR_TOPOA2A_NETWORK_FILE", "/",
       "MPIR_CVAR_TOPOA2A_NETWORK_FILE=/: /: is a directory"},
      {"MPIR_CVAR_TOPOA2A_NETWORK_FILE", "/nonexistent/x.net", "cannot open"},
      {"MPIR_CVAR_TOPOA2A_VERBOSE", "maybe", "MPIR_CVAR_TOPOA2A_VERBOSE=maybe is not a valid"},
  };
  for (const auto& k : cases) {
    Config c;
    setenv(k.var, k.value, 1);
    const std::string err = load(&c);
    if (*k.words)
      EXPECT_NE(err.find(k.words), std::string::npos) << k.var << "=" << k.value << ": " << err;
    else
      EXPECT_EQ(err, "") << k.var << "=" << k.value;
    unsetenv(k.var);
  }
  const std::string bad = write("bad.net", "network torus 4x\n");
  setenv("MPIR_CVAR_TOPOA2A_NETWORK_FILE", bad.c_str(), 1);
  Config c;
  EXPECT_NE(load(&c).find("MPIR_CVAR_TOPOA2A_NETWORK_FILE: " + bad + ":1:17: expected dimensions"),
            std::string::npos);
}

TEST_F(ConfigLoad, DescriptionsAreKeptParsed) {
  const std::string net = write("ring4.net", "network ring 4\n");
  setenv("MPIR_CVAR_TOPOA2A_NETWORK_FILE", net.c_str(), 1);
  setenv("MPIR_CVAR_TOPOA2A_TOPOLOGY", "torus:2x2", 1);
  setenv("MPIR_CVAR_TOPOA2A_COST", "ts_inter=3us", 1);
  Config c;
  ASSERT_EQ(load(&c), "");
  EXPECT_TRUE(c.descriptions.parsed);
  ASSERT_TRUE(c.descriptions.file_desc.has_value());
  EXPECT_EQ(c.descriptions.file_desc->kind, NetKind::kRing);
  ASSERT_TRUE(c.descriptions.forced_desc.has_value());
  EXPECT_EQ(c.descriptions.forced_desc->dims, (std::vector<int>{2, 2}));
  EXPECT_DOUBLE_EQ(c.descriptions.cost_params.ts_inter, 3e-6);
  // The native front door's subset reads them as well.
  Config n;
  std::string error;
  EXPECT_TRUE(load_options(&n, &error)) << error;
  EXPECT_TRUE(n.descriptions.parsed);
}

constexpr const char* kMixed = R"({
  "collective=bcast": { "comm_size=any": { "algorithm=MPIR_Bcast_intra_binomial": {} } },
  "collective=alltoall": { "comm_type=intra": {
      "avg_msg_size<=16": { "algorithm=MPIR_Alltoall_intra_ring": {} },
      "avg_msg_size=any": { "algorithm=MPIR_Alltoall_intra_pairwise": {} } } }
})";

TEST_F(ConfigLoad, TuningFileNamingOursGoesToMpichAsAPrivateCopy) {
  const std::string user = write("tuning.json", kMixed);
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "topo_auto", 1);
  setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", user.c_str(), 1);
  setenv("MPICH_COLL_SELECTION_TUNING_JSON_FILE", user.c_str(), 1);  // an alias
  Config c;
  ASSERT_EQ(load(&c), "");
  ASSERT_TRUE(c.rules);  // topoa2a applies the user's alltoall rules
  EXPECT_EQ(apply_rules(*c.rules, 4, 8).value_or(""), "ring");
  ASSERT_FALSE(c.tuning_copy.empty());
  EXPECT_EQ(c.tuning_copy.rfind(dir_ + "/topoa2a-tuning-", 0), 0u) << c.tuning_copy;
  EXPECT_EQ(env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"), c.tuning_copy);
  EXPECT_EQ(env("MPICH_COLL_SELECTION_TUNING_JSON_FILE"), c.tuning_copy);
  EXPECT_EQ(env("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"), "auto");
  struct stat st {};
  ASSERT_EQ(stat(c.tuning_copy.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // MPICH's copy keeps the bcast rule; MPICH's pairwise is kept, ring stands in.
  Rules theirs;
  std::string error;
  ASSERT_TRUE(load_rules_file(c.tuning_copy, &theirs, &error)) << error;
  RuleQuery q;
  q.collective = "bcast";
  q.comm_size = 4;
  EXPECT_EQ(apply_rules(theirs, q).value_or(""), "MPIR_Bcast_intra_binomial");
  EXPECT_EQ(apply_rules(theirs, 4, 8).value_or(""), "brucks");
  EXPECT_EQ(apply_rules(theirs, 4, 1024).value_or(""), "pairwise");
  // Removed once MPICH has read it.
  const std::string copy = c.tuning_copy;
  remove_private_files(&c);
  EXPECT_TRUE(c.tuning_copy.empty());
  EXPECT_NE(access(copy.c_str(), F_OK), 0);
}

TEST_F(ConfigLoad, TuningFileWithoutOursIsLeftToMpich) {
  const std::string user =
      write("tuning.json",
            R"({"collective=bcast": {"comm_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}},
          "collective=alltoall": {"comm_size=any": {"algorithm=MPIR_Alltoall_intra_brucks": {}}}})");
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "topo_auto", 1);
  setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", user.c_str(), 1);
  Config c;
  ASSERT_EQ(load(&c), "");
  EXPECT_TRUE(c.rules);
  EXPECT_TRUE(c.tuning_copy.empty());
  EXPECT_EQ(env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"), user);
}

TEST_F(ConfigLoad, AlltoallOnlyTuningFileIsHiddenFromMpich) {
  // MPICH aborts on a collective its file has no rule for: an alltoall-only
  // file is for topoa2a alone.
  const std::string user = write(
      "tuning.json",
      R"({"collective=alltoall": {"comm_size=any": {"algorithm=MPIR_Alltoall_intra_ring": {}}}})");
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "topo_auto", 1);
  setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", user.c_str(), 1);
  Config c;
  ASSERT_EQ(load(&c), "");
  EXPECT_TRUE(c.rules);
  EXPECT_TRUE(c.tuning_copy.empty());
  EXPECT_EQ(env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"), "");
}

TEST_F(ConfigLoad, TuningFileNamingOursWithoutTopoAutoStillHidesOurNames) {
  const std::string user = write("tuning.json", kMixed);
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "ring", 1);
  setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", user.c_str(), 1);
  Config c;
  ASSERT_EQ(load(&c), "");
  EXPECT_FALSE(c.rules);  // not topoa2a's to apply
  ASSERT_FALSE(c.tuning_copy.empty());
  EXPECT_EQ(env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"), c.tuning_copy);
  remove_private_files(&c);
}

TEST_F(ConfigLoad, TuningFileErrorsOnlyWhenTopoaTwoAUsesIt) {
  setenv("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", "/dev/zero", 1);
  Config c;
  EXPECT_EQ(load(&c), "");  // MPICH's to read: left as it is
  EXPECT_EQ(env("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"), "/dev/zero");
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "topo_auto", 1);
  Config t;
  EXPECT_EQ(load(&t),
            "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE: /dev/zero: is a device, expected a "
            "regular file");
}

TEST_F(ConfigLoad, ClearMpichVariablesAfterAnError) {
  setenv("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM", "bogus", 1);
  setenv("MPIR_CVAR_COLLECTIVE_FALLBACK", "maybe", 1);
  setenv("MPICH_COLL_SELECTION_TUNING_JSON_FILE", "/dev/zero", 1);
  Config c;
  EXPECT_NE(load(&c), "");
  clear_mpich_variables();
  EXPECT_EQ(env("MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"), "<unset>");
  EXPECT_EQ(env("MPIR_CVAR_COLLECTIVE_FALLBACK"), "<unset>");
  EXPECT_EQ(env("MPICH_COLL_SELECTION_TUNING_JSON_FILE"), "<unset>");
}

// MPI_Ialltoall[v]'s variables: every value of ours (topo_auto too) is
// taken and handed to MPICH as "auto"; MPICH's own (sched_*, tsp_*) pass
// through untouched; anything else is the one-line error naming the valid
// values, MPICH's nonblocking ones first.
TEST_F(ConfigLoad, NonblockingVariablesTakeOursAndPassMpichsThrough) {
  for (const Algorithm& a : algorithms()) {
    setenv("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM", a.name, 1);
    Config c;
    ASSERT_EQ(load(&c), "") << a.name;
    EXPECT_EQ(c.ialltoall.ours, &a);
    EXPECT_FALSE(c.alltoall.active());
    EXPECT_EQ(env("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM"), "auto");
  }
  for (const char* mpich : {"sched_brucks", "tsp_scattered", "sched_auto", "auto"}) {
    setenv("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM", mpich, 1);
    Config c;
    ASSERT_EQ(load(&c), "") << mpich;
    EXPECT_FALSE(c.ialltoall.active()) << mpich;
    EXPECT_EQ(env("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM"), mpich);
  }
  unsetenv("MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM");
  setenv("MPICH_IALLTOALL_INTRA_ALGORITHM", "topo_auto", 1);  // MPICH's alias
  Config t;
  ASSERT_EQ(load(&t), "");
  EXPECT_TRUE(t.ialltoall.topo_auto);
  unsetenv("MPICH_IALLTOALL_INTRA_ALGORITHM");
  setenv("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM", "mesh", 1);  // not offered for alltoallv
  Config v;
  const std::string err = load(&v);
  EXPECT_EQ(err.rfind("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM=mesh is not a valid value; valid "
                      "values: auto, sched_auto, sched_blocked, sched_inplace, tsp_scattered, "
                      "tsp_blocked, tsp_inplace, ring, ",
                      0),
            0u)
      << err;
  EXPECT_NE(err.find("topo_auto"), std::string::npos);
  setenv("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM", "brucks", 1);  // a blocking value of MPICH's
  Config b;
  EXPECT_NE(load(&b), "");
  setenv("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM", "onefactor", 1);
  Config ok;
  ASSERT_EQ(load(&ok), "");
  EXPECT_EQ(ok.ialltoallv.ours, &algorithm(AlgorithmId::kOneFactor));
  clear_mpich_variables();
  EXPECT_EQ(env("MPIR_CVAR_IALLTOALLV_INTRA_ALGORITHM"), "<unset>");
}

}  // namespace
}  // namespace topoa2a
