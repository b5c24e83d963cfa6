"""The bounds on input size that keep every step's work proportional to what the user wrote.

Two kinds of bound live here, each with where it comes from:

- **Kubernetes' own limits**: what the apiserver or a controller's webhook
  refuses anyway, so refusing it here changes no valid object.
- **The engine's practical bounds**: sizes beyond anything a cluster runs,
  where planning, compiling or placing would allocate per pod or per group
  until memory runs out. Above them the user gets a field error at the count's
  path before anything is allocated, never a ``MemoryError`` or a run that
  does not end.

Every count is checked where it is read (``workloadbuilder._internal.fields_read``),
and every YAML or JSON text where it is parsed (``workloadbuilder._internal.textread``).
"""

from __future__ import annotations

__all__ = [
    "INT32_MAX",
    "MAX_ALIAS_NODES",
    "MAX_COPIES",
    "MAX_INDEXED_COMPLETIONS",
    "MAX_INPUT_BYTES",
    "MAX_LWS_REPLICAS",
    "MAX_MESSAGE_VALUE",
    "MAX_NESTING",
    "MAX_NODES",
    "MAX_PODS",
    "MAX_RUNTIME_GROUPS",
    "MAX_SECONDS",
    "MAX_TIMEOUT",
    "MAX_WHOLE_MESSAGE_VALUE",
]

INT32_MAX = 2**31 - 1
"""Kubernetes: every count of the controllers' APIs (replicas, parallelism, size, numNodes) is an ``int32``."""

MAX_INDEXED_COMPLETIONS = 100_000
"""Kubernetes: an Indexed Job's ``completions`` and ``parallelism`` (``completionsSoftLimit`` of the Job API)."""

MAX_LWS_REPLICAS = 1_000_000
"""Kubernetes: the LeaderWorkerSet webhook's ``replicas must be equal or less than 1000000``."""

MAX_PODS = 100_000
"""The engine: pods one object may plan. kube-scheduler's own scale tests stop at 5,000 nodes and 30,000 pods;
placement and pod assignments grow with every pod, so a count past this is refused at its path."""

MAX_RUNTIME_GROUPS = 10_000
"""The engine: runtime PodGroups and CompositePodGroups one object may make (each is a whole object in memory
and in the output). kube-scheduler's gang benchmarks schedule at most 3,000 gangs."""

MAX_NODES = 200_000
"""The engine: nodes a generated cluster may have (and each level's fan-out). kube-scheduler is tested at 5,000
nodes; the engine's benchmarks place on 50,000."""

MAX_NESTING = 100
"""The engine: how deep a YAML or JSON document may nest. Kubernetes objects nest about 20 levels (a pod
template inside a JobSet); 100 leaves room and keeps every recursive step (reading, copying, writing) far
from Python's recursion limit, in any thread."""

MAX_ALIAS_NODES = 100_000
"""The engine: how many nodes YAML aliases may add to a document when expanded (an alias bomb adds billions);
a manifest that shares a container's environment a hundred times adds a few thousand."""

MAX_MESSAGE_VALUE = 1000
"""The engine: characters of a bad value an error message shows before it elides the rest (``...``). Any name
or label Kubernetes allows fits whole; a huge value (a 5 MB annotation, an expanded list) is neither rendered
nor walked past this."""

MAX_WHOLE_MESSAGE_VALUE = 1 << 20
"""The engine: characters shown of a bad value the apiserver's message carries whole, and whose exact text users
compare (a too-deep template tree, rendered as Go's internal types: about 1,300 characters at the smallest, more
for each template below). Past 1 MiB it is elided too: no apiserver request renders a larger one in practice."""

MAX_COPIES = 100_000
"""The engine: copies one planning command may place, over a whole ``simulate`` queue (every entry's ``count``
together) and for ``capacity`` (what it counts and a ``target``). Each copy is a placement of its own."""

MAX_SECONDS = 10**9
"""The engine: the largest ``arrival`` or ``duration`` of a ``simulate`` queue, in seconds (about 31 years), so
that every sum of them is a finite number; NaN and infinities are refused outright."""

MAX_TIMEOUT = 86_400.0
"""The engine: the largest time bound a command or ``place`` takes, in seconds (one day). Larger is no bound."""

MAX_INPUT_BYTES = 256 << 20
"""The engine: bytes of one input file or of stdin (256 MiB); a kubectl dump of 50,000 nodes is about 150 MB.
Inputs are read in chunks and refused once past it, so an endless stream (``/dev/zero``) ends."""
