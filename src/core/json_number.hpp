// A float as JSON, the one encoding every report and document of repro uses: JSON has no
// NaN or infinity, so those are the strings "NaN", "inf" and "-inf"; every other value is
// a JSON number. (docs/report-schema.md; report_json.cpp parses them back.)
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace repro {

inline nlohmann::json jsonNumber(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    return x;
}

}  // namespace repro
