// The collectives' host forms for the integer types (coll_forms.hpp).
#include <cstdint>

#include "runtime/coll_forms.hpp"

namespace symmetra {

SYMMETRA_COLL_FORMS(char)
SYMMETRA_COLL_FORMS(std::int8_t)
SYMMETRA_COLL_FORMS(std::uint8_t)
SYMMETRA_COLL_FORMS(std::int16_t)
SYMMETRA_COLL_FORMS(std::uint16_t)
SYMMETRA_COLL_FORMS(std::int32_t)
SYMMETRA_COLL_FORMS(std::uint32_t)
SYMMETRA_COLL_FORMS(std::int64_t)
SYMMETRA_COLL_FORMS(std::uint64_t)
SYMMETRA_COLL_FORMS(long long)
SYMMETRA_COLL_FORMS(unsigned long long)

}  // namespace symmetra
