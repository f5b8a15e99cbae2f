"""Shared helpers of the generators of NumPy-checked TFL programs."""

import numpy as np


def literal(a):
    """A NumPy array as a TFL nested list literal. Floats are written with
    the exact decimal of each value (as a double), so TFL reads the same
    float32 numbers NumPy holds."""
    if a.ndim == 0:
        v = a.item()
        if isinstance(v, bool):
            return "True" if v else "False"
        return repr(float(v)) if a.dtype.kind == "f" else str(int(v))
    return "[" + ", ".join(literal(x) for x in a) + "]"


def fd(f, args, i, h=1e-6):
    """d f(*args) / d args[i] by central differences, in float64."""
    g = np.zeros(np.shape(args[i]))
    for k in np.ndindex(g.shape):
        up = [np.array(a, dtype=np.float64) for a in args]
        down = [np.array(a, dtype=np.float64) for a in args]
        up[i][k] += h
        down[i][k] -= h
        g[k] = (f(*up) - f(*down)) / (2 * h)
    return g


def tuple_text(values):
    """A tuple of arrays as TFL prints it."""
    return ("(" + ", ".join(str(v) for v in values) +
            (",)" if len(values) == 1 else ")"))


def write_case_files(tfl_path, expected_path, lines, expected):
    """Writes a generated program (one line each) and its expected output."""
    with open(tfl_path, "w") as out:
        out.write("\n".join(lines) + "\n")
    with open(expected_path, "w") as out:
        out.write("\n".join(expected) + "\n")


def write_program(tfl_path, expected_path, defs, calls, expected):
    """Writes a generated program (its definitions first, so that functions
    see all of them, then its statements) and its expected output."""
    with open(tfl_path, "w") as out:
        out.write("\n\n".join(defs) + "\n\n" + "\n".join(calls) + "\n")
    with open(expected_path, "w") as out:
        out.write("\n".join(expected) + "\n")
