"""Kueue encodings and results: TopologyAssignment v1beta1 / v1beta2 (encoders and validating
decoders), the Workload admission patch and the ungater's pod patches."""

from toposched.emit.kueue.objects import node_selector_patches, workload_status_patch
from toposched.emit.kueue.v1beta1 import from_v1beta1, to_v1beta1
from toposched.emit.kueue.v1beta2 import V1Beta2Encoding, to_v1beta2
from toposched.emit.kueue.v1beta2_decode import from_v1beta2

__all__ = [
    "to_v1beta1",
    "from_v1beta1",
    "to_v1beta2",
    "V1Beta2Encoding",
    "from_v1beta2",
    "workload_status_patch",
    "node_selector_patches",
]
