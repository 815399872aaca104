// The collectives' host forms for the floating types (coll_forms.hpp).
#include "runtime/coll_forms.hpp"

namespace symmetra {

SYMMETRA_COLL_FORMS(half)
SYMMETRA_COLL_FORMS(bfloat16)
SYMMETRA_COLL_FORMS(float)
SYMMETRA_COLL_FORMS(double)

}  // namespace symmetra
