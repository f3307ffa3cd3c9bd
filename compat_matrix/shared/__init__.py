"""Pieces that several specs in ``compat_matrix/specs/`` share (the specs stay data files).

Kept outside ``specs/`` on purpose: every ``.py`` there is loaded as a library row, and the spec
loader may give ``compat_matrix.specs`` an empty package path, so a spec could not import a
sibling helper from it.  A case function that calls Tensor methods must stay in its spec: the
worker puts the spec module in scope, and Tensor methods resolve by the calling module.
"""
