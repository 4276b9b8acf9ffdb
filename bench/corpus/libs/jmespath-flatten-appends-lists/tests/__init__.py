# Not in the jmespath 1.1.0 sdist: the names the test modules import from it.
import json  # noqa: F401
import unittest  # noqa: F401
from collections import OrderedDict  # noqa: F401
