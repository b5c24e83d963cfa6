"""The runtime hierarchy a controller creates from a compiled Workload: the linked PodGroups and
CompositePodGroups (``hierarchy``), their names (``naming``), groups handed down to child objects
(``delegation``) and resizing a gang (``resizing``)."""
