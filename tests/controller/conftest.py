"""Fixtures for the controller's client layer: the Kubernetes API test double and a client on it."""

from collections.abc import Iterator

import pytest
from kubernetes.client import Configuration
from tests.controller.kube_test_server import KubeTestServer

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
