"""A tiny program that wraps an agent CLI: it runs the agent given after ``--`` (speaking
Claude Code's ``stream-json`` lines), shows one line per step and a summary, and exits 1 when
the agent's result is an error. ``wrapped_agent.yaml`` tests it against ``autocue mock-agent``.
"""

import json
import subprocess
import sys

agent = sys.argv[sys.argv.index("--") + 1:]
proc = subprocess.Popen(agent, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
tools = 0
assert proc.stdout is not None
for line in proc.stdout:
    event = json.loads(line)
    if event["type"] == "system":
        print(f"[wrapper] agent session {event['session_id']} in {event['cwd'].rsplit('/', 1)[-1] or '/'}")
    elif event["type"] == "assistant":
        for block in event["message"]["content"]:
            if block["type"] == "text":
                print(f"[wrapper] says: {block['text']}")
            elif block["type"] == "tool_use":
                tools += 1
                print(f"[wrapper] tool #{tools}: {block['name']}")
    elif event["type"] == "user":
        for block in event["message"]["content"]:
            print(f"[wrapper]   -> {'error' if block['is_error'] else 'ok'}")
    elif event["type"] == "result":
        print(f"[wrapper] {'FAILED' if event['is_error'] else 'done'} after {event['num_turns']} turn(s), "
              f"{tools} tool call(s): {event['result']}")
        sys.exit(proc.wait() or (1 if event["is_error"] else 0))
sys.exit(proc.wait() or 1)
