"""pi (``@mariozechner/pi-coding-agent``): all three APIs, through ``$PI_CODING_AGENT_DIR/models.json``.

One provider, ``mock``, with the run's key and the protocol of ``server.llmApiStyle``
(``openai`` → Chat Completions, ``anthropic`` → Messages, ``openai-responses`` → Responses);
``PI_OFFLINE=1`` keeps it off the network.

Its TUI draws its key hints (``escape interrupt · ...``) with the input box, in one frame: the
initial prompt waits for them. Typed before (while it starts), the text and its Enter reach pi in
one read and the Enter is not taken as the submit.
"""

from autocue.runner.agents.base import AgentProfile

_MODELS = """{"providers": {"mock": {"baseUrl": "{pi_url}", "api": "{pi_api}", "apiKey": "{api_key}",
                        "models": [{"id": "mock"}]}}}
"""

PROFILE = AgentProfile(
    name="pi",
    binary="pi",
    print_args=("--model", "mock/mock", "-p", "{prompt}"),
    tui_args=("--model", "mock/mock"),
    apis={"openai": {"pi_api": "openai-completions", "pi_url": "{openai_base_url}"},
          "anthropic": {"pi_api": "anthropic-messages", "pi_url": "{base_url}"},
          "openai-responses": {"pi_api": "openai-responses", "pi_url": "{openai_base_url}"}},
    env={"PI_CODING_AGENT_DIR": "{home}/pi", "PI_OFFLINE": "1"},
    files={"pi/models.json": _MODELS},
    tool_profile="pi",
    package="@mariozechner/pi-coding-agent",
    version="0.73.1",
    verified=("0.73.1",),
    quit_input="<ctrl-c><ctrl-c>",
    ready="escape interrupt",
    notes="tools read, bash, edit, write",
)
