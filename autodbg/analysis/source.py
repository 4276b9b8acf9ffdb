"""A module's source as the analyses see it: parsed once per text (cached), its statements by
line, its functions and their spans. Pure functions of source text; every layer that reads a
program's code asks here rather than parsing it again."""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass

HEAD_LINES = 4  # of a function's signature and docstring shown with a line of its body
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRY = (ast.Try, getattr(ast, "TryStar", ast.Try))


@functools.lru_cache(maxsize=32)  # one crash asks about the same few files many times; trees are not mutated
def parse_source(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None



@functools.lru_cache(maxsize=32)
def module_nodes(tree: ast.Module) -> tuple[ast.AST, ...]:
    """Every node of TREE, breadth first (ast.walk), walked once: the walk costs far more than
    reading its result, and a crash in a long file looks through it many times."""
    return tuple(ast.walk(tree))



@functools.lru_cache(maxsize=32)
def statements_by_line(tree: ast.Module) -> dict[int, ast.stmt]:
    """Each line held by a statement's own line(s), to the innermost such statement: built once
    per tree, as a crash asks about many lines of the same (possibly long) file."""
    index: dict[int, ast.stmt] = {}
    for node in module_nodes(tree):  # breadth first: a nested statement comes after its parent
        if isinstance(node, ast.stmt):
            for line in range(node.lineno, header_end(node) + 1):
                if line not in index or node.lineno >= index[line].lineno:
                    index[line] = node
    return index



def statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement whose own line(s) (a compound statement's header) hold LINE."""
    return statements_by_line(tree).get(line)



def header_end(node: ast.AST) -> int:
    """The last line of the part of NODE that runs on its own line(s): for a compound
    statement, the lines before its body."""
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.AST) and not isinstance(node, _TRY):
        return max(node.lineno, body[0].lineno - 1)
    if isinstance(node, _TRY):
        return node.lineno
    return node.end_lineno or node.lineno



def statement_text(source: str, line: int) -> str | None:
    """The source of the statement at LINE (a compound statement's header), for
    argument_expression at a call site."""
    tree = parse_source(source)
    statement = tree and statement_at(tree, line)
    if statement is None:
        return None
    return textwrap.dedent("\n".join(source.splitlines()[statement.lineno - 1:header_end(statement)]))



def parse_statement(text: str) -> ast.Module | None:
    """A statement's text on its own: a compound statement's header gets a body."""
    text = textwrap.dedent(text).strip()
    header = text.removeprefix("el") if text.startswith("elif") else text
    for candidate in (text, header + "\n    pass", "try:\n    pass\n" + text + "\n    pass"):
        tree = parse_source(candidate)
        if tree is not None:
            return tree
    return None



@dataclass(frozen=True)
class Function:
    """A function's `def` at LINE; its body spans BODY_LINE..END_LINE. PARAMS in `def` order."""

    name: str
    line: int
    body_line: int
    end_line: int
    params: tuple[str, ...]
    is_method: bool

    def holds(self, line: int) -> bool:
        return self.body_line <= line <= self.end_line



@functools.lru_cache(maxsize=32)
def functions(source: str) -> tuple[Function, ...]:
    """Every function and method defined in SOURCE, in line order."""
    tree = parse_source(source)
    if tree is None:
        return ()
    parents = parent_map(tree)
    return tuple(sorted((Function(node.name, node.lineno, node.body[0].lineno, node.end_lineno,
                            tuple(arg.arg for arg in parameters(node)), isinstance(parents.get(node), ast.ClassDef))
                   for node in module_nodes(tree) if isinstance(node, _FUNCTIONS)), key=lambda f: f.line))



def function_span(source: str, line: int) -> tuple[int, int] | None:
    """The lines of the innermost function holding LINE, its decorators and `def` included; None
    at a module's top level, or when SOURCE does not parse."""
    tree = parse_source(source)
    spans = [(min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno or node.lineno)
             for node in (module_nodes(tree) if tree else ()) if isinstance(node, _FUNCTIONS)
             and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return max(spans, default=None)



def function_head(source: str, line: int) -> tuple[int, int] | None:
    """The lines of the `def` (its signature) and docstring of the innermost function whose body
    holds LINE below them, at most HEAD_LINES; None at a module's top level, for a line of the head
    itself, or when SOURCE does not parse."""
    tree = parse_source(source)
    holding = [node for node in (module_nodes(tree) if tree else ()) if isinstance(node, _FUNCTIONS)
               and node.body[0].lineno <= line <= (node.end_lineno or node.lineno)]
    if not holding:
        return None
    node = max(holding, key=lambda n: n.lineno)
    first, end = node.lineno, node.body[0].lineno - 1
    docstring = node.body[0]
    if (isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
            and isinstance(docstring.value.value, str)):
        if line <= (docstring.end_lineno or docstring.lineno):
            return None
        end = docstring.end_lineno or docstring.lineno
    return (first, min(end, first + HEAD_LINES - 1)) if end >= first else None


def statement_starts(tree: ast.Module) -> dict[int, ast.stmt]:
    """Each line a statement starts on, to the last such statement of a breadth-first walk."""
    return {node.lineno: node for node in ast.walk(tree) if isinstance(node, ast.stmt)}


def statement_lines(source: str) -> set[int]:
    """Lines where a statement that is not a definition starts: where a line breakpoint can stop."""
    tree = parse_source(source)
    return {node.lineno for node in module_nodes(tree) if isinstance(node, ast.stmt)
            and not isinstance(node, (*_FUNCTIONS, ast.ClassDef))} if tree is not None else set()


def parameters(function: ast.AST) -> list[ast.arg]:
    a = function.args
    return [*a.posonlyargs, *a.args, *([a.vararg] if a.vararg else []), *a.kwonlyargs,
            *([a.kwarg] if a.kwarg else [])]


def parent_map(tree: ast.AST) -> dict:
    return {child: node for node in module_nodes(tree) for child in ast.iter_child_nodes(node)}
