"""Emitters: the Kubernetes objects and encodings toposched writes, and their decoders.

Each subpackage serves one upstream system and imports only ``toposched.model``.
"""
