#include "transitd/providers/tfl_demo_station_data.hpp"

namespace transitd {

namespace {

// Station names and ids as TfL publishes them; every toilet row below is
// invented for the demo.
constexpr const char* stations_csv
  = "UniqueId,Name,FareZones,HubNaptanCode,Wifi,OutsideStationUniqueId\r\n"
    "HUBABW,Abbey Wood,4,HUBABW,FALSE,HUBABW-Outside\r\n"
    "940GZZDLABR,Abbey Road,2|3,,FALSE,940GZZDLABR-Outside\r\n"
    "HUBBAN,Bank,1,HUBBAN,TRUE,HUBBAN-Outside\r\n"
    "HUBKGX,King's Cross St Pancras,1,HUBKGX,TRUE,HUBKGX-Outside\r\n"
    "HUBPAD,Paddington,1,HUBPAD,TRUE,HUBPAD-Outside\r\n"
    "HUBSPB,Shepherd's Bush,2,HUBSPB,TRUE,HUBSPB-Outside\r\n"
    "940GZZLUSBM,Shepherd's Bush Market,2,,TRUE,940GZZLUSBM-Outside\r\n"
    "HUBWAT,Waterloo,1,HUBWAT,TRUE,HUBWAT-Outside\r\n"
    "910GBRTWOOD,Brentwood,9,,FALSE,910GBRTWOOD-Outside\r\n";

constexpr const char* toilets_csv
  = "Station,StationUniqueId,Id,Type,IsAccessible,HasBabyChanging,"
    "IsInsideGateLine,Location,IsFeeCharged,IsManagedByTfL\r\n"
    ",HUBABW,1,Male,FALSE,FALSE,TRUE,Located in ticket hall,FALSE,TRUE\r\n"
    ",HUBABW,2,Female,FALSE,TRUE,TRUE,Located in ticket hall,FALSE,TRUE\r\n"
    ",HUBABW,3,Unisex,  TRUE ,TRUE,TRUE,\"Platforms 3 and 4, by the lift\","
    "FALSE,TRUE\r\n"
    ",HUBKGX,1,Unisex,TRUE,TRUE,FALSE,Located in western ticket hall,TRUE,"
    "False\r\n"
    ",HUBPAD,1,Male,FALSE,FALSE,FALSE,\"Located on platform 1, concourse "
    "end\",FALSE,False\r\n"
    ",HUBPAD,2,Unisex,TRUE,TRUE,FALSE,Located on platform 1,FALSE,False\r\n"
    ",HUBWAT,1,Unisex,TRUE,TRUE,TRUE,\"Located on platforms 1,2\",FALSE,"
    "TRUE\r\n"
    ",910GBRTWOOD,1,Unisex,TRUE,FALSE,TRUE,\"Located on platforms 2,3,4\","
    "FALSE,TRUE\r\n";

} // namespace

dataset_reader demo_station_data_reader() {
  return [](const std::string& file) -> std::optional<std::string> {
    if (file == "Stations.csv")
      return std::string{stations_csv};
    if (file == "Toilets.csv")
      return std::string{toilets_csv};
    return std::nullopt;
  };
}

} // namespace transitd
