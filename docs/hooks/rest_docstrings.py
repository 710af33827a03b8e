"""Griffe extension (mkdocstrings, mkdocs.yml): the library's docstrings are plain text with
reStructuredText markup, written for ``help()`` and doctests; the API pages render them as
Markdown. Before griffe parses a docstring this rewrites, in memory only:

- the roles ``:func:`x```, ``:mod:``, ``:class:``, ``:data:``, ``:meth:``, ``:attr:``,
  ``:exc:`` into a link to ``x`` where an API page documents it, else ``x`` as code;
- reST literals (double backticks) into Markdown code;
- reST simple tables (``====  ====`` borders) into Markdown tables;
- aligned two-column blocks (a term, two or more spaces, its text, hanging continuation
  lines) into definition lists;
- the formulas of the prose (``M^(r~)``, ``A^T A``, ``sum_r p(r) M(r)``) into TeX, which
  MathJax typesets as on the guide's pages (``ascii_math.typeset``);
- other aligned lines (formulas in columns, equation numbers at the right) and indented
  formulas into lines of typeset formulas, each line kept, columns set apart;
- a Returns section written as a sentence (no type line) into a Returns entry without a
  type, whose text is the sentence.

Doctests (``>>>`` and their output) and indented code are left as they are.
"""
from __future__ import annotations

import re

import griffe
from ascii_math import pieces   # a sibling module: MkDocs puts hooks/ on the path

ROLE = re.compile(r":(?:py:)?(func|meth|class|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")
LITERAL = re.compile(r"``(.+?)``", re.S)
BORDER = re.compile(r"^(=+)( +=+)+ *$")
TERM = r"(?:``[^`]+``(?:, ``[^`]+``)*:?|[\w'-]+(?: \([^)]*\))?:)"
ENTRY = re.compile(rf"^(?P<term>{TERM})(?P<gap> +)(?P<text>\S.*)$")
SPAN = re.compile(r"(`[^`]*`|<autoref [^>]*>.*?</autoref>)", re.S)
# "_" after punctuation opens emphasis in Markdown: in "r~_{A,u}" it is a subscript
SUBSCRIPT = re.compile(r"(?<=[^\w\s\\])_")
GAP = re.compile(r"\S {3,}\S")
HEADER = re.compile(r"^-{3,}$")
#: what makes an indented block code, not formulas: Python, comments, CSV rows
CODE = re.compile(r"\bimport |print\(|\"| # |^\s*#|^[\w.]+(,[\w.]+)+\s*($|#)")
#: between the columns of an aligned line of formulas
COLUMN_GAP = " &emsp;&emsp; "
ITEM_SECTIONS = {"Parameters", "Other Parameters", "Returns", "Yields", "Receives", "Raises",
                 "Warns", "Attributes", "Methods", "See Also"}


def _role(match, obj, plain: bool) -> str:
    _, tilde, target = match.groups()
    target = target.strip()
    shown = target.rsplit(".", 1)[-1] if tilde else target.lstrip(".")
    if plain:
        return shown
    ident = None
    if target.startswith("sampled_metrics."):
        ident = target
    elif obj is not None:
        try:
            ident = obj.resolve(target.lstrip("."))
        except Exception:  # griffe.NameResolutionError and aliases it cannot follow
            if target.startswith("."):          # relative to the docstring's own package
                module = obj.module
                package = module if module.is_package else module.parent
                ident = f"{package.path}{target}"
    if ident is None:
        return f"`{shown}`"
    return f'<autoref identifier="{ident}" optional><code>{shown}</code></autoref>'


def inline(text: str, obj=None, plain: bool = False, maths: bool = True,
           gaps: bool = False) -> str:
    """Roles and literals of some lines: Markdown code (and links), with the formulas of
    the prose as TeX (``maths``; ``gaps``: runs of three spaces as a column gap), or with
    ``plain`` the bare text (inside a code block)."""
    text = ROLE.sub(lambda m: _role(m, obj, plain), text)
    if plain:
        return LITERAL.sub(r"\1", text)
    parts = SPAN.split(LITERAL.sub(r"`\1`", text))
    return "".join(p if k % 2 else _prose(p, maths, gaps) for k, p in enumerate(parts))


def _prose(text: str, maths: bool, gaps: bool) -> str:
    """Prose outside code: its formulas as ``$TeX$``, the rest with Markdown's emphasis
    markers escaped."""
    out = []
    for formula, piece in (pieces(text) if maths else [(False, text)]):
        if formula:
            out.append(f"${piece}$")
        else:
            piece = SUBSCRIPT.sub(r"\\_", piece)
            out.append(re.sub(r" {3,}", COLUMN_GAP, piece) if gaps else piece)
    return "".join(out)


def _formula_lines(block: list[str], obj) -> list[str]:
    """Lines set in columns or indented (formulas, equation numbers at the right) as lines
    of typeset formulas: each line kept (a break after it), its indentation beyond the
    block's and its column gaps as wide spaces."""
    margin = min(len(line) - len(line.lstrip()) for line in block)
    out = []
    for k, line in enumerate(block):
        indent = (len(line) - len(line.lstrip()) - margin) // 4
        text = "&emsp;" * indent + inline(line.strip(), obj, gaps=True)
        out.append(text + ("<br>" if k + 1 < len(block) else ""))
    return out


def _formulas(block: list[str]) -> bool:
    """Whether an indented block holds formulas (not code): no Python, comment or CSV row,
    and a formula on most lines."""
    if any(CODE.search(line) for line in block):
        return False
    found = sum(any(f for f, _ in pieces(line.strip())) for line in block)
    return 2 * found >= len(block)


def _cell(text: str, obj) -> str:
    return inline(text.strip(), obj).replace("|", "\\|")


def _table(lines: list[str], obj) -> list[str]:
    """A reST simple table (the lines from its top border to its bottom one) as Markdown."""
    starts = [m.start() for m in re.finditer(r"=+", lines[0])]
    rows, header = [], None
    for line in lines[1:]:
        if BORDER.match(line):
            if header is None:
                header, rows = rows, []
            continue
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        if rows and not cells[0]:                      # a continuation line of the row above
            rows[-1] = [f"{old} {new}".strip() for old, new in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    header = header[0] if header else [""] * len(starts)
    out = ["| " + " | ".join(_cell(c, obj) for c in header) + " |",
           "|" + "---|" * len(starts)]
    return out + ["| " + " | ".join(_cell(c, obj) for c in row) + " |" for row in rows]


def _definitions(block: list[str], obj) -> list[str] | None:
    """Aligned ``term  text`` lines with hanging continuation lines as a definition list, or
    None if the block is not one."""
    entries, wide = [], False
    for line in block:
        match = ENTRY.match(line)
        # one space after the term only where a code term overflows its column
        if match and (len(match["gap"]) > 1 or match["term"].startswith("``")):
            wide |= len(match["gap"]) > 1
            entries.append((match["term"].rstrip(":"), [match["text"]]))
        elif entries and line.startswith("  "):
            entries[-1][1].append(line.strip())
        else:
            return None
    if not wide:
        return None
    out = []
    for term, text in entries:
        out += [inline(term, obj), ":   " + inline(" ".join(text), obj), ""]
    return out


def _aligned(block: list[str]) -> bool:
    """Lines set in columns: most of them hold a run of three spaces inside, or hang."""
    hits = sum(bool(GAP.search(line)) or (i > 0 and line.startswith("  ") and
                                             not block[0].startswith(" "))
               for i, line in enumerate(block))
    return len(block) >= 2 and 2 * hits >= len(block)


def _returns(block: list[str]) -> list[str] | None:
    """A Returns section written as a sentence: an entry with no name and no type."""
    if any(line.startswith(" ") for line in block) or " : " in block[0]:
        return None
    if len(block) == 1 and len(block[0].split()) < 4:
        return None                                   # a bare type, as numpy style has it
    return [":"] + ["    " + line for line in block]


def convert(text: str, obj=None) -> str:
    """The docstring ``text`` (dedented) as Markdown for the API pages."""
    lines = text.splitlines()
    out: list[str] = []
    section, i = None, 0
    while i < len(lines):
        line = lines[i]
        if i + 1 < len(lines) and HEADER.match(lines[i + 1]) and line.strip():
            section = line.strip()
            out += [line, lines[i + 1]]
            i += 2
            continue
        if line.lstrip().startswith(">>>"):               # a doctest and its output
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            continue
        if BORDER.match(line):
            end = next((j for j in range(i + 1, len(lines))
                        if BORDER.match(lines[j]) and (j + 1 == len(lines)
                                                       or not lines[j + 1].strip())), None)
            if end is not None:
                out += _table(lines[i:end + 1], obj)
                i = end + 1
                continue
        if not line.strip():
            out.append(line)
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith(">>>"):
            j += 1
        block = lines[i:j]
        if section in ITEM_SECTIONS:
            converted = _returns(block) if section in ("Returns", "Yields") else None
            # formulas in the descriptions only: a name line (n, m : int) stays as it is
            out += [inline(line, obj, maths=line[:1] in (" ", ":"))
                    for line in (converted or block)]
        elif block[0].startswith("    ") and _formulas(block):  # indented formulas
            out += _formula_lines(block, obj)
        elif block[0].startswith("    "):                 # an indented (code) block
            out += inline("\n".join(block), obj, plain=True).split("\n")
        elif (converted := _definitions(block, obj)) is not None:
            out += converted
        elif _aligned(block):
            out += _formula_lines(block, obj)
        else:
            out += inline("\n".join(block), obj).split("\n")
        i = j
    return "\n".join(out)


class ReSTDocstrings(griffe.Extension):
    """Rewrite each docstring's reST markup as Markdown (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs) -> None:
        # once the whole package is loaded, so that every role's name can be resolved
        todo, seen = [pkg], set()
        while todo:
            obj = todo.pop()
            if obj.is_alias or id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, obj)
            todo.extend(obj.members.values())
