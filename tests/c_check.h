/* CHECK(cond, printf-style message) for the C test programs: reports a
 * failed condition with its place and counts it in `failures`. */
#ifndef TOPOA2A_TESTS_C_CHECK_H
#define TOPOA2A_TESTS_C_CHECK_H
#include <stdio.h>

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)
#endif
