"""``python -m toposched ...``: the ``toposched`` command (e.g. ``python -X importtime -m toposched
place ...`` shows what a command imports)."""

from toposched.cli.main import app

if __name__ == "__main__":
    app(prog_name="toposched")
