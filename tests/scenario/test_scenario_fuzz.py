"""Mutated good scenarios either load or raise ScenarioError: never another exception."""

from __future__ import annotations

import copy
import io
import random
from typing import Any

from ruamel.yaml import YAML
from scenario_paths import EXAMPLES, GOOD, harbor_files

from autocue.scenario import PROFILE_NAMES, ScenarioError, apply_profile, load_scenario_text
from autocue.script import ScriptedResponse

VALUES: list[Any] = [None, True, 0, -3, 1.5, "x", "", [], {}, [1, "a"], {"a": 1}, [[0]], [[0, 1]],
                     {"type": "think"}, {"type": 5}, "advanceMs", [None]]


def mutate(rng: random.Random, x: Any) -> Any:
    if isinstance(x, dict) and x and rng.random() < 0.7:
        k = rng.choice(list(x))
        r = rng.random()
        if r < 0.4:
            x[k] = mutate(rng, x[k])
        elif r < 0.7:
            x[k] = copy.deepcopy(rng.choice(VALUES))
        elif r < 0.85:
            del x[k]
        else:
            x[rng.choice(["type", "zzz", "args", "_meta", "target", 7])] = copy.deepcopy(rng.choice(VALUES))
        return x
    if isinstance(x, list) and x and rng.random() < 0.7:
        i = rng.randrange(len(x))
        x[i] = mutate(rng, x[i]) if rng.random() < 0.6 else copy.deepcopy(rng.choice(VALUES))
        return x
    return copy.deepcopy(rng.choice(VALUES)) if rng.random() < 0.3 else x


def test_mutated_documents_never_crash_the_loader_compiler_or_profiles() -> None:
    rng = random.Random(20261122)
    yaml = YAML(typ="safe", pure=True)
    files = sorted(GOOD.glob("*.yaml")) + sorted(EXAMPLES.glob("*.yaml")) + harbor_files()
    docs = [d for f in files for d in yaml.load_all(f.read_text()) if d is not None]
    loaded = rejected = 0
    for _ in range(150):
        doc = copy.deepcopy(rng.choice(docs))
        for _ in range(rng.randint(1, 4)):
            doc = mutate(rng, doc)
        buf = io.StringIO()
        yaml.dump(doc, buf)
        try:
            sc = load_scenario_text(buf.getvalue())
        except ScenarioError:
            rejected += 1
            continue
        loaded += 1
        for name in PROFILE_NAMES:
            for step in apply_profile(sc.compile(), name).all_steps():
                assert isinstance(step, ScriptedResponse)
                for call in step.tool_calls:
                    assert isinstance(call.resolve(), dict)
    assert loaded > 20 and rejected > 20
