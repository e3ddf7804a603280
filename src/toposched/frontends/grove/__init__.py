"""Grove front end (GREP-369 dialect): PodCliqueSet / OperatorConfiguration parsing (the
ClusterTopology reader of ``toposched.wire.grove`` is re-exported), admission, PodCliqueSet →
PodGangs and KAI PodGroups, and PodCliqueSet → IR."""

from toposched.frontends.grove.admission import Admission, Operation, Resource, admit, topologies_of
from toposched.frontends.grove.gang import to_gang
from toposched.frontends.grove.kai import KaiPodGroup, build_kai_podgroup, kai_topology, queue_of
from toposched.frontends.grove.load import DEFAULT_OPERATOR_CONFIG, GroveWorkload, load_grove
from toposched.frontends.grove.objects import (
    DEFAULT_TOPOLOGY,
    KAI_SCHEDULER,
    MANAGED_BY,
    OPERATOR,
    Clique,
    Constraint,
    OperatorConfig,
    PodCliqueSet,
    ScalingGroup,
    parse_operator_config,
    parse_podcliqueset,
)
from toposched.frontends.grove.podgang import (
    TOPOLOGY_NAME,
    BuiltPodGang,
    build_podgangs,
    is_podgang_of,
    translate,
)
from toposched.wire.grove import (
    ClusterTopology,
    Level,
    SchedulerReference,
    is_cluster_topology,
    parse_cluster_topology,
)

__all__ = [
    "DEFAULT_OPERATOR_CONFIG",
    "GroveWorkload",
    "is_cluster_topology",
    "load_grove",
    "DEFAULT_TOPOLOGY",
    "KAI_SCHEDULER",
    "MANAGED_BY",
    "OPERATOR",
    "TOPOLOGY_NAME",
    "Admission",
    "BuiltPodGang",
    "Clique",
    "ClusterTopology",
    "Constraint",
    "KaiPodGroup",
    "Level",
    "Operation",
    "OperatorConfig",
    "PodCliqueSet",
    "Resource",
    "ScalingGroup",
    "SchedulerReference",
    "admit",
    "build_kai_podgroup",
    "kai_topology",
    "build_podgangs",
    "is_podgang_of",
    "parse_cluster_topology",
    "parse_operator_config",
    "parse_podcliqueset",
    "queue_of",
    "to_gang",
    "topologies_of",
    "translate",
]
