"""Element types by name: what empty() and zeros() take, the same codes as symmetra::DataType."""

NAMES = (
    "int8",
    "uint8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
)
_CODES = {name: code for code, name in enumerate(NAMES)}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "long": "int64"}


def dtype_code(dtype, op):
    """The DataType code of `dtype`: a name ('float32'), a NumPy dtype or scalar type, a torch
    dtype (torch.bfloat16), or Python's float and int (float64, int64)."""
    if dtype is float:
        name = "float64"
    elif dtype is int:
        name = "int64"
    elif isinstance(dtype, str):
        name = dtype
    else:
        name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
    name = str(name)
    if name.startswith("torch."):
        name = name[len("torch."):]
    name = _ALIASES.get(name, name)
    if name not in _CODES:
        raise ValueError(f"{op}: dtype {dtype!r} is not one Symmetra takes: {', '.join(NAMES)}")
    return _CODES[name]
