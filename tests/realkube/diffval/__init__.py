"""Differential validation: a corpus of Kubernetes inputs (examples, conformance cases' objects,
seeded mutations of them) dry-run on the real API server and read by toposched, object by object
(see ``run`` for the whole, ``compare`` for what counts as agreement)."""
