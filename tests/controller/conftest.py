"""Fixtures for the controller's tests: the real API server's share of one test and the
controller's ServiceAccounts on it (``real_cluster``, ``controller_accounts``), and the Kubernetes
API test double with a client on it, for the error paths a real server cannot be made to produce."""

from collections.abc import Iterator

import pytest
from kubernetes.client import Configuration
from tests.controller.kube_test_server import KubeTestServer
from tests.controller.real_cluster import ControllerAccounts, RealCluster
from tests.controller.real_cluster import controller_accounts as accounts_for
from tests.realkube.control_plane import ControlPlane

from toposched.controller.rest import RestKubeApi


@pytest.fixture
def kube_test_server() -> Iterator[KubeTestServer]:
    """A started test double of the API server; seed it with ``add``, ``add_node``, ``add_pod``."""
    server = KubeTestServer().start()
    yield server
    server.stop()


@pytest.fixture
def kube_api(kube_test_server: KubeTestServer) -> Iterator[RestKubeApi]:
    """``RestKubeApi`` (the official client library underneath) talking to the test double."""
    api = RestKubeApi(Configuration(host=kube_test_server.url), request_timeout=10)
    yield api
    api.close()


@pytest.fixture(scope="session")
def controller_accounts(real_apiserver: ControlPlane) -> ControllerAccounts:
    """deploy/'s ServiceAccounts and RBAC on the real API server, a kubeconfig for each."""
    return accounts_for(real_apiserver)


@pytest.fixture
def real_cluster(real_apiserver: ControlPlane) -> Iterator[RealCluster]:
    """This test's namespace, nodes and topologies on the real API server (removed after it)."""
    cluster = RealCluster(real_apiserver)
    yield cluster
    cluster.close()
