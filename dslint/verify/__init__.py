"""``dslint verify``: run the user's own loaders under probes and turn findings into evidence.

Parent side (this package): target parsing, the supervisor that runs the target in its own
session, verdicts, reports and the ``--fix`` flow. Child side (``child/``): the code the
generated ``sitecustomize`` injects into the target's processes.
"""
