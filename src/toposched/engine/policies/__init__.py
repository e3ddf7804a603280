"""Domain orderings, one module each, independent of each other: BestFit and LeastFreeCapacity
(behind the ``toposched.engine.strategy`` protocol), Mixed (Kueue's default profile), balanced
placement, and ``binpack`` (KAI's ordering, used by the hierarchical solver).
``toposched.engine.profiles`` maps each ``Policy`` to them."""
