"""stepeval: evaluate hands-on AWS lab steps, read-only, under the seed contract."""


def __getattr__(name: str) -> str:
    """`harness.__version__`: pyproject.toml's version as installed, read when asked (importlib.metadata costs
    ~70 ms to import, which every evaluation process would pay for nothing)."""
    if name != "__version__":
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("stepeval")
    except PackageNotFoundError:  # a checkout on sys.path without `pip install`: no metadata to read
        return "0+unknown"
