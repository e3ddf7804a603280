"""kube-scheduler and toposched side by side on one control plane (bench/vs_kube_scheduler.py).

Generated clusters and gangs are created on a real API server where kube-scheduler places them;
toposched places the same gang (``place``, faithful search) on a dump of the same cluster read
back from the server, and the two placements are compared group by group. ``stream`` measures a
scheduler's throughput on one large cluster (bench/vs_kube_scheduler_throughput.py).
"""
