"""Domain orderings, one module each, independent of each other: BestFit and LeastFreeCapacity
(behind the ``toposched.engine.core.strategy`` protocol), Mixed (Kueue's default profile) and
balanced placement. KAI's binpack ordering is the hierarchical solver's own
(``toposched.engine.kai.binpack``). ``toposched.engine.profiles`` maps each ``Policy`` to them."""
