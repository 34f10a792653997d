"""The byte-level pre-filter: which files are summarised up front (seed), when an import
connects them to a seed (candidate), or only on demand (skip)."""

from __future__ import annotations

from dslint import prefilter


def test_loader_words_make_a_seed_and_handling_words_a_candidate():
    assert prefilter.tier(b"from torch.utils.data import DataLoader\n") == prefilter.SEED
    assert prefilter.tier(b"def run(model, train_loader):\n    pass\n") == prefilter.CANDIDATE
    assert prefilter.tier(b"def add(a, b):\n    return a + b\n") == prefilter.SKIP


def test_a_call_statement_at_module_level_makes_a_candidate():
    """``run.py`` doing ``from train import main`` then ``main()`` starts the training at
    import time: it must be read when it imports a seed (DSL101)."""
    for source in (b"from train import main\n\nmain()\n", b"main()\n", b"import sys\nsys.exit(main())\n",
                   b"import fire\nfire.Fire(main)\n"):
        assert prefilter.tier(source) == prefilter.CANDIDATE, source
    for source in (b"from train import main\n\nif __name__ == '__main__':\n    main()\n",
                   b"print('hello')\n", b"def f():\n    g()\n", b"x = f()\n", b"assert check(x)\n"):
        assert prefilter.tier(source) == prefilter.SKIP, source
