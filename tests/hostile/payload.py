"""A module in the program's folder that does harm when imported."""
import os
import sys

with open(os.path.join(sys.argv[1], "imported"), "w") as f:
    f.write("payload imported\n")
