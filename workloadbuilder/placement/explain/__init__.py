"""Why a root was or was not placed: FitError lines, per-level reports, gang
interplay, preemption reports and their wording.
"""
