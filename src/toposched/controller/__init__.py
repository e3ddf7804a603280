"""The Kubernetes controller: watches Nodes, Pods and Topology objects through ``KubeApi`` and
ungates pods once their gang is placed (``--mode ungater``) or keeps KAI / Grove objects in sync
with the topology registry (``--mode sync``).

It is one more caller of the service's path: objects from the watch → the front-end registry →
the ``Scheduler`` → placements → pod patches. Nothing here places pods or builds Kubernetes
objects; the patches come from ``emit`` / ``wire``.

State in the cluster: the scheduler runs on a ``MemoryStore`` fed by the informer caches, and
the cluster itself is the durable record: each placed pod carries its assignment as an
annotation (``records``), written before its gate is removed, and on start the admitted gangs
are re-imported from those annotations before anything new is placed. A ``Store`` backed by
cluster objects was not chosen: the store's transactions (booking a gang's capacity across many
nodes at once, refused when any node is over-committed) have no counterpart in the API server,
which offers only per-object optimistic concurrency; a MemoryStore keeps those rules exact, and
only one replica acts at a time (leader election), so no second writer needs them.

Modules: ``kubeapi`` (the calls made), ``informer`` (list + watch caches), ``mirror`` (caches →
the scheduler's nodes and topologies), ``keys`` / ``gangs`` / ``records`` (what
pods say; how they name their gangs is each front end's membership, from the registry), ``expectations``, ``podwrites`` and ``retry`` (safe writes), ``gang_reconciler`` (each
gang of the ungater mode: restore, queue, record and ungate, evict), ``ungater_controller`` (one
step of that mode over the informers), ``sync`` (the sync mode), ``leader`` (the
Lease) and ``fencing`` (what each write of the leader passes), ``metrics``
(``/metrics`` and ``/healthz``) and ``app`` (all of it, as ``toposched controller`` runs it).
"""
