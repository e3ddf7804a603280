"""``toposched controller`` refuses options that cannot work before connecting to anything."""

from __future__ import annotations

from typer.testing import CliRunner

from toposched.cli.main import app


def test_sync_mode_without_the_service_store_is_refused() -> None:
    result = CliRunner().invoke(app, ["controller", "--mode", "sync"])
    assert result.exit_code == 2
    assert "--db: is missing" in result.output


def test_an_unknown_mode_is_refused() -> None:
    result = CliRunner().invoke(app, ["controller", "--mode", "scheduler"])
    assert result.exit_code == 2
    assert "ungater" in result.output and "sync" in result.output


def test_a_renew_deadline_not_below_the_lease_duration_is_refused() -> None:
    result = CliRunner().invoke(app, ["controller", "--lease-duration", "15", "--renew-deadline", "15"])
    assert result.exit_code == 2
    assert result.output.splitlines() == [
        "--renew-deadline: 15s with a lease of 15s (renew within the lease: 0 < --renew-deadline < --lease-duration)"
    ]
