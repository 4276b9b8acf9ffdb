"""Where autodbg meets crashes beyond an uncaught exception in a script: failing tests (the pytest
plugin) and cells of IPython and Jupyter (the extension). Each only wires in the pipeline."""
