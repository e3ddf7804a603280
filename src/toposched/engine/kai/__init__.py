"""KAI's hierarchical placement of a group tree (``hierarchy``), its candidate node sets
(``candidates``) and its binpack fit and node order (``binpack``)."""
