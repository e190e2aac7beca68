// Runs the nanobind recogniser of every nanobind release the probe was built
// with. probe/CMakeLists.txt writes nanobind_releases.inc with one
// REFSCOPE_NANOBIND_RELEASE(2_12_0) line per release it found and compiles
// recognise_nanobind.cpp once for each, defining the function named below.
// Each copy reads only domains whose key carries its own internals version,
// so no domain is described twice.
#include "describe_session.h"

namespace refscope::probe {

#define REFSCOPE_NANOBIND_RELEASE(release) void recognise_nanobind_##release(DescribeSession& session);
#include "nanobind_releases.inc"
#undef REFSCOPE_NANOBIND_RELEASE

void recognise_nanobind(DescribeSession& session) {
#define REFSCOPE_NANOBIND_RELEASE(release) recognise_nanobind_##release(session);
#include "nanobind_releases.inc"
#undef REFSCOPE_NANOBIND_RELEASE
    (void)session;
}

}  // namespace refscope::probe
