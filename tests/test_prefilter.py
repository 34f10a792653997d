"""The byte-level pre-filter: which files are summarised up front (seed), when an import
connects them to a seed (candidate), or only on demand (skip)."""

from __future__ import annotations

from dslint import prefilter


def test_loader_words_make_a_seed_and_handling_words_a_candidate():
    assert prefilter.tier(b"from torch.utils.data import DataLoader\n") == prefilter.SEED
    assert prefilter.tier(b"def run(model, train_loader):\n    pass\n") == prefilter.CANDIDATE
    assert prefilter.tier(b"def add(a, b):\n    return a + b\n") == prefilter.SKIP


def test_a_handling_word_counts_in_code_and_one_line_strings_not_in_prose():
    """A model file whose docstring or comment mentions a dataset handles no loader (a
    model library holds hundreds); an option named in a one-line string is read by code."""
    for source in (b'"""Pretrained on the COCO dataset."""\nimport torch\n',
                   b"x = 1  # see the loader in train.py\n",
                   b"class Net:\n    '''Outputs per worker.'''\n    n = 1\n",
                   b"s = 'it\\'s'  # the loader\n"):
        assert prefilter.tier(source) == prefilter.SKIP, source
    for source in (b'parser.add_argument("--dataset", default="coco")\n',
                   b'x = "#"; y = loader\n', b"s = '''doc'''; z = dataset\n",
                   b'"""Docstring."""\ndef step(batch):\n    return batch.cuda(non_blocking=True)\n'):
        assert prefilter.tier(source) == prefilter.CANDIDATE, source


def test_prose_is_judged_within_bounds():
    """Past a few hundred occurrences, or in a file bigger than a hand-written module, the
    words are taken for code (as before prose was told apart): one long comment line full of
    them cannot make the pre-filter quadratic."""
    many = b"x = 1  # " + b"dataset " * (prefilter.MAX_PROSE_OCCURRENCES + 1) + b"\n"
    assert prefilter.tier(many) == prefilter.CANDIDATE
    few = b"x = 1  # " + b"dataset " * (prefilter.MAX_PROSE_OCCURRENCES - 1) + b"\n"
    assert prefilter.tier(few) == prefilter.SKIP
    big = b"# the loader\n" + b"x = 1\n" * (prefilter.MAX_PROSE_BYTES // 6)
    assert prefilter.tier(big) == prefilter.CANDIDATE


def test_a_loader_word_in_prose_only_makes_no_seed():
    """``Trainer`` or ``DataLoader`` named in a docstring or comment is no loader code: the
    file is tiered by its code (here a handling word makes it a candidate)."""
    assert prefilter.tier(b'"""Batches for the Trainer."""\ndef f(x):\n    return x\n') == prefilter.SKIP
    assert prefilter.tier(b"# wraps a DataLoader\ndef run(train_loader):\n    pass\n") == prefilter.CANDIDATE
    assert prefilter.tier(b'"""A Dataset."""\nfrom torch.utils.data import Dataset\n') == prefilter.SEED
    assert prefilter.tier(b'x = "cv2"  # a seed word in a one-line string\n') == prefilter.SEED


def test_a_call_statement_at_module_level_makes_a_candidate():
    """``run.py`` doing ``from train import main`` then ``main()`` starts the training at
    import time: it must be read when it imports a seed (DSL101)."""
    for source in (b"from train import main\n\nmain()\n", b"main()\n", b"import sys\nsys.exit(main())\n",
                   b"import fire\nfire.Fire(main)\n"):
        assert prefilter.tier(source) == prefilter.CANDIDATE, source
    for source in (b"from train import main\n\nif __name__ == '__main__':\n    main()\n",
                   b"print('hello')\n", b"def f():\n    g()\n", b"assert check(x)\n"):
        assert prefilter.tier(source) == prefilter.SKIP, source


def test_a_calls_result_used_at_module_level_makes_a_script():
    """``model = fit(cfg)`` or ``print(fit(cfg))`` in an entry script runs the training at
    import time as a bare ``fit(cfg)`` does (DSL101); a literal assignment, a print of
    literals, a guarded call, a call in a string or a module's logger start nothing."""
    for source in (b"from train import fit\n\nmodel = fit(cfg)\n", b"import trainer\nm = trainer.fit({})\n",
                   b"a, b = fit(cfg)\n", b"x: int = f()\n", b"n += count()\n", b"print(fit(1))\n",
                   b"print('done', len(x))\n"):
        assert prefilter.tier(source) == prefilter.SCRIPT, source
    for source in (b"x = 1\n", b"print('hello')\n", b"X = 'f('\n", b"# a = b(c)\n",
                   b"if __name__ == '__main__':\n    model = fit(cfg)\n", b"def f():\n    m = g()\n",
                   b"with open(path) as f:\n    pass\n", b"class A(B):\n    pass\n", b"SIZES = (\n    1,\n)\n",
                   b"logger = get_logger(__name__)\n"):
        assert prefilter.tier(source) == prefilter.SKIP, source


def test_a_script_is_read_when_it_imports_a_read_file_and_nothing_imports_it(tmp_path):
    """An entry script is read; a library module that assigns a call's result
    (``CONFIG = load_config()``) and is imported by others is not, nor a script that
    imports nothing read."""
    from dslint import engine

    files = {"train.py": "from torch.utils.data import DataLoader\n", "run.py": "from train import fit\nm = fit(1)\n",
             "util.py": "import train\nCONFIG = load_config()\n",
             "app.py": "import train\nfrom util import CONFIG\nmain()\n",
             "other.py": "import json\nx = json.loads('1')\n"}
    results = []
    for name, text in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        results.append(engine.scan(str(path)))
    roots = engine.given_roots([str(tmp_path)], [r.path for r in results])
    connected = {p.rpartition("/")[2] for p in engine.connected_candidates(results, roots)}
    assert connected == {"run.py", "app.py"}
