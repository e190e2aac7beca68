"""Scenario (a): an object kept in a module-level cache dict. The path must
name the module, the dict key and the object."""
import sys

import cache_module
from scenario_common import finish

cache_module.cache["k1"] = cache_module.Leaky(1)
finish(sys.argv[1], cache_module.cache["k1"])
