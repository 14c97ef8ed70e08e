#include <gtest/gtest.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench {

TEST(YamlJson, ScalarsBecomeTypedJson) {
  auto j = parse_yaml("a: 1\nb: 2.5\nc: true\nd: text\ne: '42'\nf: [1, x]\ng: ~\n", "t.yaml");
  EXPECT_EQ(j["a"], 1);
  EXPECT_DOUBLE_EQ(j["b"].get<double>(), 2.5);
  EXPECT_EQ(j["c"], true);
  EXPECT_EQ(j["d"], "text");
  EXPECT_EQ(j["e"], "42");  // quoted stays a string
  EXPECT_EQ(j["f"][1], "x");
  EXPECT_TRUE(j["g"].is_null());
}

TEST(YamlJson, InvalidYamlNamesFileAndLine) {
  try {
    parse_yaml("a: 1\nb: [1, 2\nc: 3\n", "cfg.yaml");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cfg.yaml:", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid YAML"), std::string::npos);
  }
  EXPECT_THROW(load_yaml_file("/nonexistent/x.yaml"), UsageError);
}

}  // namespace mlbench
