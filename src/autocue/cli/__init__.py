"""The ``autocue`` command line."""
