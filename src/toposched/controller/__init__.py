"""The Kubernetes controller: watches Nodes, Pods and Topology objects through ``KubeApi`` and
ungates pods once their gang is placed (``--mode ungater``) or keeps KAI / Grove objects in sync
with the topology registry (``--mode sync``)."""
