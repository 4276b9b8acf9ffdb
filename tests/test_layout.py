"""The package's shape: no import cycles, typed records whose JSON is README's schema, and one
Model interface that the engine and the tests' stand-in both implement."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import autodbg
from autodbg.llm.engine import Engine
from autodbg.llm.model import Model
from autodbg.llm.remote import RemoteEngine
from autodbg.records import (
    CalledFunction, ChainLink, CrashSite, Diagnosis, Dossier, Edit, ExceptionInfo, Fix, FixTrial, FrameEvidence, Hang, Judgement, Label, LineValue,
    ThreadStack,
    ModelCall, ModelInfo, Patch, Probe, Replay, Search, Candidate, Result, SourceWindow, Timings, Tokens, Turn, ValueOrigin,
)
from conftest import REPO
from crashkit import ScriptedStandInModel

PACKAGE = Path(autodbg.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """autodbg modules PATH imports anywhere (also inside functions), but not under TYPE_CHECKING."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
               for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        found |= {name for name in names if name in modules}
    return found


def test_the_import_graph_has_no_cycle():
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: imports_of(path, set(files)) - {name} for name, path in files.items()}
    # A package's __init__ runs before its submodules: importing a.b imports a.
    for name in list(graph):
        graph[name] |= {parent for parent in (name.rsplit(".", i)[0] for i in range(1, name.count(".") + 1))
                        if parent in graph and parent != "autodbg"}
    visiting, done, cycles = [], set(), []

    def visit(name):
        if name in done:
            return
        if name in visiting:
            cycles.append(visiting[visiting.index(name):] + [name])
            return
        visiting.append(name)
        for target in sorted(graph[name]):
            visit(target)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    assert not cycles, " ; ".join(" -> ".join(c) for c in cycles)
    # The start-up hook runs in every interpreter: it imports only what `site` has loaded.
    hook = ast.parse((REPO / "_autodbg_hook.py").read_text(encoding="utf-8")).body
    assert {alias.name for node in hook if isinstance(node, ast.Import) for alias in node.names} == {"os", "sys"}
    assert not [node for node in hook if isinstance(node, ast.ImportFrom)]
    # And autodbg.startup, which every other entry point imports first, nothing but the hook.
    startup = ast.parse(files["autodbg.startup"].read_text(encoding="utf-8"))
    assert {node.names[0].name if isinstance(node, ast.Import) else node.module for node in ast.walk(startup)
            if isinstance(node, (ast.Import, ast.ImportFrom))} == {"_autodbg_hook"}


# The floors of the house, from the ground up: a module imports only from its own floor or below.
# Each entry is a package (all its modules) or one module.
FLOORS = [
    ["autodbg.startup", "autodbg.errors", "autodbg.version", "autodbg.records", "autodbg.textsafe", "autodbg.channel", "autodbg.files",
     "autodbg.terminal", "autodbg.redact", "autodbg.settings"],
    ["autodbg.probe"],  # runs a function in a sandboxed fork: knows nothing of debugging
    ["autodbg.frames"],
    ["autodbg.analysis"],
    ["autodbg.debugger"],
    ["autodbg.fix"],
    ["autodbg.llm"],
    ["autodbg.evidence", "autodbg.report"],
    ["autodbg.crash"],
    ["autodbg.program"],
    ["autodbg.investigate"],
    ["autodbg.pipeline"],
    ["autodbg._boot", "autodbg._hook", "autodbg.run", "autodbg.entry", "autodbg.installer", "autodbg.model_cli", "autodbg.trust_cli", "autodbg.fix_cli",
     "autodbg.bench", "autodbg.corpus", "autodbg.cli", "autodbg.__main__", "autodbg"],
]


def floor_of(module: str) -> int:
    matches = [(len(entry), level) for level, entries in enumerate(FLOORS) for entry in entries
               if module == entry or module.startswith(entry + ".")]
    assert matches, f"{module} is on no floor: add it to FLOORS"
    return max(matches)[1]  # the longest entry that names it


def test_imports_only_point_down_the_floors():
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    upward = [f"{name} (floor {floor_of(name)}) imports {target} (floor {floor_of(target)})"
              for name, path in sorted(files.items())
              for target in sorted(imports_of(path, set(files)) - {name})
              if target != "autodbg" and floor_of(target) > floor_of(name)]
    assert not upward, "\n".join(upward)


def test_the_probe_imports_nothing_of_autodbg():
    probe = [p for p in PACKAGE.rglob("*.py") if module_name(p).startswith("autodbg.probe")]
    outside = {f"{module_name(p)} -> {target}" for p in probe
               for target in imports_of(p, {module_name(q) for q in PACKAGE.rglob("*.py")})
               if not target.startswith("autodbg.probe")}
    assert not outside


def a_full_result() -> Result:
    frame = FrameEvidence(index=0, file="/p/app.py", display_file="app.py", function="main", line=3, is_crash_frame=True, code="x = 1 / n", source=SourceWindow(1, ["n = 0"]), line_values=[LineValue("n", "0")], locals={"m": "1"}, locals_cut=0, called_functions=[CalledFunction(name="f", file="/p/app.py", display_file="app.py", line=5, lines=["def f(): pass"], lines_cut=0)])
    dossier = Dossier(exception=ExceptionInfo("ZeroDivisionError", "division by zero", "ZeroDivisionError: division by zero"), chain=[ChainLink(0, "ZeroDivisionError: division by zero", "raised")], crash_site=CrashSite("/p/app.py", 3, "main"), frames=[frame], folded_user_frames=0, library_frames=0, assertion=False, origins=[ValueOrigin(via="n", kind="assign", file="/p/app.py", display_file="app.py", line=1, code="n = 0", depth=0)], replays=[Replay(call="f()", file="/p/app.py", function="f", history="line 5: pass · ⇒ returned None", lines=[5])], hang=Hang(interrupted_by="Ctrl-C", ran_seconds=2.0, threads=[ThreadStack(thread="interrupted thread", frames=["app.py:3 in main"], code="x = 1 / n")], stuck=True, verdict="stuck: ..."))
    fix = Fix(edit=Edit(file="/p/app.py", first=1, last=1, replacement="n = 1\n", origin="model"), diff="diff",
              applies=True, compiles=True, problem=None, verified=True, outcome="verified",
              trial=FixTrial("passes", "ran"),
              judgement=Judgement(tests=["test_app.py"], passed_before=3, kept=3, broken=[], fixed=["test_n"],
                                  still_failing=[], detail=""),
              label=Label.PASSES_YOUR_TESTS)
    diagnosis = Diagnosis(file="/p/app.py", display_file="app.py", line=1, line_end=1, root_cause="n is 0", fix=fix, source_window=SourceWindow(1, ["n = 0"]))
    return Result(autodbg_version="0.1.0", python="3.11", argv=["app.py"], cwd="/p", thread=None, dossier=dossier, transcript=[Turn(thought="t", command="done", valid=True, output="", tokens=1, seconds=0.1)], candidates=[Candidate(edit=fix.edit, display_file="app.py", code="n = 0\n", trial=FixTrial("passes", "ran"))], diagnosis=diagnosis, model=ModelInfo("m", "/m.gguf", "abc"), probe=Probe("fork", "ok"), search=Search(proof="test", lines=3, tried=20, outcomes={"passes": 1, "still fails": 19}, seconds=0.4, passing=[Candidate(edit=Edit(file="/p/app.py", first=1, last=1, replacement="n = 1\n",
                                                     origin="constant"),
                                           display_file="app.py", code="n = 0\n", trial=FixTrial("passes", "ran"))]), timings=Timings(worker_start=1.0, evidence=0.1, search=0.4, model_load=2.0, trials=[0.2], verify=0.5, judge=1.5, total=5.0), model_calls=[ModelCall(purpose="step", seconds=1.0, prompt_seconds=0.4, prompt_tokens=900, prompt_tokens_evaluated=300, generated=20, accepted=8, grammar_refusals=1, grammar_bytes=1130)], tokens=Tokens(10, 5, 3, True), stopped_by="done", patch=Patch(file="/p/app.py", root="/p", path="app.py", diff="--- a/app.py\n", sha256="0" * 64, label=Label.PASSES_YOUR_TESTS, edit=fix.edit))


def readme_schema() -> dict[str, set[str]]:
    """The fields of each object in the manual's "JSON report" section: top-level names, then each
    `name: {field, ...}` and `name [{field, ...}]`."""
    text = (REPO / "docs" / "manual.md").read_text(encoding="utf-8")
    block = text.split("## JSON report", 1)[1].split("```", 2)[1]
    schema = {"": set()}
    for line in block.splitlines():
        if re.match(r"^\w", line):
            names = re.sub(r"\([^()]*\)", "", line.split(":", 1)[0])
            schema[""] |= {name.strip() for name in re.findall(r"(?:^|,)\s*(\w+)", names)}
    flat = re.sub(r"\s+", " ", block)
    for name, body in _objects(flat):
        schema[name] = {field for field in re.findall(r"(?:[{,]|^)\s*(\w+)", _top_level(body))}
    return schema


def _objects(text: str):
    """(name, body) of each `name {...}`, `name: {...}` or `name [{...}]`, braces balanced."""
    for m in re.finditer(r"(\w+):? \[?\{", text):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), "{" + text[m.end():i - 1]


def _top_level(body: str) -> str:
    """BODY with nested {...} and (...) removed."""
    while True:
        stripped = re.sub(r"\{[^{}]*\}|\([^()]*\)", "", body[1:])
        if stripped == body[1:]:
            return "{" + stripped
        body = "{" + stripped


def test_to_json_gives_readmes_schema_exactly():
    data = a_full_result().to_json()
    schema = readme_schema()
    assert set(data) == schema[""] | {"dossier", "search", "diagnosis", "model", "timings", "tokens", "probe", "patch"} - {""}
    dossier = data["dossier"]
    assert set(dossier) == schema["dossier"]
    assert set(dossier["exception"]) == schema["exception"]
    assert set(dossier["chain"][0]) == schema["chain"]
    assert set(dossier["crash_site"]) == schema["crash_site"]
    assert set(dossier["origins"][0]) == schema["origins"]
    assert set(dossier["replays"][0]) == schema["replays"]
    assert set(dossier["hang"]) == schema["hang"]
    assert set(dossier["hang"]["threads"][0]) == schema["threads"]
    assert set(dossier["frames"][0]) == schema["frames"]
    assert set(dossier["frames"][0]["source"]) == schema["source"]
    assert set(dossier["frames"][0]["line_values"][0]) == schema["line_values"]
    assert set(dossier["frames"][0]["called_functions"][0]) == schema["called_functions"]
    assert set(data["transcript"][0]) == schema["transcript"]
    assert set(data["candidates"][0]) == schema["candidates"]
    assert set(data["candidates"][0]["edit"]) == schema["edit"]
    assert set(data["candidates"][0]["trial"]) == schema["trial"]
    assert set(data["diagnosis"]) == schema["diagnosis"]
    assert set(data["diagnosis"]["fix"]) == schema["fix"]
    assert set(data["diagnosis"]["fix"]["trial"]) == schema["trial"]
    assert set(data["diagnosis"]["fix"]["judgement"]) == schema["judgement"]
    assert set(data["diagnosis"]["source_window"]) == schema["source_window"]
    assert set(data["model"]) == schema["model"]
    assert set(data["probe"]) == schema["probe"]
    assert set(data["timings"]) == schema["timings"]
    assert set(data["model_calls"][0]) == schema["model_calls"]
    assert set(data["search"]) == schema["search"]
    assert set(data["search"]["passing"][0]) == schema["passing"]
    assert set(data["search"]["passing"][0]["trial"]) == schema["trial"]
    assert set(data["tokens"]) == schema["tokens"]
    assert set(data["patch"]) == schema["patch"]
    assert set(data["patch"]["edit"]) == schema["edit"]


def test_steps_that_did_not_happen_are_left_out():
    result = a_full_result()
    result.diagnosis.fix.verified = result.diagnosis.fix.outcome = None  # not under `autodbg run`
    result.diagnosis.fix.trial = result.diagnosis.fix.judgement = None  # no probe to try it in, no tests
    result.diagnosis.fix.label = None
    result.timings = Timings(worker_start=0.1, evidence=0.2, total=0.3)
    result.tokens = None
    data = result.to_json()
    assert set(data["diagnosis"]["fix"]) == {"edit", "diff", "applies", "compiles", "problem"}
    assert data["timings"] == {"worker_start": 0.1, "evidence": 0.2, "total": 0.3}
    assert data["tokens"] == {}


def test_every_model_implements_the_interface_with_its_signatures():
    for implementation in (Engine, RemoteEngine, ScriptedStandInModel):
        assert issubclass(implementation, Model)
        for name in Model.__abstractmethods__:
            wanted = inspect.signature(getattr(Model, name)).parameters
            have = inspect.signature(getattr(implementation, name)).parameters
            for param, spec in wanted.items():
                assert param in have, (implementation.__name__, name, param)
                assert (have[param].kind, have[param].default) == (spec.kind, spec.default), (implementation, name, param)
            extra = [p for p in have.values() if p.name not in wanted]
            assert all(p.default is not inspect.Parameter.empty for p in extra), (implementation, name, extra)


def test_version_and_license():
    import subprocess
    import sys
    import tomllib

    run = subprocess.run([sys.executable, "-m", "autodbg", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == f"autodbg {autodbg.__version__}\n"
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["license"]
    assert declared == "MIT" and (REPO / "LICENSE").read_text().startswith("MIT License\n")


# Modules of the local engine's worker: what they import comes with the `local` extra.
LOCAL_ENGINE = {"autodbg.llm.worker", "autodbg.llm.sampling"}
# pytest loads these plugins: it is there already.
OURS = {"autodbg", "_autodbg_hook"}  # the package, and the start-up hook its wheel puts at the root
PROVIDED = {"pytest": {"autodbg.entry.pytest_plugin", "autodbg.program.coverage_plugin"},
            "_autodbg_prev_sitecustomize": {"autodbg._hook.sitecustomize"}}  # the venv's own, kept by install


def test_every_imported_package_is_declared():
    import importlib.metadata
    import sys
    import tomllib

    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    names = lambda requirements: {Requirement(r).name.lower().replace("_", "-") for r in requirements}
    core, local = names(project["dependencies"]), names(project["optional-dependencies"]["local"])
    distributions = importlib.metadata.packages_distributions()
    undeclared = []
    for path in PACKAGE.rglob("*.py"):
        module = module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                        [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for top in {name.split(".")[0] for name in imported} - set(sys.stdlib_module_names) - OURS:
                if module in PROVIDED.get(top, ()):
                    continue
                wanted = {d.lower().replace("_", "-") for d in distributions.get(top, [top])}
                if not wanted & (core | local if module in LOCAL_ENGINE else core):
                    undeclared.append(f"{module} imports {top} ({', '.join(sorted(wanted))})")
    assert not undeclared, "\n".join(sorted(set(undeclared)))
