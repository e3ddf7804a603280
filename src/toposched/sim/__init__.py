"""Trace-driven simulation: replay a GPU job trace through the real scheduler on a virtual clock
and compare placement policies (``toposched simulate``).

``trace`` reads job traces, ``clusters`` builds the cluster, ``gangs`` turns jobs into Kueue Job
documents, ``failures`` draws node failures, ``replay`` runs one policy, ``study`` runs several
in parallel, ``metrics``, ``report`` and ``plots`` turn the results into figures and files; all
settings live in one YAML file (``config``).
"""
