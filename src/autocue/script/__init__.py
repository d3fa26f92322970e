"""The Script model and the scripted provider that plays it (depends on ``autocue.llm`` only)."""

from autocue.script.model import (
    Check,
    ErrorKind,
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

__all__ = [
    "SCRIPTED_API", "Check", "ErrorKind", "Exhaustion", "ResponseFactory", "Script", "ScriptedError",
    "ScriptedProvider", "ScriptedResponse", "ScriptedToolCall", "Step", "Turn", "describe_step",
    "scripted_model",
]
