"""Kueue's own manager (built by testenv/build.sh) and toposched side by side on the tests' control
plane: generated TAS cases, each admitted by Kueue and placed by toposched, compared domain by
domain. ``python -m tests.vs_kueue --cases N --seed S`` prints the report; ``test_vs_kueue.py``
runs a few cases of each profile under the ``vs_kueue`` marker."""
