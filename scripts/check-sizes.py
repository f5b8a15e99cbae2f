#!/usr/bin/python3
"""Fails when a source file of ours is over 800 lines, or a C++ function
over 80, unless scripts/size-allowlist.txt names it with a size it has not
outgrown. The list may only shrink: an entry whose file or function is
within the house's limits is an error too, so that a split is recorded
when it lands.

Functions are found in clang-formatted code (check-format.sh runs first):
a declaration that starts a line at some indentation, holds a parameter
list and ends its line with "{", up to the first line that is that
indentation's "}" (or "};"). Lambdas and blocks inside a function count
toward it. Namespaces (not indented in LLVM style) and class bodies are
looked into; initializers ("= {", "x{") and control statements are not
functions.

Usage: scripts/check-sizes.py [--root DIR]   (DIR: a git checkout; this
one by default)
"""
import re
import subprocess
import sys
from pathlib import Path

FILE_LIMIT = 800
FUNCTION_LIMIT = 80
ROOT = Path(__file__).resolve().parent.parent
if sys.argv[1:2] == ["--root"]:
    ROOT = Path(sys.argv[2]).resolve()
ALLOWLIST = ROOT / "scripts" / "size-allowlist.txt"
CODE = re.compile(r"\.(cpp|h|c|cu|cuh|td|py|sh)$")
CPP = re.compile(r"\.(cpp|h|c|cu|cuh)$")
CONTROL = re.compile(
    r"^(if|else|for|while|do|switch|case|default|return|try|catch)\b")
CONTINUATIONS = (":", "->", "const", "noexcept", "override", "final",
                 "requires", "{", "&")
NOT_FUNCTION = re.compile(
    r"^(namespace|class|struct|union|enum|extern|typedef|using)\b")


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return [f for f in out.splitlines() if CODE.search(f)]


def indentation(line):
    return len(line) - len(line.lstrip(" "))


def functions(lines):
    """(name, first line, line count) of each function in a C++ file."""
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        if (not text or text.startswith(("//", "#", "}", "*", "/*"))
                or CONTROL.match(text) or NOT_FUNCTION.match(text)):
            i += 1
            continue
        # The declaration's lines: until its parentheses balance at the end
        # of a line that ends it ("{", ";", "}"), or that nothing continues
        # (a constructor's initializers, a trailing return type, qualifiers
        # and the body's brace may follow on their own lines).
        indent = indentation(line)
        j = i
        header = text
        while True:
            code_so_far = re.sub(r"//.*", "", header).rstrip()
            depth = code_so_far.count("(") - code_so_far.count(")")
            if depth <= 0 and re.search(r"[{;}]$", code_so_far):
                break
            following = lines[j + 1].strip() if j + 1 < len(lines) else ""
            # (a line ending with a comma: more initializers follow)
            if depth <= 0 and not following.startswith(CONTINUATIONS) \
                    and not code_so_far.endswith(","):
                break
            if j + 1 >= len(lines) or j - i >= 20:
                break
            j += 1
            header += " " + lines[j].strip()
        code = re.sub(r"//.*", "", header).rstrip()
        ends_block = code.endswith("{")
        # (Not a function: an initializer, "x = {" or "x{" before any
        # parenthesis.)
        if not ends_block or "(" not in code or re.search(r"=\s*\{$", code) \
                or re.search(r"(^|[^=!<>])=[^=]", code.split("(")[0]) \
                or "{" in code.split("(")[0]:
            i = j + 1
            continue
        # The body ends at this indentation's closing brace.
        # ("}};": a lambda's brace, then its braced initializer's.)
        close = re.compile(r"^ {%d}\}\}?[;,)]*\s*(//.*)?$" % indent)
        k = j + 1
        while k < len(lines) and not close.match(lines[k]):
            k += 1
        if k == len(lines):
            i = j + 1
            continue
        name = re.match(r"([^(]*)\(", code).group(1).split()
        name = name[-1].lstrip("*&") if name else "?"
        # A member defined in its class: the class's name first, so that
        # two classes' matchAndRewrite are two entries.
        if indent > 0 and "::" not in name:
            for back in range(i - 1, -1, -1):
                outer = lines[back]
                if outer.strip() and indentation(outer) < indent:
                    owner = re.match(r"\s*(?:template <.*> )?(?:class|struct)"
                                     r"\s+(\w+)", outer)
                    if owner:
                        name = owner.group(1) + "::" + name
                        break
                    if not outer.strip().startswith(("//", "public",
                                                     "private", "protected")):
                        break
        found.append((name, i + 1, k - i + 1))
        i = k + 1
    return found


def measure():
    """{key: size} of everything over the limits: "path" for a file,
    "path:function" for a function (overloads: the longest)."""
    over = {}
    for path in tracked_files():
        lines = (ROOT / path).read_text(errors="replace").splitlines()
        if len(lines) > FILE_LIMIT:
            over[path] = len(lines)
        if CPP.search(path):
            for name, _, count in functions(lines):
                if count > FUNCTION_LIMIT:
                    key = f"{path}:{name}"
                    over[key] = max(over.get(key, 0), count)
    return over


def read_allowlist():
    allowed = {}
    if not ALLOWLIST.exists():
        return allowed
    for line in ALLOWLIST.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            key, size = line.rsplit(None, 1)
            allowed[key] = int(size)
    return allowed


def main():
    over = measure()
    allowed = read_allowlist()
    errors = []
    for key, size in sorted(over.items()):
        limit = FILE_LIMIT if ":" not in key else FUNCTION_LIMIT
        if key not in allowed:
            errors.append(f"{key}: {size} lines, over the limit of {limit}")
        elif size > allowed[key]:
            errors.append(f"{key}: {size} lines, grown past its listed "
                          f"{allowed[key]}")
    for key in sorted(allowed):
        if key not in over:
            errors.append(f"{key}: within the limits now (or gone); remove "
                          "its entry from scripts/size-allowlist.txt")
    for e in errors:
        print(f"check-sizes: {e}", file=sys.stderr)
    if errors:
        return 1
    print(f"check-sizes: ok ({len(allowed)} listed over the limits)")
    return 0


sys.exit(main())
