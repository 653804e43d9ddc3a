// Registration of the telltale family: Telltale Tool MetaStream .anm and .skl.
#include "formats/telltale/convert.hpp"
#include "rigrip/registry.hpp"

std::vector<rigrip::format> rigrip_family_telltale() {
  using namespace rigrip;
  return {
      format{"telltale-anm", "telltale",
             "Telltale Tool Animation (MetaStream MSV5/MSV6; CompressedSkeletonPoseKeys2, KeyframedValue tracks)",
             {".anm"},
             "content: MetaStream magic '6VSM'/'5VSM' (stored byte-reversed) with 'Animation' in the class table; "
             "older MTRE/MBIN/encrypted streams by magic + .anm, refused by version",
             telltale::detect_anm, telltale::read_anm, telltale::dump_anm, telltale::rewrite_anm, telltale::pack_anm},
      format{"telltale-skl", "telltale", "Telltale Tool Skeleton (MetaStream MSV5/MSV6; Skeleton::Entry list)",
             {".skl"},
             "content: MetaStream magic '6VSM'/'5VSM' with 'Skeleton' in the class table; older streams by magic + .skl",
             telltale::detect_skl, telltale::read_skl, telltale::dump_skl, telltale::rewrite_skl, telltale::pack_skl},
  };
}
