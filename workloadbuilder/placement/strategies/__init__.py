"""The placement strategies: ``kube-scheduler`` (what kube-scheduler 1.37 does)
and ``complete`` (an exact search, with its OR-tools solver and node
classes).
"""
