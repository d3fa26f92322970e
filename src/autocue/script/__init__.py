"""The Script model and the scripted provider that plays it (depends on ``autocue.llm`` only).

Names load on first use (``autocue.lazy``): the mock server, which plays scripts over HTTP,
never imports the provider and its stream events.
"""

from typing import TYPE_CHECKING

from autocue.lazy import lazy_exports

if TYPE_CHECKING:
    from autocue.script.model import (
        Check,
        ErrorKind,
        FailKind,
        ResponseFactory,
        Script,
        ScriptedError,
        ScriptedResponse,
        ScriptedToolCall,
        Step,
        Turn,
        describe_step,
    )
    from autocue.script.provider import SCRIPTED_API, Exhaustion, ScriptedProvider, scripted_model

__getattr__, __dir__ = lazy_exports(__name__, {
    "autocue.script.model": ["Check", "ErrorKind", "FailKind", "ResponseFactory", "Script", "ScriptedError",
                             "ScriptedResponse", "ScriptedToolCall", "Step", "Turn", "describe_step"],
    "autocue.script.provider": ["SCRIPTED_API", "Exhaustion", "ScriptedProvider", "scripted_model"],
})

__all__ = [
    "SCRIPTED_API", "Check", "ErrorKind", "Exhaustion", "FailKind", "ResponseFactory", "Script", "ScriptedError",
    "ScriptedProvider", "ScriptedResponse", "ScriptedToolCall", "Step", "Turn", "describe_step",
    "scripted_model",
]
