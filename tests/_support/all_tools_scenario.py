"""A scenario using the search built-ins (listDir → ls, grep, find under the autocue profile)."""

SCENARIO = """
name: all_builtins
initialPrompt: "Look around."
repo:
  files:
    - path: src/app.py
      contents: "print('needle')\\n"
server:
  mode: mock
  llmApiStyle: openai
timeline:
  - llmResponse:
      - listDir:
          toolCallId: c_ls
          path: src
  - llmResponse:
      - grep:
          toolCallId: c_grep
          pattern: needle
  - llmResponse:
      - find:
          toolCallId: c_find
          name: "*.py"
  - assert:
      text:
        contains: ["src/app.py"]
  - llmResponse:
      - assistant:
          - [0, "Found it."]
"""
