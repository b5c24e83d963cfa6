"""tests/_internal: the private machinery of ``workloadbuilder/_internal/``, module by module.

Strict decoding, bounded text reading, the template walk and Go's value printing; each file mirrors the
module it tests (``test_decode.py`` tests ``workloadbuilder/_internal/decode.py``).
"""
