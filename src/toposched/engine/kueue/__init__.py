"""Kueue's topology-aware placement of one request: phase 1 (``phase_one``), phase 2a
(``choose_level``), phase 2b (``descend``), driven by ``phases.solve``."""
