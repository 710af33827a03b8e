"""The docstrings' plain-text formulas as TeX, for MathJax on the API pages.

The library's docstrings write their formulas in ASCII so that they read well in ``help()``:
``r~`` is r-tilde, ``M^`` M-hat, ``A^T`` a transpose, ``sum_r`` a sum, ``p(r~ | r)``, ``<=``,
``gamma``. :func:`typeset` finds the formulas in a line of prose and returns the line with
each one as ``$TeX$`` (which ``pymdownx.arithmatex`` hands to MathJax, as on the guide's
pages), leaving the words around them as they are.

A formula is a run of atoms joined by operators or set side by side. An atom is a name with
what follows it without a space (tilde, hat, subscripts, powers, primes, arguments,
indices), a number, or a bracket group holding a formula. A run is a formula if it holds a
decorated or applied atom, an operator between two atoms, or is a lone one-letter name.
English words, identifiers (``n_values``, ``sampled_metrics.corrections``, ``top-K``) and
bracket groups holding words end a run, so a sentence stays a sentence.

>>> typeset("reports M^(r~) instead of M(r~), with A^T A")
'reports $\\\\hat{M}(\\\\tilde{r})$ instead of $M(\\\\tilde{r})$, with $A^\\\\top A$'
"""
from __future__ import annotations

import re
from dataclasses import dataclass

GREEK = {"alpha", "beta", "gamma", "delta", "eta", "theta", "kappa", "lambda", "mu", "nu",
         "xi", "pi", "rho", "sigma", "tau", "phi", "chi", "psi", "omega", "Gamma", "Delta",
         "Theta", "Lambda", "Pi", "Sigma", "Phi", "Omega"}
#: named operators (a formula only with an argument after them) and symbols: their TeX
OPERATOR_NAMES = {"sum": r"\sum", "prod": r"\prod", "log": r"\log", "exp": r"\exp",
                  "max": r"\max", "min": r"\min", "sup": r"\sup", "inf": r"\inf",
                  "log2": r"\log_2"}
SYMBOLS = {"chi2": r"\chi^2", "eps": r"\varepsilon", "PI": r"\Pi"}
NAMED = {**OPERATOR_NAMES, **SYMBOLS}
#: words that are subscripts, not English, after a name's underscore (u_mle_j, alpha_max)
SUBSCRIPT_WORDS = {"mle", "max", "min", "bar"}
#: names set upright when applied or decorated: functions, laws, metrics
UPRIGHT = {"argmin", "argmax", "diag", "Var", "Cov", "softmax", "rowsum", "clip", "MES",
           "Binomial", "Hypergeometric", "Hypergeom", "normaliser", "AP", "Prec", "Recall",
           "NDCG", "DCG", "HR", "SHR", "tol", "noise", "rounding"}
#: one-letter words that are English where no operator binds them
ARTICLES = {"a", "I"}
ABBREVIATION = re.compile(r"(?:e\.g|i\.e|cf|vs|et al)\.(?:'s)?|'s\b|\d+-D\b")
NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?(?:e[-+]?\d+)?")
#: words joined by hyphens or @ (top-K, c-scaled, recall@10): text
COMPOUND = re.compile(r"[A-Za-z0-9]+(?:[-@][A-Za-z0-9]+)+")
TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")
DERIVATIVE = re.compile(r"d(pi|[xyPLfq])")
#: operators, longest first: their TeX
OPERATORS = [("...", r"\ldots"), ("<=", r"\le"), (">=", r"\ge"), ("!=", r"\ne"),
             ("->", r"\to"), ("~=", r"\approx"), ("..", r",\ldots,"), ("=", "="), ("+", "+"),
             ("-", "-"), ("*", r"\cdot"), ("/", "/"), ("|", r"\mid"), ("<", r"\lt"),
             (">", r"\gt"), ("~", r"\sim"), (",", ","), (";", ";"), (":", ":")]
#: operators that join two atoms into one formula (not the punctuation , ; :)
JOINING = {op for op, _ in OPERATORS} - {",", ";", ":"} | {"."}
PAIRS = {"(": ")", "[": "]", "{": "}"}
MATH = ("strong", "weak", "num", "func", "article", "in", "times")


@dataclass
class Item:
    """A piece of a line: its TeX, its kind and its source text. Kinds: 'strong'
    (decorated, applied or a Greek name), 'weak' (a bare one-letter name), 'article' (a, A
    or I: a name only where an operator binds it), 'num', 'func' (a named operator, a
    formula only with an argument after it), 'in' and 'times' (the words in and x between
    two atoms), 'op', 'space', 'text'."""
    tex: str
    kind: str
    src: str


def _name_tex(word: str) -> str:
    if word in GREEK:
        return "\\" + word
    if word in NAMED:
        return NAMED[word]
    if len(word) == 1 or word.isdigit():
        return word
    if not word.isalpha() and len(word) <= 3:
        return word                                         # a subscript such as 1r
    return rf"\operatorname{{{word}}}" if word in UPRIGHT else rf"\mathrm{{{word}}}"


def _number_tex(text: str) -> str:
    if "," in text:
        return text.replace(",", "{,}")
    mantissa, _, exponent = text.partition("e")
    if not exponent:
        return text
    power = f"10^{{{int(exponent)}}}"
    return power if mantissa == "1" else rf"{mantissa} \times {power}"


def _close(text: str, i: int) -> int | None:
    """Index of the bracket closing the one at ``i``, or None if it is not closed."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] in PAIRS:
            depth += 1
        elif text[j] in PAIRS.values():
            depth -= 1
            if depth == 0:
                return j if PAIRS[text[i]] == text[j] else None
    return None


def _english(word: str) -> bool:
    return (word.isalpha() and len(word) >= 3 and word not in GREEK and word not in NAMED
            and word not in UPRIGHT and word not in SUBSCRIPT_WORDS)


def _op_tex(item: Item) -> str:
    if item.src == "..":
        return item.tex                                    # 1..m+1: 1, ..., m+1
    return item.tex + " " if item.src in ",;:" else f" {item.tex} "


class _Scanner:
    """Reads one line (or the inside of a bracket group, ``inner``) into items."""

    def __init__(self, text: str, inner: bool = False):
        self.text, self.inner = text, inner

    def items(self) -> list[Item]:
        text, i, out = self.text, 0, []
        while i < len(text):
            ch = text[i]
            if ch == " ":
                j = len(text) - len(text[i:].lstrip(" "))
                out.append(Item(" ", "space", text[i:j]))
                i = j
                continue
            match = ABBREVIATION.match(text, i)
            if match and not (text[i - 1:i].isalnum() and match.group()[0] != "'"):
                out.append(Item("", "text", match.group()))
                i = match.end()
                continue
            if ch == "." and out and out[-1].kind in MATH and text[i + 1:i + 2].isalpha() \
                    and text[i + 1:i + 3] != "." and not text[i - 1:i] == " ":
                out.append(Item(r"\cdot", "op", "."))      # y.P~: a scalar product
                i += 1
                continue
            item, j = self.atom(i)
            if item is None:
                op = next(((o, t) for o, t in OPERATORS if text.startswith(o, i)), None)
                if op is not None and not (op[0] == "~" and text[i + 1:i + 2].isdigit()):
                    item, j = Item(op[1], "op", op[0]), i + len(op[0])
                else:
                    item, j = Item("", "text", ch), i + 1
            out.append(item)
            i = j
        return out

    def formula(self, upright_words: bool, script: bool = False) -> str | None:
        """The whole text as one formula, or None where it holds English words (in a
        subscript, ``upright_words``, they are set upright) or nothing mathematical: only
        numbers are no formula, as in an equation number (8), unless in a ``script``."""
        parts, atoms = [], 0
        for item in self.items():
            if item.kind == "text":
                word = item.src
                if upright_words and re.fullmatch(r"\w+", word):
                    parts.append(r"\text{%s}" % word.replace("_", r"\_"))
                    atoms += 1
                    continue
                if word in "#%&":
                    parts.append("\\" + word)
                    continue
                return None
            atoms += item.kind in MATH and (script or item.kind != "num")
            parts.append(_op_tex(item) if item.kind == "op" else item.tex)
        return re.sub(r"\s+", " ", "".join(parts)).strip() if atoms else None

    def group(self, i: int, upright_words: bool = False,
              script: bool = False) -> tuple[str | None, int]:
        """TeX of the inside of the bracket group at ``i`` and the index after the group;
        None where it is not closed or is no formula (see :meth:`formula`)."""
        j = _close(self.text, i)
        if j is None:
            return None, i
        inside = _Scanner(self.text[i + 1:j], inner=True)
        return inside.formula(upright_words, script), j + 1

    def atom(self, i: int) -> tuple[Item | None, int]:
        text = self.text
        if i and (text[i - 1].isalnum() or text[i - 1] == "_") and text[i] not in PAIRS:
            return None, i
        match = COMPOUND.match(text, i)
        if match and ("@" in match.group() or any(
                _english(part) for part in re.split(r"[-@]", match.group()))):
            return Item("", "text", match.group()), match.end()
        if "0" <= text[i] <= "9":
            match = NUMBER.match(text, i)
            if text[match.end():match.end() + 1].isalpha() or text[match.end():].startswith("_"):
                word = re.compile(r"\d[\w.]*").match(text, i)      # 2.2x, 1st
                return Item("", "text", word.group()), word.end()
            if text.startswith("1[", i):                          # an indicator 1[...]
                inner, j = self.group(i + 1)
                if inner is not None:
                    return self._postfix(rf"\mathbf{{1}}[{inner}]", "strong", i, j, False)
            return Item(_number_tex(match.group()), "num", match.group()), match.end()
        if text[i] in PAIRS:
            inner, j = self.group(i)
            if inner is None:
                return None, i
            left, right = (r"\{", r"\}") if text[i] == "{" else (text[i], PAIRS[text[i]])
            return self._postfix(f"{left}{inner}{right}", "strong", i, j, False)
        if text[i] == "|" and text[i + 1:i + 2] not in ("", " "):
            j = text.find("|", i + 1)                             # |x|: an absolute value
            if j > i + 1 and text[j - 1] != " ":
                inner = _Scanner(text[i + 1:j], inner=True).formula(False)
                if inner is not None:
                    return self._postfix(rf"\lvert {inner} \rvert", "strong", i, j + 1, False)
            return None, i
        match = TOKEN.match(text, i)
        if match is None:
            return None, i
        token = match.group()
        after = text[i + len(token):i + len(token) + 2]
        if (after[:1] == "'" and after[1:].isalpha()) or (
                after[:1] == "." and after[1:].isalpha() and (len(token) > 1 or re.match(
                    r"[A-Za-z]\w", text[i + len(token) + 1:i + len(token) + 3]))):
            chain = re.compile(r"[\w.'\[\]\"]*[\w\]]").match(text, i)  # user's, sm.correct
            return Item("", "text", chain.group()), chain.end()
        parts = token.split("_")
        if any(_english(part) for part in parts[1:]) or (
                after[:1] == "_" and after[1:] != "{") or (
                _english(parts[0]) and any(len(p) > 1 and p.isalpha() for p in parts[1:])):
            word = re.compile(r"\w+(?:\[[^\]]*\])*").match(text, i)  # n_values[j], max_iter
            return Item("", "text", word.group()), word.end()
        name = re.compile(r"[A-Za-z][A-Za-z0-9]*").match(text, i).group()
        j = i + len(name)
        nxt = text[j:j + 1]
        if name == "in" and nxt in ("", " "):
            return Item(r"\in", "in", name), j
        if name == "x" and nxt in ("", " ") and text[i - 1:i] == " ":
            return Item(r"\times", "times", name), j
        if name == "E" and nxt == "[":
            inner, k = self.group(j)
            if inner is not None:
                return self._postfix(rf"\mathbb{{E}}[{inner}]", "strong", i, k, False)
        if name in ("sqrt", "floor", "ceil") and nxt == "(":
            inner, k = self.group(j)
            if inner is not None:
                tex = {"sqrt": rf"\sqrt{{{inner}}}", "floor": rf"\lfloor {inner} \rfloor",
                       "ceil": rf"\lceil {inner} \rceil"}[name]
                return self._postfix(tex, "strong", i, k, False)
        prefix = ""
        derivative = DERIVATIVE.fullmatch(name)
        if derivative:
            prefix, name = r"\mathrm{d}", derivative.group(1)
        if len(name) == 1:
            article = name in ARTICLES or name == "A" and self._sentence_start(i)
            kind = "article" if article and not self.inner and not prefix else "weak"
        elif name in GREEK or name in SYMBOLS:
            kind = "strong"
        elif name in OPERATOR_NAMES or name in UPRIGHT:
            kind = "func"
        else:
            kind = "word"
        return self._postfix(_name_tex(name), kind, i, j, True, prefix)

    def _sentence_start(self, i: int) -> bool:
        before = self.text[:i].rstrip()
        return not before or before[-1] in ".:;("

    def _subscript(self, j: int) -> tuple[str | None, int]:
        """The subscript after the ``_`` at ``j``: a word or a group, with its own tilde or
        hat (sum_r~, argmin_M^)."""
        text = self.text
        if text[j + 1:j + 2] == "{":
            return self.group(j + 1, upright_words=True, script=True)
        word = re.compile(r"[A-Za-z0-9]+").match(text, j + 1)
        if word is None:
            return None, j
        tex, k = _name_tex(word.group()), word.end()
        mark = text[k:k + 1]
        if mark in "~^" and mark and not text[k + 1:k + 2].isalnum() \
                and text[k + 1:k + 2] not in "{(=" and len(word.group()) == 1:
            tex, k = (r"\tilde{%s}" if mark == "~" else r"\hat{%s}") % tex, k + 1
        return tex, k

    def _postfix(self, tex: str, kind: str, start: int, j: int, bare: bool, prefix=""):
        """The item from ``start`` to ``j`` with the decorations that follow it without a
        space: ~ (tilde), ^ (hat, power, transpose), _ (subscript; _bar: a bar), ' (a
        prime), (arguments), [indices]. ``bare``: a name, not yet decorated."""
        text = self.text
        subscripts: list[str] = []
        while j < len(text):
            ch, after = text[j], text[j + 1:j + 2]
            if ch == "~" and bare and not (after == "=" and text[j + 2:j + 3] == " "):
                tex, bare, j = rf"\tilde{{{tex}}}", False, j + 1
            elif ch == "^" and after == "T" and not text[j + 2:j + 3].isalnum():
                tex, j = tex + r"^\top", j + 2
            elif ch == "^" and (after == "{" or after == "(" and not bare):
                inner, k = self.group(j + 1, script=True)
                if inner is None:
                    break
                tex, j = f"{tex}^{{{inner}}}", k
            elif ch == "^" and after and (after.isdigit() or after in "+-"):
                power = re.compile(r"[+-]?\d*").match(text, j + 1).group() or after
                tex, j = f"{tex}^{{{power}}}", j + 1 + len(power)
            elif ch == "^" and bare and not subscripts and not after.isalnum():
                tex, bare, j = rf"\hat{{{tex}}}", False, j + 1
            elif ch == "_" and text.startswith("bar", j + 1) and not text[j + 4:j + 5].isalnum():
                tex, bare, j = rf"\bar{{{tex}}}", False, j + 4
            elif ch == "_" and after:
                sub, k = self._subscript(j)
                if sub is None:
                    break
                if subscripts:                           # u_mle_j: one subscript, mle, j
                    tex = tex[:tex.rindex("_{")]
                subscripts.append(sub)
                tex, j, bare = f"{tex}_{{{','.join(subscripts)}}}", k, False
            elif ch == "'" and bare and (j - start == 1 or text[start:j] in GREEK) \
                    and not after.isalpha():
                tex, j = tex + "'", j + 1
            elif ch in "([" and (kind != "word" or ch == "(" and self._argument(j)):
                inner, k = self.group(j, script=True)          # P(1): numbers are arguments
                if inner is None:
                    break
                tex, j = f"{tex}{ch}{inner}{PAIRS[ch]}", k
            else:
                break
            if kind in ("word", "func", "weak", "article"):
                kind = "strong"
        if kind == "word":
            return Item("", "text", text[start:j]), j
        return Item(prefix + tex, kind, text[start:j]), j

    def _argument(self, j: int) -> bool:
        """Whether the group at ``j`` is the argument of a function a word names (with a
        decorated atom or an operator in it: normaliser(k_u), not rank(s))."""
        end = _close(self.text, j)
        if end is None:
            return False
        inside = _Scanner(self.text[j + 1:end], inner=True).items()
        return all(a.kind != "text" for a in inside) and any(
            a.kind == "strong" or a.kind == "op" and a.src in JOINING for a in inside)


def _spans(items: list[Item]) -> list[tuple[int, int]]:
    """(first, last + 1) of the items of each formula of a line."""
    runs, k = [], 0
    while k < len(items):
        if items[k].kind not in MATH:
            k += 1
            continue
        j, end = k, k + 1
        while j < len(items) and items[j].kind in (*MATH, "op", "space") and not (
                items[j].kind == "space" and len(items[j].src) >= 3):   # a column gap
            if items[j].kind in MATH:
                end = j + 1
            j += 1
        runs.append((k, end))
        k = j
    spans = []
    for first, last in runs:
        spans += _split(items, first, last)
    return spans


def _joined(items: list[Item], k: int) -> bool:
    """Whether an operator binds the atom at ``k`` to an atom beside it."""
    for step in (-1, 1):
        j = k + step
        while 0 <= j < len(items) and items[j].kind == "space":
            j += step
        if 0 <= j < len(items) and items[j].kind == "op" and items[j].src in JOINING:
            j += step
            while 0 <= j < len(items) and items[j].kind == "space":
                j += step
            if 0 <= j < len(items) and items[j].kind in MATH:
                return True
    return False


def _split(items: list[Item], first: int, last: int) -> list[tuple[int, int]]:
    """The formulas of a run of atoms, operators and spaces: an article or a lone named
    operator not bound by an operator, and an 'in' or 'x' without atoms on both sides, are
    words and split the run."""
    breaks = []
    for k in range(first, last):
        kind = items[k].kind
        if kind == "article" and not _joined(items, k):
            breaks.append(k)
        elif kind in ("in", "times") and not _joined_both(items, k):
            breaks.append(k)
        elif kind == "func" and not _followed(items, k, last):
            breaks.append(k)
    spans, start = [], first
    for k in [*breaks, last]:
        if start < k:
            spans.append(_trim(items, start, k))
        start = k + 1
    return [s for s in spans if s is not None]


def _followed(items, k, last) -> bool:
    j = k + 1
    while j < last and items[j].kind == "space":
        j += 1
    return j < last and items[j].kind in MATH and items[j].kind not in ("in", "times")


def _joined_both(items, k) -> bool:
    left = k - 1
    while left >= 0 and items[left].kind == "space":
        left -= 1
    right = k + 1
    while right < len(items) and items[right].kind == "space":
        right += 1
    return (left >= 0 and items[left].kind in ("strong", "weak", "num")
            and right < len(items) and items[right].kind in ("strong", "weak", "num"))


def _trim(items, first, last):
    """The span without the operators and spaces at its ends, if it is a formula."""
    while first < last and items[first].kind in ("op", "space"):
        first += 1
    while last > first and items[last - 1].kind in ("op", "space"):
        last -= 1
    part = items[first:last]
    atoms = [a for a in part if a.kind in MATH]
    if not atoms:
        return None
    strong = any(a.kind == "strong" for a in atoms)
    joined = any(a.kind == "op" and a.src in JOINING for a in part) and any(
        a.kind in ("weak", "strong", "article", "func") for a in atoms)
    letter = len(atoms) == 1 and atoms[0].kind == "weak"
    return (first, last) if strong or joined or letter else None


def _line(text: str) -> list[tuple[bool, str]]:
    """(is a formula, text) pieces of one line."""
    items = _Scanner(text).items()
    pieces, k = [], 0
    for first, last in _spans(items):
        lead = first          # an operator opening a line continues the formula above it
        while lead > 0 and items[lead - 1].kind in ("op", "space"):
            lead -= 1
        if lead == 0 and any(a.kind == "op" and a.src in JOINING for a in items[:first]):
            first = next(n for n, a in enumerate(items) if a.kind == "op")
        if k < first:
            pieces.append((False, "".join(a.src for a in items[k:first])))
        tex = "".join(_op_tex(a) if a.kind == "op" else a.tex for a in items[first:last])
        pieces.append((True, re.sub(r"\s+", " ", tex).strip()))
        k = last
    if k < len(items):
        pieces.append((False, "".join(a.src for a in items[k:])))
    return pieces


def pieces(text: str) -> list[tuple[bool, str]]:
    """(is a formula, text) pieces of ``text``, line by line (no formula spans lines)."""
    out: list[tuple[bool, str]] = []
    for n, line in enumerate(text.split("\n")):
        if n:
            out.append((False, "\n"))
        out += _line(line)
    return out


def typeset(text: str) -> str:
    """``text`` with each formula as ``$TeX$``."""
    return "".join(f"${piece}$" if is_math else piece for is_math, piece in pieces(text))
