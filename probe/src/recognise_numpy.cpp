// Placeholder until the NumPy and Numba recognisers land.
#include "describe_session.h"
namespace refscope::probe {
void recognise_numpy(DescribeSession&) {}
void recognise_numba(DescribeSession&) {}
}  // namespace refscope::probe
