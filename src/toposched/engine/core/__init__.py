"""What every solver shares: the capacity ledger and its statement, the node space with its
per-domain sums, Kueue's phase-1 counts, the group tree (members), requests, the greedy fill,
the ordering protocol and policy registry, budgets, options, caches and the output builders.
Nothing here imports a solver, a policy or a caller of the solvers."""
