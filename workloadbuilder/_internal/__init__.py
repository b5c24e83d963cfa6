"""The library's machinery, private: Go's value printing, strict decoding, bounded text reading, field reads
and object paths, kinds and API versions, the kubernetes package imported without its ``__init__``, the
template walk and the paused garbage collector.

Nothing here is public API: the faces (``workloadbuilder``, ``workloadbuilder.adapters``,
``workloadbuilder.placement``, ``workloadbuilder.adapters.kit`` and ``workloadbuilder.testing``) re-export
what a user needs, and a name here may change or go in any release.
"""
