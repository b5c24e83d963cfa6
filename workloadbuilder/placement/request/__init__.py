"""What to place: the runtime groups of one request, their pods, claims and
priorities, read from compiled or runtime objects.
"""
