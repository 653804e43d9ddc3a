// Registration of the morpheme family's formats (filled in by the family's work).
#include "rigrip/registry.hpp"

std::vector<rigrip::format> rigrip_family_morpheme() { return {}; }
