"""Code that runs inside the target's processes, injected by the generated sitecustomize.

Kept light: nothing here imports torch until the target does.
"""
