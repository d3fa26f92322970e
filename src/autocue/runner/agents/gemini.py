"""Gemini CLI (``@google/gemini-cli``): the Gemini API only.

``~/.gemini/settings.json`` selects API-key auth (without it the base-URL variable picks the
"gateway" auth, refused with exit 41), turns off usage statistics and folder trust;
``GEMINI_CLI_TRUST_WORKSPACE=true`` trusts the workspace (exit 55 otherwise); ``--yolo``
declares the write and shell tools and runs them without asking. ``-m`` skips the model-router
call (answered as a side request anyway). It re-launches itself as a second process, and exits
42 under ``CI=true``: the executor removes ``CI`` and kills the whole process group.
"""

from autocue.runner.agents.base import AgentProfile

_SETTINGS = """{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}},
 "privacy": {"usageStatisticsEnabled": false}, "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
 "ui": {"hideTips": true, "hideBanner": true}}
"""

PROFILE = AgentProfile(
    name="gemini",
    binary="gemini",
    print_args=("-m", "gemini-2.5-flash", "-p", "{prompt}", "--yolo"),
    tui_args=("-m", "gemini-2.5-flash", "--yolo"),
    apis={"gemini": {}},
    env={"GOOGLE_GEMINI_BASE_URL": "{base_url}", "GEMINI_API_KEY": "{api_key}", "GEMINI_CLI_TRUST_WORKSPACE": "true",
         "GEMINI_CLI_NO_RELAUNCH": "true"},
    files={".gemini/settings.json": _SETTINGS},
    tool_profile="gemini-cli",
    package="@google/gemini-cli",
    version="0.61.0",
    verified=("0.61.0",),
    side_requests=("model router (JSON with complexity_score), without -m",),
    ready="Type your message",
    quit_input="/exit<enter>",
    notes="Gemini API only; exits 42 with CI=true; re-launches itself as a second process",
)
