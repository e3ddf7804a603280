"""toposched's controller as a contender of the throughput stream (``stream.Contender``).

``toposched controller --mode ungater`` runs as its own process against the control plane, as
the cluster admin, watching the stream's namespace only; kube-scheduler does not run. Pods are
written with the controller's scheduling gate; a pod is placed when the controller has taken
the gate off and pinned it to its node (node selector). ``profile``: the controller runs under
cProfile and writes its profile (main thread: the reconcile steps) there when stopped.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.realkube.binaries import Binaries
from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError, Process
from tests.realkube.sidebyside.api import AdminApi, ApiError
from tests.realkube.sidebyside.stream import NAMESPACE

from toposched.controller.keys import GATE, is_gated

SOURCE = Path(__file__).resolve().parents[3] / "src"  # this tree's toposched, whatever is installed
IDENTITY = "throughput-bench"
LEASE = "/apis/coordination.k8s.io/v1/namespaces/toposched-system/leases/toposched-ungater"
READY_TIMEOUT = 120.0


class ToposchedControllerContender:
    name = "toposched"

    def __init__(self, interval: float = 0.05, profile: Path | None = None) -> None:
        self.interval = interval
        self.profile = profile
        self._process: Process | None = None

    def argv(self, kubeconfig: Path) -> list[str]:
        boot = f"import sys; sys.path.insert(0, {str(SOURCE)!r}); "
        if self.profile is not None:
            boot += (
                "import cProfile; from toposched.cli.main import app; "
                f"cProfile.run(\"app(prog_name='toposched')\", {str(self.profile)!r})"
            )
        else:
            boot += "from toposched.cli.main import app; app(prog_name='toposched')"
        return [
            sys.executable,
            "-c",
            boot,
            "controller",
            "--mode=ungater",
            f"--kubeconfig={kubeconfig}",
            f"--namespace={NAMESPACE}",
            f"--identity={IDENTITY}",
            "--metrics-port=0",
            f"--interval={self.interval}",
        ]

    def start(self, plane: ControlPlane, binaries: Binaries) -> None:
        api = AdminApi(plane)
        try:
            try:
                api.create("/api/v1/namespaces", {"metadata": {"name": "toposched-system"}})
            except ApiError as exc:
                if exc.status != 409:
                    raise
            log = plane.folder / "toposched-controller.log"
            self._process = Process("toposched controller", self.argv(plane.kubeconfig), log)
            self._process.wait_until(lambda: _holds_lease(api), READY_TIMEOUT, "holding its Lease")
        except BaseException:
            self.stop()
            raise
        finally:
            api.close()

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return {**pod, "spec": {**pod["spec"], "schedulingGates": [{"name": GATE}]}}

    def placed(self, pod: Mapping[str, Any]) -> bool:
        spec = pod.get("spec") or {}
        return not is_gated(pod) and bool(spec.get("nodeSelector") or spec.get("affinity"))

    def stop(self) -> None:
        if self._process is not None:
            self._process.stop()
            if self.profile is not None and not self.profile.exists():
                raise ControlPlaneError(f"the controller wrote no profile: {self._process.log_tail()}")


def _holds_lease(api: AdminApi) -> bool:
    try:
        lease = api.get(LEASE)
    except ApiError as exc:
        if exc.status == 404:
            return False
        raise
    return bool((lease.get("spec") or {}).get("holderIdentity") == IDENTITY)
