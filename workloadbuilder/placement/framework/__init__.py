"""One scheduling cycle's parts: the snapshot of free capacity, scoring,
topology spread, claims, outcomes, preemption and the queue order.
"""
