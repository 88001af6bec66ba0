// A small JSON Schema (2020-12) checker for the tests of repro's JSON documents against
// docs/report.schema.json (the run report, and its $defs such as the device list): unit
// tests render documents, end-to-end tests read them from the real executable.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace repro::test {

using json = nlohmann::json;

// A small JSON Schema (2020-12) checker for the keywords docs/report.schema.json uses:
// $ref (to #/$defs), type, const, enum, anyOf, required, properties,
// additionalProperties, items, minItems, maxItems, minimum. It is strict: an instance
// property the schema does not declare is an error, so the schema documents every field.
class SchemaChecker {
  public:
    explicit SchemaChecker(const json& root) : root_(root) {}

    std::vector<std::string> check(const json& instance) {
        std::vector<std::string> errors;
        check(root_, instance, "$", errors);
        return errors;
    }

    // The errors of `instance` against the schema's $defs/`name` (a document other than
    // the run report, such as "device_list").
    std::vector<std::string> checkDefinition(const std::string& name, const json& instance) {
        std::vector<std::string> errors;
        check(resolve("#/$defs/" + name), instance, "$", errors);
        return errors;
    }

  private:
    const json& resolve(const std::string& ref) const {
        const std::string prefix = "#/$defs/";
        if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
        return root_.at("$defs").at(ref.substr(prefix.size()));
    }

    static bool hasType(const json& v, const std::string& type) {
        if (type == "object") return v.is_object();
        if (type == "array") return v.is_array();
        if (type == "string") return v.is_string();
        if (type == "integer") return v.is_number_integer();
        if (type == "number") return v.is_number();
        if (type == "boolean") return v.is_boolean();
        if (type == "null") return v.is_null();
        throw std::runtime_error("unknown type " + type);
    }

    void check(const json& schema, const json& v, const std::string& path, std::vector<std::string>& errors) {
        if (schema.contains("$ref")) check(resolve(schema["$ref"]), v, path, errors);
        if (schema.contains("type")) {
            const json& t = schema["type"];
            bool ok = false;
            if (t.is_string()) ok = hasType(v, t);
            for (const auto& one : t.is_array() ? t : json::array()) ok = ok || hasType(v, one);
            if (!ok) {
                errors.push_back(path + ": expected type " + t.dump() + ", got " + v.dump());
                return;
            }
        }
        if (schema.contains("const") && v != schema["const"])
            errors.push_back(path + ": expected " + schema["const"].dump());
        if (schema.contains("enum")) {
            const auto& e = schema["enum"];
            if (std::find(e.begin(), e.end(), v) == e.end())
                errors.push_back(path + ": " + v.dump() + " not in " + e.dump());
        }
        if (schema.contains("anyOf")) {
            bool any = false;
            for (const auto& branch : schema["anyOf"]) {
                std::vector<std::string> branchErrors;
                check(branch, v, path, branchErrors);
                any = any || branchErrors.empty();
            }
            if (!any) errors.push_back(path + ": matches no anyOf branch: " + v.dump());
        }
        if (schema.contains("minimum") && v.is_number() && v.get<double>() < schema["minimum"].get<double>()) {
            errors.push_back(path + ": below minimum");
        }
        if (v.is_object()) {
            for (const auto& key : schema.value("required", json::array())) {
                if (!v.contains(key.get<std::string>())) errors.push_back(path + ": missing required " + key.dump());
            }
            const json properties = schema.value("properties", json::object());
            for (const auto& [key, value] : v.items()) {
                if (properties.contains(key)) {
                    check(properties[key], value, path + "." + key, errors);
                } else if (schema.contains("additionalProperties") && schema["additionalProperties"].is_object()) {
                    check(schema["additionalProperties"], value, path + "." + key, errors);
                } else if (schema.contains("properties") || schema.contains("additionalProperties")) {
                    errors.push_back(path + ": property '" + key + "' is not in the schema");
                }
            }
        }
        if (v.is_array()) {
            if (schema.contains("minItems") && v.size() < schema["minItems"].get<size_t>())
                errors.push_back(path + ": too few items");
            if (schema.contains("maxItems") && v.size() > schema["maxItems"].get<size_t>())
                errors.push_back(path + ": too many items");
            if (schema.contains("items")) {
                for (size_t i = 0; i < v.size(); ++i)
                    check(schema["items"], v[i], path + "[" + std::to_string(i) + "]", errors);
            }
        }
    }

    const json& root_;
};

// docs/report.schema.json under the source tree `sourceDir`; throws when it cannot be read.
inline json loadReportSchema(const std::string& sourceDir) {
    std::ifstream in(sourceDir + "/docs/report.schema.json");
    if (!in) throw std::runtime_error("cannot open docs/report.schema.json under " + sourceDir);
    return json::parse(in);
}

// One error per line, for a test's failure message.
inline std::string joinErrors(const std::vector<std::string>& errors) {
    std::string out;
    for (const auto& e : errors) out += e + "\n";
    return out;
}

}  // namespace repro::test
