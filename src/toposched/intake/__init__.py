"""Intake: text at the edge → plain documents (``parse``: the one bounded YAML/JSON reader) and
cluster dumps → the model (``cluster``: Nodes, running Pods, Topology objects). Below the front
ends, which receive what intake parsed."""
