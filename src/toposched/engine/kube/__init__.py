"""kube-scheduler's placement of PodGroups and CompositePodGroups (``podgroups``), simulated pod
by pod (``placer``) or with array work (``each``) on its node rules (``nodes``, ``scores``)."""
