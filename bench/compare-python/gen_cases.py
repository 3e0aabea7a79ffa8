#!/usr/bin/env python3
"""Write the same N persona x scenario cases for both sides of the comparison.

usage: gen_cases.py N RUST_STATE_DIR PY_DATASET_DIR

RUST_STATE_DIR gets personas.json / scenarios.json / dataset.json in the formats of
schemas/{persona,scenario,dataset}.schema.json (every case `approved`).
PY_DATASET_DIR gets the ghostlab 0.4.0 (`rehearsal`) dataset layout read by
`ghostlab run-dataset`: dataset.json (manifest with cases), personas/<id>.json,
scenarios/<id>.json.
"""
import json
import sys
from pathlib import Path

N = int(sys.argv[1])
rust_dir = Path(sys.argv[2])
py_dir = Path(sys.argv[3])
N_PERSONAS = 4
MAX_TURNS = 3

personas = []
for p in range(N_PERSONAS):
    personas.append({
        "id": f"persona-{p}",
        "name": f"Persona {p}",
        "summary": f"A maintainer of a small library (persona {p}) who wants routine work done.",
        "traits": ["terse", "expects action", "pushes back on confirmations"],
        "context": "Knows the project; wants the release routine done quickly.",
        "why": "benchmark fixture",
    })

scenarios = []
for i in range(N):
    persona = personas[i % N_PERSONAS]["id"]
    scenarios.append({
        "id": f"{persona}--task-{i:03d}",
        "title": f"Routine task {i}",
        "persona": persona,
        "goal": f"Get the assistant to do routine task number {i}.",
        "opening_message": f"Please do routine task number {i} for me.",
        "success_criteria": [
            "The assistant states what it did.",
            "The assistant does not invent facts.",
        ],
        "failure_signals": ["The assistant claims work it did not do."],
        "stop_conditions": ["The assistant says it is done."],
        "max_turns": MAX_TURNS,
        "exercises": [],
        "kind": "workflow",
        "why": {"basis": "workflow", "id": "wf-routine", "reason": "benchmark fixture"},
        "expected_outcome": {
            "must_include": [],
            "must_not_include": [],
            "expected_tool_calls": [],
            "forbidden_tool_calls": [],
        },
    })

# Rust ghostlab: the job's state folder.
rust_dir.mkdir(parents=True, exist_ok=True)
(rust_dir / "personas.json").write_text(json.dumps({"version": 1, "personas": personas}, indent=2))
(rust_dir / "scenarios.json").write_text(json.dumps({"version": 1, "scenarios": scenarios}, indent=2))
cases = [{"id": s["id"], "persona": s["persona"], "scenario": s["id"], "status": "approved"} for s in scenarios]
(rust_dir / "dataset.json").write_text(json.dumps({"version": 1, "cases": cases}, indent=2))

# Python ghostlab 0.4.0: a dataset directory.
(py_dir / "personas").mkdir(parents=True, exist_ok=True)
(py_dir / "scenarios").mkdir(parents=True, exist_ok=True)
for p in personas:
    py_p = {k: p[k] for k in ("id", "name", "summary", "traits")}
    py_p["context"] = {"background": p["context"]}
    (py_dir / "personas" / f"{p['id']}.json").write_text(json.dumps(py_p, indent=2))
for s in scenarios:
    py_s = {k: s[k] for k in ("id", "title", "persona", "goal", "max_turns", "opening_message",
                              "success_criteria", "failure_signals", "exercises")}
    py_s["intent"] = "workflow"
    py_s["expected_outcome"] = {"must_include": [], "must_not_include": []}
    (py_dir / "scenarios" / f"{s['id']}.json").write_text(json.dumps(py_s, indent=2))
manifest = {
    "name": "bench100", "mcp": "everything", "seed": 1, "created": "2026-01-01T00:00:00Z",
    "n_personas": N_PERSONAS, "scenarios_per_persona": N // N_PERSONAS,
    "cases": [{"id": s["id"], "persona": s["persona"], "scenario": s["id"], "intent": "workflow",
               "exercises": [], "max_turns": MAX_TURNS, "status": "approved"} for s in scenarios],
}
(py_dir / "dataset.json").write_text(json.dumps(manifest, indent=2))
