"""Trace-driven simulation: replay a GPU job trace through the real scheduler on a virtual clock
and compare placement policies (``toposched simulate``).

``trace`` reads job traces and ``generate`` draws a gang-heavy one, ``arrivals`` cuts a window and
scales the arrival rate, ``queues`` sizes team quotas, ``clusters`` builds the cluster, ``gangs``
turns jobs into Kueue Job documents, ``failures`` draws node failures, ``replay`` runs one policy,
``study`` runs several policies and replications in parallel; ``metrics``, ``stats`` and
``summary`` turn the results into figures with confidence intervals, ``report``, ``job_table``
and ``plots`` into files; all settings live in one YAML file (``config``).
"""
