"""``python -m tests.realkube`` (from the repository root): builds the binaries if needed
(testenv/build.sh), starts the tests' control plane with toposched's CRDs, prints its kubeconfig
and keeps it running until Ctrl-C or SIGTERM, then stops it and removes its files."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from types import FrameType

from tests.realkube.binaries import BUILD_SCRIPT, Binaries
from tests.realkube.control_plane import FEATURE_GATES, RUNTIME_CONFIG, running_control_plane
from tests.realkube.crds import install_crds
from tests.realkube.processes import ControlPlaneError


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def main() -> int:
    built = subprocess.run([str(BUILD_SCRIPT)], stdout=subprocess.PIPE, text=True, check=False)
    if built.returncode != 0 or not built.stdout.strip():
        print(f"{BUILD_SCRIPT} failed (exit {built.returncode})", file=sys.stderr)
        return 1
    binaries = Binaries(Path(built.stdout.strip().splitlines()[-1]))
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        with running_control_plane(binaries) as plane:
            crds = install_crds(plane)
            print(f"kube-apiserver {plane.url} (etcd and its files in {plane.folder})")
            print(f"feature gates: {', '.join(FEATURE_GATES)}; API versions: {', '.join(RUNTIME_CONFIG)}")
            print(f"CRDs: {', '.join(crds)}")
            print(f"export KUBECONFIG={plane.kubeconfig}")
            print("Ctrl-C stops it and removes its files.", flush=True)
            signal.pause()
    except KeyboardInterrupt:
        return 0
    except ControlPlaneError as exc:
        print(f"the control plane did not start: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
