"""``MockLLM``: the mock LLM server's application bound to scenarios, answering in process.

``MockLLM(source, **options)`` takes what ``autocue.mockllm.serve`` takes (a ``Script``, a
scenario, a path, a list; its options but ``host``/``port``) and gives transports for the HTTP
libraries the official clients use, and the clients themselves, built through their public
constructor arguments only (``http_client=``, ``http_options=``, ``transport=``). Every request
goes through the same ASGI app as ``autocue serve`` (same routes, dialects, validation, error
bodies, chaos, journal), with no socket and no thread. See docs/testing.md, "LLM clients in process".
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from autocue.errors import require_extra
from autocue.mockllm.app import create_app
from autocue.mockllm.options import server_options
from autocue.mockllm.sources import Source
from autocue.mockllm.state import MockState
from autocue.mockllm.views import StateViews
from autocue.testing.mock_llm.driver import Exchanged
from autocue.testing.mock_llm.transports import AsyncTransport, Transport

if TYPE_CHECKING:  # aliased: the methods are named after the clients
    import anthropic as anthropic_sdk
    import ollama as ollama_sdk
    import openai as openai_sdk
    from google import genai as genai_sdk

    from autocue.testing.mock_llm import boto, httpx_transports

BASE_URL = "http://autocue.mock"
"""The base URL every in-process client gets: it names no host that resolves, so a client that
bypasses the transport fails at once instead of reaching a real server."""
API_KEY = "autocue-test"
"""The default session key (the mock server keys sessions by the client's API key)."""


class MockLLM(StateViews):
    """A mock LLM bound to scenarios, answering in process (see the module's doc).

    ``base_url`` / ``openai_base_url`` and ``api_key`` are what a client is pointed at;
    ``transport()`` / ``async_transport()`` (httpx2) and ``httpx_transport()`` /
    ``async_httpx_transport()`` (httpx 0.28) carry its requests; ``openai()``, ``anthropic()``,
    ``genai()``, ``ollama()`` and their async twins build the official clients on them. The
    journal and the checks are the server's (``sessions()``, ``session(sid)``, ``requests(sid)``,
    ``assert_all_consumed()``); ``exchanges`` lists every request the transports carried, and
    ``assert_ok()`` fails with the first request the scenario could not answer and the journal.
    """

    def __init__(self, source: Source = (), *, api_key: str = API_KEY, **options: Any) -> None:
        self.state = MockState(source, server_options(**options))
        self.app = create_app(self.state)
        self.api_key = api_key
        self.exchanges: list[Exchanged] = []
        """Every request the transports carried, oldest first, with its status and error message."""
        self._lock = threading.Lock()
        """Held while a sync transport runs the app: clients in several threads take turns."""
        self._transports: list[Transport | httpx_transports.Transport | boto.BotocoreHook] = []

    @property
    def base_url(self) -> str:
        """``http://autocue.mock`` (what Anthropic, Gemini and Ollama clients take)."""
        return BASE_URL

    @property
    def openai_base_url(self) -> str:
        """``http://autocue.mock/v1`` (what OpenAI clients take)."""
        return BASE_URL + "/v1"

    @property
    def scenario(self) -> str:
        """The names of the loaded scenarios, for messages."""
        return ", ".join(repr(n) for n in self.state.playables) or "none"

    # ------------------------------------------------------------------ transports
    def transport(self) -> Transport:
        """A sync ``httpx2`` transport (``httpx2.Client(transport=llm.transport())``); it runs the
        app on a private event loop, so it refuses to run inside a running one (use the async one)."""
        t = Transport(self.app, self.exchanges.append, self._lock)
        self._transports.append(t)
        return t

    def async_transport(self) -> AsyncTransport:
        """An async ``httpx2`` transport (``httpx2.AsyncClient(transport=...)``), in the caller's loop."""
        return AsyncTransport(self.app, self.exchanges.append)

    def httpx_transport(self) -> httpx_transports.Transport:
        """A sync ``httpx`` 0.28 transport (``httpx.Client(transport=...)``)."""
        _need_httpx("MockLLM.httpx_transport()")
        from autocue.testing.mock_llm.httpx_transports import Transport as HttpxTransport

        t = HttpxTransport(self.app, self.exchanges.append, self._lock)
        self._transports.append(t)
        return t

    def async_httpx_transport(self) -> httpx_transports.AsyncTransport:
        """An async ``httpx`` 0.28 transport (``httpx.AsyncClient(transport=...)``)."""
        _need_httpx("MockLLM.async_httpx_transport()")
        from autocue.testing.mock_llm.httpx_transports import AsyncTransport as AsyncHttpxTransport

        return AsyncHttpxTransport(self.app, self.exchanges.append)

    # ------------------------------------------------------------------ official clients
    def openai(self, **kwargs: Any) -> openai_sdk.OpenAI:
        """``openai.OpenAI`` on the transport. ``kwargs`` go to the client (``max_retries``, ...);
        ``api_key`` names another session than ``self.api_key`` (so in every factory)."""
        import httpx2
        try:
            import openai
        except ModuleNotFoundError as e:
            raise require_extra(e, "openai", "clients", "MockLLM's openai client") from None

        return openai.OpenAI(base_url=self.openai_base_url, api_key=kwargs.pop("api_key", self.api_key),
                             http_client=httpx2.Client(transport=self.transport()), **kwargs)

    def async_openai(self, **kwargs: Any) -> openai_sdk.AsyncOpenAI:
        import httpx2
        try:
            import openai
        except ModuleNotFoundError as e:
            raise require_extra(e, "openai", "clients", "MockLLM's openai client") from None

        return openai.AsyncOpenAI(base_url=self.openai_base_url, api_key=kwargs.pop("api_key", self.api_key),
                                  http_client=httpx2.AsyncClient(transport=self.async_transport()), **kwargs)

    def anthropic(self, **kwargs: Any) -> anthropic_sdk.Anthropic:
        try:
            import anthropic
        except ModuleNotFoundError as e:
            raise require_extra(e, "anthropic", "clients", "MockLLM's anthropic client") from None
        import httpx2

        return anthropic.Anthropic(base_url=self.base_url, api_key=kwargs.pop("api_key", self.api_key),
                                   http_client=httpx2.Client(transport=self.transport()), **kwargs)

    def async_anthropic(self, **kwargs: Any) -> anthropic_sdk.AsyncAnthropic:
        try:
            import anthropic
        except ModuleNotFoundError as e:
            raise require_extra(e, "anthropic", "clients", "MockLLM's anthropic client") from None
        import httpx2

        return anthropic.AsyncAnthropic(base_url=self.base_url, api_key=kwargs.pop("api_key", self.api_key),
                                        http_client=httpx2.AsyncClient(transport=self.async_transport()), **kwargs)

    def genai(self, **kwargs: Any) -> genai_sdk.Client:
        """``google.genai.Client`` (sync and ``.aio``) on the transports, through ``HttpOptions``."""
        import httpx2
        try:
            from google import genai
        except ModuleNotFoundError as e:
            raise require_extra(e, "google", "clients", "MockLLM's google-genai client") from None
        from google.genai import types

        options = types.HttpOptions(base_url=self.base_url, httpx_client=httpx2.Client(transport=self.transport()),
                                    httpx_async_client=httpx2.AsyncClient(transport=self.async_transport()))
        return genai.Client(api_key=kwargs.pop("api_key", self.api_key), http_options=options, **kwargs)

    def ollama(self, **kwargs: Any) -> ollama_sdk.Client:
        """``ollama.Client`` on the httpx 0.28 transport (its keyword arguments go to ``httpx.Client``)."""
        try:
            import ollama
        except ModuleNotFoundError as e:
            raise require_extra(e, "ollama", "clients", "MockLLM's ollama client") from None

        return ollama.Client(host=self.base_url, transport=self.httpx_transport(),
                             headers=self._ollama_headers(kwargs), **kwargs)

    def async_ollama(self, **kwargs: Any) -> ollama_sdk.AsyncClient:
        try:
            import ollama
        except ModuleNotFoundError as e:
            raise require_extra(e, "ollama", "clients", "MockLLM's ollama client") from None

        return ollama.AsyncClient(host=self.base_url, transport=self.async_httpx_transport(),
                                  headers=self._ollama_headers(kwargs), **kwargs)

    def _ollama_headers(self, kwargs: dict[str, Any]) -> dict[str, str]:
        """The session key as a bearer token (the Ollama client sends none of its own), and the caller's headers."""
        key = kwargs.pop("api_key", self.api_key)
        return {"authorization": f"Bearer {key}", **(kwargs.pop("headers", None) or {})}

    def botocore_hook(self) -> boto.BotocoreHook:
        """A botocore ``before-send`` handler answering through the app (botocore sends with urllib3,
        not httpx): ``client.meta.events.register("before-send", llm.botocore_hook())``."""
        try:
            import botocore  # noqa: F401  (the hook module imports it)
        except ModuleNotFoundError as e:
            raise require_extra(e, "botocore", "clients", "MockLLM.botocore_hook()") from None
        from autocue.testing.mock_llm.boto import BotocoreHook

        hook = BotocoreHook(self.app, self.exchanges.append, self._lock)
        self._transports.append(hook)
        return hook

    def boto3(self, service: str = "bedrock-runtime", **kwargs: Any) -> Any:
        """``boto3.client(service)`` pointed at ``base_url`` with ``botocore_hook()`` registered; the
        access key id is ``api_key`` (``kwargs`` go to ``boto3.client``)."""
        try:
            import boto3
        except ModuleNotFoundError as e:
            raise require_extra(e, "boto3", "clients", "MockLLM.boto3()") from None
        options: dict[str, Any] = {"endpoint_url": self.base_url, "region_name": "us-east-1",
                                   "aws_access_key_id": self.api_key, "aws_secret_access_key": "autocue", **kwargs}
        client = boto3.client(service, **options)
        client.meta.events.register("before-send", self.botocore_hook())
        return client

    # ------------------------------------------------------------------ checks
    def failure(self) -> str | None:
        """What went wrong, for a test's failure: the first request the scenario could not answer
        (one line naming the scenario, the step and what was expected), then the journal with
        that request marked; None when every request was answered."""
        from autocue.testing.mock_llm.report import failure_report

        return failure_report(self)

    def assert_ok(self) -> None:
        """Raise ``AssertionError`` with ``failure()`` when a request was not answered."""
        __tracebackhide__ = True
        text = self.failure()
        if text is not None:
            raise AssertionError(text)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Close the sync transports' (and botocore hooks') event loops, the clients' built here included."""
        transports, self._transports = self._transports, []
        for t in transports:
            t.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"MockLLM({self.scenario}, api_key={self.api_key!r})"


def _need_httpx(what: str) -> None:
    try:
        import httpx  # noqa: F401  (the transport module imports it)
    except ModuleNotFoundError as e:
        raise require_extra(e, "httpx", "clients", what) from None


def resolve(source: Any, beside: Path | None) -> Any:
    """A relative path source found beside ``beside`` (a test file's folder) when it is there."""
    if isinstance(source, (str, Path)) and beside is not None and not Path(source).is_absolute():
        here = beside / source
        if here.exists():
            return here
    if isinstance(source, (list, tuple)):
        return [resolve(s, beside) for s in source]
    return source
