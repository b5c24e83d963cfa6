"""The cluster model: nodes, running pods and groups, device pools, and the
readers that build it (kubectl dumps, compact YAML, generated clusters).
"""
