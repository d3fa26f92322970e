"""A Strands ``Agent`` with two real tools on its Bedrock provider. ``BedrockModel`` builds a
boto3 ``bedrock-runtime`` client from the ``boto_session`` and ``endpoint_url`` it is given;
botocore sends with urllib3, not httpx, so the in-process hook is botocore's documented
``before-send`` event, registered on that client (``model.client``)."""

from __future__ import annotations

from pathlib import Path

import boto3
from strands import Agent, tool
from strands.models import BedrockModel
from strands.types.tools import AgentTool

from autocue.testing import MockLLM

WIRING = ('model = BedrockModel(model_id="anthropic.claude-x", endpoint_url=llm.base_url, boto_session=...); '
          'model.client.meta.events.register("before-send", llm.botocore_hook())')
DIALECTS = "Bedrock Converse (streamed)"

PROMPT = "What's the weather in Paris? Save a one-line report to report.txt."


@tool
def get_weather(city: str) -> str:
    """The current weather in a city.

    Args:
        city: The city's name.
    """
    return "sunny, 21 C" if city == "Paris" else "unknown"


def file_writer(workdir: Path) -> AgentTool:
    @tool
    def write_file(path: str, content: str) -> str:
        """Write a text file.

        Args:
            path: The file's path, relative to the working directory.
            content: The text to write.
        """
        (workdir / path).write_text(content + "\n")
        return f"wrote {len(content) + 1} bytes to {path}"

    return write_file


def run(llm: MockLLM, workdir: Path) -> str:
    session = boto3.Session(aws_access_key_id=llm.api_key, aws_secret_access_key="autocue", region_name="us-east-1")
    model = BedrockModel(model_id="anthropic.claude-x", boto_session=session, endpoint_url=llm.base_url)
    model.client.meta.events.register("before-send", llm.botocore_hook())
    agent = Agent(model=model, tools=[get_weather, file_writer(workdir)], callback_handler=None)
    return str(agent(PROMPT)).strip()
