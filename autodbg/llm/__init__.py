"""The model side of autodbg: which models exist, getting their files, and running them."""
