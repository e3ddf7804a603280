"""A real Kubernetes control plane for the tests: etcd and kube-apiserver built from their Go
modules by testenv/build.sh, started on loopback ports with generated certificates, RBAC on, and
toposched's CRDs installed (the ``real_apiserver`` fixture; ``python -m tests.realkube`` starts the
same one by hand)."""
