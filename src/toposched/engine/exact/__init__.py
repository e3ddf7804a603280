"""The exact bounded search behind ``Search.COMPLETE`` (``backtrack``, with ``domains``,
``pods``, ``bounds`` and ``splits``), what its result says (``complete``) and its share of a
round (``rounds``)."""
