"""Shared helpers of the generators of NumPy-checked TFL programs."""


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
