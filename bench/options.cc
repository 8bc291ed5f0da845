#include "bench/options.h"

#include <getopt.h>

#include <cstdlib>
#include <sstream>

namespace bench {
namespace {

bool fail(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

bool parse_count(const std::string& s, long long lo, long long* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0' || v < lo) return false;
  *out = v;
  return true;
}

// -m MAX or -m MIN:MAX (either side may be empty, as in OSU).
bool parse_sizes(const std::string& s, Options* o) {
  const auto colon = s.find(':');
  long long lo = static_cast<long long>(o->min_size), hi = static_cast<long long>(o->max_size);
  if (colon == std::string::npos) {
    if (!parse_count(s, 1, &hi)) return false;
  } else {
    const std::string a = s.substr(0, colon), b = s.substr(colon + 1);
    if (!a.empty() && !parse_count(a, 1, &lo)) return false;
    if (!b.empty() && !parse_count(b, 1, &hi)) return false;
  }
  if (lo > hi || hi > (1LL << 30)) return false;
  o->min_size = static_cast<std::size_t>(lo);
  o->max_size = static_cast<std::size_t>(hi);
  return true;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int Options::iterations_for(std::size_t size) const {
  if (iterations > 0) return iterations;
  return size > kLargeMessage ? 20 : 100;
}

int Options::warmup_for(std::size_t size) const {
  if (warmup >= 0) return warmup;
  return size > kLargeMessage ? 2 : 10;
}

const char* usage() {
  return "Usage: topoa2a-bench [options]\n"
         "  -m, --message-size [MIN:]MAX  bytes per peer, doubling from MIN (default 1:1048576)\n"
         "  -i, --iterations ITER         timed calls per repetition (default 100, 20 above 8 "
         "KiB)\n"
         "  -x, --warmup WARMUP           untimed calls per repetition (default 10, 2 above 8 "
         "KiB)\n"
         "  -f, --full                    also min, max latency and iterations (OSU -f)\n"
         "  -a, --alltoallv               measure MPI_Alltoallv (uniform counts)\n"
         "  -c, --candidates LIST         comma separated (default: all); the first one's\n"
         "                                results form the OSU table. Names: ring, ...,\n"
         "                                topo_auto, mpich:auto, mpich:brucks, ...;\n"
         "                                NAME@W: one of ours, W messages in flight\n"
         "  -r, --repetitions R           interleaved repetitions per point (default 5)\n"
         "      --csv PATH                write one row per size and candidate\n"
         "  -l, --list                    print the default candidates and exit\n"
         "      --progress                report each size done on stderr\n"
         "  -h, --help\n";
}

bool parse_options(int argc, char** argv, Options* o, std::string* error) {
  static const option longs[] = {{"message-size", required_argument, nullptr, 'm'},
                                 {"iterations", required_argument, nullptr, 'i'},
                                 {"warmup", required_argument, nullptr, 'x'},
                                 {"full", no_argument, nullptr, 'f'},
                                 {"alltoallv", no_argument, nullptr, 'a'},
                                 {"candidates", required_argument, nullptr, 'c'},
                                 {"repetitions", required_argument, nullptr, 'r'},
                                 {"csv", required_argument, nullptr, 'C'},
                                 {"list", no_argument, nullptr, 'l'},
                                 {"progress", no_argument, nullptr, 'P'},
                                 {"help", no_argument, nullptr, 'h'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;
  optind = 1;
  long long v = 0;
  for (int c; (c = getopt_long(argc, argv, "m:i:x:fac:r:lh", longs, nullptr)) != -1;) {
    const std::string arg = optarg ? optarg : "";
    switch (c) {
      case 'm':
        if (!parse_sizes(arg, o)) return fail(error, "bad -m " + arg + " (expected [MIN:]MAX)");
        break;
      case 'i':
        if (!parse_count(arg, 1, &v)) return fail(error, "bad -i " + arg);
        o->iterations = static_cast<int>(v);
        break;
      case 'x':
        if (!parse_count(arg, 0, &v)) return fail(error, "bad -x " + arg);
        o->warmup = static_cast<int>(v);
        break;
      case 'r':
        if (!parse_count(arg, 1, &v)) return fail(error, "bad -r " + arg);
        o->repetitions = static_cast<int>(v);
        break;
      case 'f':
        o->full = true;
        break;
      case 'a':
        o->alltoallv = true;
        break;
      case 'c':
        o->candidates = split(arg);
        break;
      case 'C':
        o->csv = arg;
        break;
      case 'l':
        o->list = true;
        break;
      case 'P':
        o->progress = true;
        break;
      case 'h':
        o->help = true;
        break;
      default:
        *error = std::string("unknown option ") + (optind > 0 ? argv[optind - 1] : "");
        return false;
    }
  }
  if (optind < argc) return fail(error, std::string("unexpected argument ") + argv[optind]);
  return true;
}

}  // namespace bench
