#pragma once
// Text helpers the tools share.

#include <string>
#include <string_view>

namespace transitd {

/// Lower-cases ASCII and the Finnish/Swedish letters (Ä, Ö, Å) so that
/// "KAMPPI" matches "Kamppi" and "SÖRNÄINEN" matches "Sörnäinen".
std::string fold_case(std::string_view text);

} // namespace transitd
