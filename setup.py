"""Ships the rule pages of ``rules/`` inside the wheel, as ``dslint/rules/*.md``."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithRulePages(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "dslint" / "rules"
        target.mkdir(parents=True, exist_ok=True)
        for page in sorted(Path(__file__).parent.joinpath("rules").glob("DSL*.md")):
            shutil.copy2(page, target / page.name)


setup(cmdclass={"build_py": BuildWithRulePages})
