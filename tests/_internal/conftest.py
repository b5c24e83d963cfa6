"""tests/_internal: the private machinery of ``workloadbuilder/_internal/``, module by module.

Strict decoding, bounded text reading, the template walk, Go's value printing and its Unicode table,
typed field reads, the kinds table, the deferred ``kubernetes`` import and the paused collector; each
file mirrors the module it tests (``test_decode.py`` tests ``workloadbuilder/_internal/decode.py``).
"""
