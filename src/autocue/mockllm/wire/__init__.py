"""The wire APIs: one module per API (``chat``, ``responses``, ``anthropic``, ``gemini``), each
a ``WireApi`` (``wire/api.py``) named ``API`` that holds everything the server knows of it: its
routes, how it reads a request into a ``RequestView``, its checks, its error body, its tool-id
prefix, its renderers (``json_body``, ``stream``) and how a recording reads its replies back.
``autocue.catalog.apis`` names them; ``wire/registry.py`` loads a module when its API is first
needed, and ``registry.register`` adds one at run time.

A rendered stream is a list of segments ``(delay_seconds, bytes)``: the server waits ``delay``
then sends ``bytes``. With no delays the segments are joined and sent as one body.
"""
