#include "config/engines.h"

#include "routing/registry.h"
#include "test_helpers.h"

#include <algorithm>

using namespace ibsm::config;

TEST_CASE("every engine the routing registry offers is known to config", "[config][engines]")
{
    for (const auto& name : ibsm::routing::default_registry().names()) {
        INFO(name);
        CHECK(is_known_engine(name));
    }
}

TEST_CASE("known engine list", "[config][engines]")
{
    CHECK(known_engines_text() ==
          "ftree, sftree, minhop, updn, sssp, dfsssp, nue, dfsssp-or-nue, pathsel, shortest-widest, updn-paths");
    CHECK(is_known_engine(fallback_engine));
    CHECK_FALSE(is_known_engine("FTREE"));
    CHECK_FALSE(is_known_engine(""));
}

TEST_CASE("split_engine_list", "[config][engines]")
{
    using V = std::vector<std::string>;
    CHECK(split_engine_list("ftree") == V{"ftree"});
    CHECK(split_engine_list(" ftree ,\tminhop ") == V{"ftree", "minhop"});
    CHECK(split_engine_list("a,,b,") == V{"a", "", "b", ""});
    CHECK(split_engine_list("") == V{""});
}

TEST_CASE("check_engine_chain names the offending position", "[config][engines]")
{
    using V = std::vector<std::string>;
    CHECK_FALSE(check_engine_chain(V{"ftree", "minhop"}));
    auto p = check_engine_chain(V{"ftree", "minhop", "ftree"});
    REQUIRE(p);
    CHECK(p->index == 2);
    p = check_engine_chain(V{"sssp", "x"});
    REQUIRE(p);
    CHECK(p->index == 1);
    CHECK(p->message == "unknown engine 'x' (known: ftree, sftree, minhop, updn, sssp, dfsssp, nue, dfsssp-or-nue, pathsel, shortest-widest, updn-paths)");
    p = check_engine_chain(V{});
    REQUIRE(p);
    CHECK(p->index == 0);
}
